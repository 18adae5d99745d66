"""A dataset card's YAML front matter read without PyYAML when it is written in the plain form
the builder's ``yaml.safe_dump`` gives: block mappings and sequences, each key a name and each
value one plain word. Importing PyYAML and parsing the header with it cost about 10 ms of every
command that reads a built folder (a third of the imports ``mhmmkg evaluate`` pays beside the
numpy scorer it is compared with).

``read_plain`` answers only for a text it reads exactly as PyYAML's ``SafeLoader`` would, and
None for anything else (quotes, flow collections, comments, anchors, tags, a duplicate key, a
blank line, a tab, CRLF, a word PyYAML could read as a number or a date), which the caller then
gives to PyYAML: its reading, and its message for a broken header, stay the only ones."""
from __future__ import annotations

import re

_LINE = re.compile(r"( *)((?:- )*)(?:([A-Za-z_][A-Za-z0-9_]*):(?: ([A-Za-z0-9_][A-Za-z0-9_.<>/+-]*))?"
                   r"|([A-Za-z0-9_][A-Za-z0-9_.<>/+-]*))")
#: the words PyYAML's YAML 1.1 resolver reads as booleans and as null
_WORDS = {**dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
          **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
          **dict.fromkeys(("null", "Null", "NULL"), None)}
_INTEGER = re.compile(r"0|[1-9][0-9]*")
#: the deepest column read here (the builder's cards reach 8): a header nested deeper is left to
#: PyYAML, as the reading here goes one call deeper for each level
_MAX_COLUMN = 100
_SEQUENCE = object()     # the key of a sequence entry's dash
_NO_WORD = object()      # the word of a key whose value is on the lines below


class _NotPlain(Exception):
    """The text is not in the plain form: PyYAML reads it."""


def read_plain(text: str) -> dict | None:
    """The mapping a plain front matter holds, or None when the text is not in the plain form."""
    try:
        items = _items(text)
        if items[0][0] != 0 or items[0][1] in (None, _SEQUENCE):
            return None
        value, end = _mapping(items, 0, 0)
    except _NotPlain:
        return None
    return value if end == len(items) else None


def _items(text: str) -> list[tuple]:
    """Each line's pieces as (column, key, word): a sequence entry's dash is a piece of its own
    (key ``_SEQUENCE``), the rest of its line a piece two columns further on; a lone word has
    the key None."""
    items = []
    for line in text.split("\n"):
        match = _LINE.fullmatch(line)
        if match is None:
            raise _NotPlain
        column = len(match[1])
        if column + len(match[2]) > _MAX_COLUMN:
            raise _NotPlain
        for _ in range(len(match[2]) // 2):
            items.append((column, _SEQUENCE, _NO_WORD))
            column += 2
        if match[3] is None:
            items.append((column, None, _scalar(match[5])))
        else:
            key = _scalar(match[3])
            if not isinstance(key, str):
                raise _NotPlain
            items.append((column, key, _NO_WORD if match[4] is None else _scalar(match[4])))
    return items


def _scalar(word: str):
    """A plain word as PyYAML's resolver reads it: a word starting with a letter is a string
    unless it is a boolean or null word; of those starting with a digit only decimal integers
    are taken, and a size category such as ``1K<n<10K`` (no number or date holds a ``<``)."""
    if not word[0].isdigit():
        return _WORDS.get(word, word)
    if _INTEGER.fullmatch(word):
        return int(word)
    if "<" in word:
        return word
    raise _NotPlain


def _node(items: list[tuple], at: int) -> tuple[object, int]:
    """The block mapping or sequence starting at ``items[at]`` and the index after it."""
    column, key, _ = items[at]
    if key is None:
        raise _NotPlain
    return _sequence(items, at, column) if key is _SEQUENCE else _mapping(items, at, column)


def _sequence(items: list[tuple], at: int, column: int) -> tuple[list, int]:
    values = []
    while at < len(items) and items[at][0] == column and items[at][1] is _SEQUENCE:
        at += 1
        if at == len(items) or items[at][0] <= column:
            raise _NotPlain
        if items[at][1] is None:
            values.append(items[at][2])
            at += 1
        else:
            value, at = _node(items, at)
            values.append(value)
    return values, at


def _mapping(items: list[tuple], at: int, column: int) -> tuple[dict, int]:
    """A mapping's values: a word, a node indented below its key, or a sequence whose dashes
    stand in the key's column (as ``safe_dump`` writes lists)."""
    values: dict = {}
    while at < len(items) and items[at][0] == column and items[at][1] not in (None, _SEQUENCE):
        _, key, word = items[at]
        if key in values:
            raise _NotPlain
        at += 1
        if word is not _NO_WORD:
            values[key] = word
        elif at < len(items) and items[at][0] > column:
            values[key], at = _node(items, at)
        elif at < len(items) and items[at][0] == column and items[at][1] is _SEQUENCE:
            values[key], at = _sequence(items, at, column)
        else:
            raise _NotPlain
    return values, at
