"""Reading JSON that a user wrote, strictly: one parser for sources, submissions and run metadata.

``json.loads`` accepts things that later break a build or a report far from their cause: a key
given twice (the last one silently wins), ``NaN``, nesting deep enough to exhaust the stack, a
lone UTF-16 surrogate (``"\\ud800"``) that no UTF-8 file can hold, and control characters that
make XML exports invalid. :func:`loads_strict` refuses each of them with a reason that names
the place (a JSON pointer).
"""
from __future__ import annotations

import json
import re
from typing import Any

from .errors import json_pointer

MAX_DEPTH = 64
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


def loads_strict(text: str, *, control_characters: bool = True, one_line: bool = False) -> Any:
    """Parse ``text``; raise JSONTextError for duplicate keys, NaN/Infinity, nesting deeper than
    MAX_DEPTH, lone surrogates and (unless ``control_characters``) control characters other
    than tab, newline and carriage return in any string. ``one_line``: a syntax error names
    only the column (for JSON Lines records)."""
    try:
        value = json.loads(text, object_pairs_hook=_object_without_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno} column {exc.colno}"
        raise JSONTextError(f"invalid JSON at {where}: {exc.msg}") from None
    except RecursionError:
        raise JSONTextError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    if _may_hold_bad_text(text, control_characters) or _too_deep(value):
        _check_value(value, (), control_characters)
    return value


def _may_hold_bad_text(text: str, control_characters: bool) -> bool:
    """False when no string of the parsed ``text`` can hold what ``_check_string`` refuses: a
    character is either in the text itself or written as an escape. Two searches of the whole
    text instead of two per string; a True (rare) sends the value through the exact check."""
    if _SURROGATE.search(text) or _SURROGATE_ESCAPE.search(text):
        return True
    return not control_characters and bool(_CONTROL.search(text) or _CONTROL_ESCAPE.search(text))


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
