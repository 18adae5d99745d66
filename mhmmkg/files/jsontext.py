"""Reading what a user gave us, strictly: the one reader of every JSON, JSON Lines and text file.

``json.loads`` accepts things that later break a build or a report far from their cause: a key
given twice (the last one silently wins), ``NaN``, nesting deep enough to exhaust the stack, a
lone UTF-16 surrogate (``"\\ud800"``) that no UTF-8 file can hold, and control characters that
make XML exports invalid. :func:`loads_strict` refuses each of them with a reason that names
the place (a JSON pointer).

The file readers (:func:`read_text_file`, :func:`read_json_file`, :func:`iter_json_lines`) decide
the rest once for every input: only regular files are opened (never a FIFO or a device), a file
over its size cap is refused before it is read, the text must be UTF-8 (a UTF-8 byte-order mark
is dropped; a UTF-16 or UTF-32 one is named), and every refusal is a
:class:`~mhmmkg.errors.UserError` that names the file, the place (line and column, or a JSON
pointer) and the reason.
"""
from __future__ import annotations

import codecs
import io
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from itertools import islice, repeat
from pathlib import Path
from typing import Any

from ..errors import Problem, UserError, json_pointer

MAX_DEPTH = 64
#: size caps: a JSON document or a text file, and one JSON Lines file (submissions, run logs)
MAX_TEXT_BYTES = 64 << 20
MAX_JSONL_BYTES = 1 << 30
_FOREIGN_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                 (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")   # forbidden in XML 1.0, and DEL
#: escapes in a JSON text that may decode to a surrogate, or to a character _CONTROL refuses
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_CONTROL_ESCAPE = re.compile(r"\\(?:[bf]|u(?:00[01][0-9a-fA-F]|007[fF]|[fF]{3}[eEfF]))")


class JSONTextError(ValueError):
    """Why a JSON text was refused; ``pointer`` says where, when known."""

    def __init__(self, reason: str, pointer: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.pointer = pointer


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise JSONTextError(f"invalid JSON: duplicate key {key!r} in one object")
        obj[key] = value
    return obj


def _reject_constant(name: str):
    raise JSONTextError(f"invalid JSON: {name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONTextError(f"invalid JSON: the number {text[:40]} is too large for a 64-bit float")
    return value


def loads_strict(text: str, *, control_characters: bool = True, one_line: bool = False,
                 count_keys: Callable[[Any], int | None] | None = None, from_utf8: bool = False) -> Any:
    """Parse ``text``; raise JSONTextError for duplicate keys, NaN/Infinity, nesting deeper than
    MAX_DEPTH, lone surrogates and (unless ``control_characters``) control characters other
    than tab, newline and carriage return in any string. ``one_line``: a syntax error names
    only the column (for JSON Lines records). ``count_keys``: a faster way to count the keys of
    the parsed value, as :func:`_count_keys_within_depth` would (see :func:`_parse_fast`).
    ``from_utf8``: ``text`` was decoded from UTF-8 (strictly, as ``bytes.decode`` does), so it
    holds no surrogate itself and only an escape can make one."""
    value = _parse_fast(text, count_keys)
    if value is _REPARSE:
        value = _parse(text, one_line)
        deep = _too_deep(value)
    else:
        deep = False
    if deep or _may_hold_bad_text(text, control_characters, surrogates=not from_utf8):
        _check_value(value, (), control_characters)
    return value


_REPARSE = object()
#: a key's closing quote and its colon with whitespace between them (see :func:`_key_ends`)
_SPACED_KEY_END = re.compile(r'"[ \t\n\r]+:')


def _key_ends(text: str) -> int:
    """How many times a quote followed by a colon (whitespace between them allowed) occurs in
    ``text``: at least once per key. Inside a string ``"`` is escaped, so this also counts some
    text of strings (``\\":``) but never misses a key. The occurrences never overlap, and most
    have no whitespace: a count of ``":`` plus a search for the rest is faster than one regex."""
    return text.count('":') + len(_SPACED_KEY_END.findall(text))


def _parse_fast(text: str, count_keys: Callable[[Any], int | None] | None = None) -> Any:
    """The value of a text that parses without a Python call per object, or _REPARSE.

    Duplicate keys are found by counting instead of by a hook: a duplicate leaves the parsed
    objects one key fewer than the text has key ends, so equal counts prove there is none. A
    syntax error, a possible duplicate or nesting deeper than MAX_DEPTH sends the text to
    :func:`_parse`, the exact (slower) path, which gives the error.

    ``count_keys(value)``, when given and not None, stands for the count of
    :func:`_count_keys_within_depth`: it must never count more keys than the objects hold (one
    count fewer merely sends the text to the exact path), and a number from it must mean that
    no value lies more than MAX_DEPTH levels down."""
    try:
        value = _FAST_DECODER.decode(text)
    except (ValueError, RecursionError):
        return _REPARSE
    keys = count_keys(value) if count_keys is not None else None
    if keys is None:
        keys = _count_keys_within_depth(value)
    if keys is None or (keys and _key_ends(text) != keys):
        return _REPARSE
    return value


#: one decoder for every text (``json.loads`` with hooks makes a new one per call); ``decode``
#: accepts what ``json.loads`` accepts except a text starting with a byte-order mark, which
#: :func:`_parse` then refuses with ``json.loads``'s message
_FAST_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def _count_keys_within_depth(value: Any, max_depth: int = MAX_DEPTH) -> int | None:
    """How many keys the objects in ``value`` (as ``json.loads`` gives it: plain dicts and lists)
    hold; None when a node lies more than ``max_depth`` levels down (see :func:`_too_deep`)."""
    level, depth, keys = [value] if type(value) in (dict, list) else [], 0, 0
    while level:
        if depth == max_depth:
            return None if any(level) else keys
        below: list = []
        for item in level:
            if type(item) is dict:
                keys += len(item)
                item = item.values()
            for child in item:
                kind = type(child)
                if kind is dict or kind is list:
                    below.append(child)
        level, depth = below, depth + 1
    return keys


def _parse(text: str, one_line: bool) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_object_without_duplicates, parse_constant=_reject_constant,
                          parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno} column {exc.colno}"
        raise JSONTextError(f"invalid JSON at {where}: {exc.msg}") from None
    except RecursionError:
        raise JSONTextError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    except JSONTextError:
        raise
    except ValueError as exc:       # e.g. an integer of more than 4300 digits
        raise JSONTextError(f"invalid JSON: {exc}") from None


def _may_hold_bad_text(text: str, control_characters: bool, surrogates: bool = True) -> bool:
    """False when no string of the parsed ``text`` can hold what ``_check_string`` refuses: a
    character is either in the text itself or written as an escape. A few searches of the whole
    text instead of two per string; a True (rare) sends the value through the exact check.

    Every escape starts with a backslash. The parser has refused every raw character below
    U+0020 in a string (and outside strings stands only white space), so of the raw characters
    ``_CONTROL`` refuses only DEL, U+FFFE and U+FFFF are left to find, each by a plain search;
    an ASCII text holds none of them but DEL, and no surrogate. ``surrogates``: False when the
    text itself is known to hold none (decoded from UTF-8), so only escapes are searched."""
    if "\\" in text and (_SURROGATE_ESCAPE.search(text) or
                          (not control_characters and _CONTROL_ESCAPE.search(text))):
        return True
    if text.isascii():
        return not control_characters and "\x7f" in text
    if surrogates and _holds_surrogate(text):
        return True
    return not control_characters and ("\x7f" in text or "\ufffe" in text or "\uffff" in text)


#: characters encoded at a time by :func:`_holds_surrogate`: a copy of a few MB at most
_ENCODED_AT_ONCE = 1 << 20


def _holds_surrogate(text: str) -> bool:
    """``bool(_SURROGATE.search(text))``, found by the UTF-16 encoder (which refuses every
    surrogate code point) piece by piece: several times faster than the regex."""
    try:
        for start in range(0, len(text), _ENCODED_AT_ONCE):
            text[start:start + _ENCODED_AT_ONCE].encode("utf-16-le")
    except UnicodeEncodeError:
        return True
    return False


def _too_deep(value: Any) -> bool:
    """True when some node of ``value`` lies more than MAX_DEPTH levels down."""
    level, depth = [value] if isinstance(value, (dict, list)) else [], 0
    while level:
        if depth == MAX_DEPTH:
            return any(level)
        below = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend(child for child in children if isinstance(child, (dict, list)))
        level, depth = below, depth + 1
    return False


def _check_value(value: Any, parts: tuple, control_characters: bool) -> None:
    stack = [(value, parts)]
    while stack:
        item, where = stack.pop()
        if len(where) > MAX_DEPTH:
            raise JSONTextError(f"nested more than {MAX_DEPTH} levels deep", json_pointer(*where[:MAX_DEPTH]))
        if isinstance(item, str):
            _check_string(item, where, control_characters)
        elif isinstance(item, dict):
            for key, child in item.items():
                _check_string(key, where, control_characters, what="key")
                stack.append((child, (*where, key)))
        elif isinstance(item, list):
            stack.extend((child, (*where, i)) for i, child in enumerate(item))


def _check_string(text: str, where: tuple, control_characters: bool, what: str = "string") -> None:
    if _SURROGATE.search(text):
        raise JSONTextError(f"{what} holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text",
                            json_pointer(*where))
    bad = None if control_characters else _CONTROL.search(text)
    if bad:
        raise JSONTextError(f"{what} holds the control character U+{ord(bad.group()):04X} "
                            f"at position {bad.start()}", json_pointer(*where))


class InputFileError(UserError):
    """A refused input file; ``problem`` holds its file, place and reason."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


def text_error(path: str | Path, place: str, reason: str) -> InputFileError:
    """The one shape of a refused input: ``file:place: reason``."""
    return InputFileError(Problem(str(path), place, reason))


def read_bytes_file(path: str | Path, what: str, *, max_bytes: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (the user's ``what``), at most ``max_bytes`` of them.

    A FIFO, socket or device is refused before it is opened (opening a FIFO would wait for a
    writer); the file is opened without following a FIFO swapped in after the check."""
    path = Path(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device?)"
            raise text_error(path, "", f"cannot read the {what}: it is {kind}")
        if info.st_size > max_bytes:
            raise text_error(path, "", f"the {what} is {info.st_size:,} bytes, over the limit of {max_bytes:,}")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise text_error(path, "", f"cannot read the {what}: not a regular file")
            # a buffer the size of the file, not of the cap; a file grown since is read on
            data = handle.read(min(info.st_size, max_bytes) + 1)
            if len(data) > info.st_size:
                data += handle.read(max_bytes + 1 - len(data))
    except FileNotFoundError:
        raise text_error(path, "", f"cannot read the {what}: no such file") from None
    except OSError as exc:
        raise text_error(path, "", f"cannot read the {what}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise text_error(path, "", f"the {what} is over the limit of {max_bytes:,} bytes")
    return data


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of the regular file ``path``; ``b""`` for anything else (a folder,
    a FIFO, opened without waiting for a writer). OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""


def decode_text(data: bytes, path: str | Path, what: str, *, first_line: int = 1) -> str:
    """UTF-8 text of ``data``; a leading UTF-8 byte-order mark is dropped. Anything else (UTF-16,
    latin-1, binary) is refused with the line and column of the first byte that is not UTF-8."""
    for bom, name in _FOREIGN_BOMS:
        if data.startswith(bom):
            raise text_error(path, "", f"the {what} is {name} text, not UTF-8; save it as UTF-8")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise text_error(path, f"line {line} column {column}",
                         f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x}); save it as UTF-8") from None


def read_text_file(path: str | Path, what: str, *, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of the user's file ``path`` (see :func:`read_bytes_file`, :func:`decode_text`)."""
    return decode_text(read_bytes_file(path, what, max_bytes=max_bytes), path, what)


def read_json_file(path: str | Path, what: str, *, max_bytes: int = MAX_TEXT_BYTES,
                   control_characters: bool = True) -> Any:
    """The strictly parsed JSON document in ``path`` (see :func:`loads_strict`); any problem is a
    UserError naming the file, the place and the reason."""
    text = read_text_file(path, what, max_bytes=max_bytes)
    try:
        return loads_strict(text, control_characters=control_characters)
    except JSONTextError as exc:
        raise text_error(path, exc.pointer, f"{exc.reason} (in the {what})") from None


def parse_json_line(raw: bytes) -> Any:
    """One JSON Lines record, strictly; JSONTextError says why not (its pointer, when known)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONTextError(f"not UTF-8 text (invalid byte at column {exc.start + 1})") from None
    return loads_strict(text, one_line=True)


def parse_json_lines(raws: list[bytes]) -> list[Any] | None:
    """The records of many JSON Lines at once, or None: then some line may be refused, and the
    caller reads them one by one with :func:`parse_json_line`, which says why.

    The records are those :func:`parse_json_line` gives; what is checked per line there (the
    key count against the text's key ends, the depth, the text that may hold a refused
    character) is checked here once over all lines. A line's key ends are never fewer than its
    keys, so equal totals mean equal counts on every line; the lines are joined by NUL, which
    none of the searched patterns matches, so no match spans two lines."""
    try:
        texts = [raw.decode("utf-8") for raw in raws]
        values = _decode_lines(texts)
    except (ValueError, RecursionError):
        return None
    return _checked_records(values, "\0".join(texts), map(str.count, texts, repeat("[")))


def parse_plain_json_lines(data: bytes) -> list[Any] | None:
    """The records of the JSON Lines ``data`` when each of its lines is one value and nothing
    else (no blank line, no white space around a value: as programs write them), as
    :func:`parse_json_lines` gives them for its lines; None for any other text, and where
    :func:`parse_json_lines` gives None.

    The text is decoded once and each value is scanned where it stands in it: no bytes and no
    string per line are made (at 100x, 23,800 lines: 5 ms and 10 MiB of copies). No match of
    the searched patterns spans two lines here either: each line is one whole value, which
    neither ends with a backslash nor starts with a colon."""
    if data[-2:].isspace():         # a blank line or white space at the end, found before the scan
        return None
    try:
        text = data.decode("utf-8")
        values, ends = _scan_plain_lines(text)
    except (ValueError, RecursionError, StopIteration):
        return None
    if values is None:
        return None
    starts = [0, *map((1).__add__, islice(ends, len(ends) - 1))]
    return _checked_records(values, text, map(text.count, repeat("["), starts, ends))


def _scan_plain_lines(text: str) -> tuple[list[Any], list[int]] | tuple[None, None]:
    """The value of each line of ``text`` and the place where it ends, each scanned in place as
    :func:`_decode_lines` scans a line; (None, None) when a line is not one value and nothing
    else. StopIteration when no value starts a line (a blank one, or white space first)."""
    scan = _FAST_DECODER.scan_once
    values: list[Any] = []
    ends: list[int] = []
    start, size = 0, len(text)
    while start < size:
        value, end = scan(text, start)
        if end < size and text[end] != "\n":
            return None, None
        values.append(value)
        ends.append(end)
        start = end + 1
    if len(values) != text.count("\n") + (not text.endswith("\n")):     # a value went on past a line end
        return None, None
    return values, ends


def _checked_records(values: list[Any], joined: str, brackets: Iterable[int]) -> list[Any] | None:
    """``values``, the records of lines joined in ``joined`` (``brackets``: how many "[" each
    line holds), when every check :func:`parse_json_line` makes per line passes; else None."""
    keys = _flat_record_keys(values, joined, brackets)
    if keys is None:
        keys = _count_keys_within_depth(values, MAX_DEPTH + 1)      # each record one level down in the list
        if keys is None:
            return None
    if (keys and _key_ends(joined) != keys) or _may_hold_bad_text(joined, True):
        return None
    return values


def _decode_lines(texts: list[str]) -> list[Any]:
    """``[_FAST_DECODER.decode(text) for text in texts]``, with the scanner called directly on a
    line that starts with its value and ends with it (``decode`` adds a Python call and two
    whitespace matches per line); any other line goes through ``decode``, which says why not."""
    scan, decode = _FAST_DECODER.scan_once, _FAST_DECODER.decode
    values = []
    append = values.append
    for text in texts:
        try:
            value, end = scan(text, 0)
        except StopIteration:           # no value at the start (white space first, or none at all)
            end = -1
        append(value if end == len(text) else decode(text))
    return values


def _flat_record_keys(values: list[Any], joined: str, brackets: Iterable[int]) -> int | None:
    """``_count_keys_within_depth(values, MAX_DEPTH + 1)`` when every record is an object that holds
    no object and fewer than MAX_DEPTH lists inside each other (a submission's lines), found by
    counting brackets in the text: one "{" per line is the record's own, so none is nested, and a
    line with fewer than MAX_DEPTH "[" (``brackets``: their count on each line) nests no deeper.
    None when that is not so (walk the records)."""
    if joined.count("{") != len(values) or not all(type(value) is dict for value in values):
        return None
    if max(brackets, default=0) >= MAX_DEPTH:
        return None
    return sum(map(len, values))


def iter_json_lines(path: str | Path, what: str, *, max_bytes: int = MAX_JSONL_BYTES) -> Iterator[tuple[int, Any]]:
    """(line number, record) of every non-blank line of a JSON Lines file; the first bad line is
    a UserError naming it."""
    data = read_bytes_file(path, what, max_bytes=max_bytes)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            yield number, parse_json_line(raw)
        except JSONTextError as exc:
            place = f"line {number}" + (f" {exc.pointer}" if exc.pointer else "")
            raise text_error(path, place, f"{exc.reason} (in the {what})") from None


class CsvRow(dict):
    """One CSV record by column name; ``line`` is the line it starts on."""

    line: int = 0


MAX_CSV_FIELD = 1 << 20


def read_csv_file(path: str | Path, what: str, columns: tuple[str, ...] = (), *,
                  max_bytes: int = MAX_TEXT_BYTES) -> list[CsvRow]:
    """The records of a UTF-8 CSV file with a header line holding ``columns``; a record with
    more or fewer fields than the header, a field over 1 MiB or broken quoting is refused with
    its line."""
    import csv

    text = read_text_file(path, what, max_bytes=max_bytes)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[CsvRow] = []
    previous = csv.field_size_limit(MAX_CSV_FIELD)
    try:
        header = next(reader, None)
        if header is None:
            raise text_error(path, "line 1", f"the {what} is empty (expected a header line)")
        missing = [c for c in columns if c not in header]
        if missing:
            raise text_error(path, "line 1", f"the {what} has no column {', '.join(map(repr, missing))}")
        start = reader.line_num + 1
        for fields in reader:
            if not fields:
                start = reader.line_num + 1
                continue
            if len(fields) != len(header):
                raise text_error(path, f"line {start}", f"{len(fields)} fields where the header has {len(header)}")
            row = CsvRow(zip(header, fields))
            row.line = start
            rows.append(row)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise text_error(path, f"line {reader.line_num}", f"the {what} is not valid CSV ({exc})") from None
    finally:
        csv.field_size_limit(previous)
    return rows
