"""Writing outputs so that a failure never leaves a half-written file or folder behind: write
beside the target, then rename into place only on success.

Every file and folder output goes through :func:`atomic_path` or :func:`staged_folder`, and
every one of them is put in place by :func:`publish`. An OSError a user can cause while writing
(no space, a read-only mount, no permission, a missing or non-folder parent) becomes a
:class:`~mhmmkg.errors.UserError` naming the output; the temporary file or folder is removed and
the previous output, if any, is left as it was."""
from __future__ import annotations

import json
import math
import operator
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain, repeat
from json.encoder import c_make_encoder, encode_basestring
from pathlib import Path
from typing import Any

from ..errors import UserError, is_user_os_error, os_error_message


def publish(staged: Path, out: Path) -> None:
    """Put a finished temporary file or folder in place (the one rename every output ends with)."""
    os.replace(staged, out)


def cannot_write(out: str | Path, exc: OSError) -> UserError:
    return UserError(os_error_message(exc, out, "cannot write"))


def _make_parent(out: Path) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise cannot_write(out, exc) from None


def _remove_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


@contextmanager
def atomic_path(out: str | Path) -> Iterator[Path]:
    """Yield a temporary file path beside ``out``; it replaces ``out`` when the block succeeds."""
    out = Path(out)
    _make_parent(out)
    tmp = out.parent / f".{out.name}.{uuid.uuid4().hex}.tmp"  # created by the writer, with the usual permissions
    try:
        yield tmp
        publish(tmp, out)
    except OSError as exc:
        if is_user_os_error(exc):
            raise cannot_write(out, exc) from None
        raise
    finally:
        _remove_quietly(tmp)


def atomic_write_text(out: str | Path, text: str, *, durable: bool = False) -> Path:
    """Write ``text`` to ``out`` atomically; ``durable`` also fsyncs it before the rename."""
    return _atomic_write_pieces(out, (text,), durable=durable)


def atomic_write_json(out: str | Path, data: Any, *, durable: bool = False, sort_keys: bool = False) -> Path:
    pieces = _Indented(sort_keys).pieces(data, 0)
    pieces.append("\n")
    return _atomic_write_pieces(out, pieces, durable=durable)


def _atomic_write_pieces(out: str | Path, pieces: Iterable[str], *, durable: bool) -> Path:
    """Write the text made of ``pieces`` atomically (a large text is never put together in memory)."""
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.writelines(pieces)
        if durable:
            f.flush()
            os.fsync(f.fileno())
    return Path(out)


_CONTAINERS = (dict, list, tuple)


def indented_json(data: Any, *, sort_keys: bool = False) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False, sort_keys=sort_keys)``: the same text, faster.

    With ``indent`` the standard library encodes in Python, a generator step per value (most of
    the time of writing a large evaluation). Here only containers that hold containers are
    walked in Python; a container of plain values is written by the C encoder in one call, with
    the newline and indentation of its level as the item separator."""
    return "".join(_Indented(sort_keys).pieces(data, 0))


#: rows of plain values encoded per call (a piece of about 200 KiB for an evaluation's rows)
ROWS_PER_PIECE = 512


#: the types whose equal values are written alike (never mixed: 1 == True == 1.0); floats too
#: unless both zeros are there (0.0 == -0.0)
_WRITTEN_AS_EQUAL = {str, int, bool, type(None)}
_PLAIN = (str, int, float, type(None))


def _zeros_of_one_sign(values: Iterable[float]) -> bool:
    """True unless ``values`` hold both 0.0 and -0.0, which are equal but written apart."""
    return len(set(map(math.copysign, repeat(1.0), filter(operator.not_, values)))) < 2


class _Indented:
    def __init__(self, sort_keys: bool):
        self.sort_keys = sort_keys
        self._encoders: dict[int, Callable[[Any], str]] = {}
        self._lines = self._encoder("\n")

    def _encode(self, value: Any, level: int) -> str:
        encoder = self._encoders.get(level)
        if encoder is None:
            encoder = self._encoders[level] = self._encoder(",\n" + "  " * (level + 1))
        return encoder(value)

    def _encoder(self, item_separator: str) -> Callable[[Any], str]:
        """What ``JSONEncoder(...).encode`` does, with the C encoder made once instead of per call."""
        python = json.JSONEncoder(ensure_ascii=False, sort_keys=self.sort_keys, separators=(item_separator, ": "))
        if c_make_encoder is None:
            return python.encode
        encode = c_make_encoder({}, python.default, encode_basestring, None, ": ", item_separator, self.sort_keys,
                                False, True)
        return lambda value: "".join(encode(value, 0))

    def pieces(self, value: Any, level: int) -> list[str]:
        """The indented text of ``value`` at ``level`` in pieces, in order: rows of plain values
        come ROWS_PER_PIECE at a time, so that a large document is written without its whole
        text, or copies of it, in memory."""
        if isinstance(value, dict):
            items = sorted(value.items()) if self.sort_keys else value.items()
            nested = any(map(isinstance, value.values(), repeat(_CONTAINERS)))
        elif isinstance(value, (list, tuple)):
            items, nested = value, any(map(isinstance, value, repeat(_CONTAINERS)))
        else:
            return [self._encode(value, level)]
        if not value:
            return ["{}" if isinstance(value, dict) else "[]"]
        pad, end = "\n" + "  " * (level + 1), "\n" + "  " * level
        if not nested:
            flat = self._encode(value, level)
            return [flat[0], pad, flat[1:-1], end, flat[-1]]
        if isinstance(value, dict):
            out = ["{"]
            for i, (k, v) in enumerate(items):
                out += (pad if i == 0 else "," + pad, self._key(k), ": ")
                out += self.pieces(v, level + 1)
            out += (end, "}")
            return out
        if set(map(type, value)) == {dict} and all(value):
            rows = self._table(value, level) or self._rows(value, level)
            if rows is not None:
                return rows
        out = ["["]
        for i, v in enumerate(items):
            out.append(pad if i == 0 else "," + pad)
            out += self.pieces(v, level + 1)
        out += (end, "]")
        return out

    def _rows(self, value: list | tuple, level: int) -> list[str] | None:
        """The pieces of a list of non-empty objects whose values are plain (when ``_table`` cannot
        take them: keys that differ between rows, or sorted), in one encoder call per piece; None
        when a value is a container.

        The item separator between two objects, "}" "," inner pad "{", is found nowhere else
        (inside an object a key follows it; no encoded string holds a raw newline), so it is
        replaced there, and put between two pieces. The type of each value is looked at only in
        a piece whose text holds a bracket beyond those of the list and its objects (a container
        value, or a string that holds one), not in every piece (7 ms for an evaluation at 100x)."""
        pad, end, inner = ("\n" + "  " * (level + depth) for depth in (1, 0, 2))
        between = pad + "}," + pad + "{" + inner
        out = ["[", pad, "{", inner]
        for start in range(0, len(value), ROWS_PER_PIECE):
            if start:
                out.append(between)
            rows = value[start:start + ROWS_PER_PIECE]
            flat = self._encode(rows, level + 1)
            if (flat.find("[", 1) >= 0 or flat.count("{") != len(rows)) and any(
                    map(isinstance, chain.from_iterable(map(dict.values, rows)), repeat(_CONTAINERS))):
                return None
            out.append(flat[2:-2].replace("}," + inner + "{", between))
        out += (pad, "}", end, "]")
        return out

    def _table(self, rows: list | tuple, level: int) -> list[str] | None:
        """The pieces of a list of objects whose keys are the same strings in the same order and
        whose values are plain (an evaluation's per-query rows), ROWS_PER_PIECE rows put together
        column by column; None for any other list, and with sorted keys.

        The C encoder writes each key of each row again (half the time of writing such rows):
        here each key's text is made once, and each column's values are written in one encoder
        call, once per distinct value where equal values are written alike."""
        keys = tuple(rows[0])
        if self.sort_keys or not all(type(key) is str for key in keys) or not all(map(keys.__eq__, map(tuple, rows))):
            return None
        pad, end, inner = ("\n" + "  " * (level + depth) for depth in (1, 0, 2))
        heads = [("{" if i == 0 else ",") + inner + self._key(key) + ": " for i, key in enumerate(keys)]
        out = ["[", pad]
        for start in range(0, len(rows), ROWS_PER_PIECE):
            columns = [chain([""] if start == 0 else (), repeat("," + pad))]
            for head, values in zip(heads, zip(*map(dict.values, rows[start:start + ROWS_PER_PIECE]))):
                texts = self._column(head, values)
                if texts is None:
                    return None
                columns.append(texts)
            columns.append(repeat(pad + "}"))
            out.append("".join(chain.from_iterable(zip(*columns))))
        out += (end, "]")
        return out

    def _column(self, head: str, values: tuple) -> Iterator[str] | None:
        """``head`` then the text of each value, as the C encoder writes it; None when a value is
        not a string, number, bool or None."""
        kinds = set(map(type, values))
        if not all(issubclass(kind, _PLAIN) for kind in kinds):
            return None
        if len(kinds) == 1 and (kinds <= _WRITTEN_AS_EQUAL or kinds == {float} and _zeros_of_one_sign(values)):
            distinct = list(dict.fromkeys(values))
            if len(distinct) < len(values):
                return map(dict(zip(distinct, map(head.__add__, self._plain_texts(distinct)))).__getitem__, values)
        return map(head.__add__, self._plain_texts(values))

    def _plain_texts(self, values: Iterable[Any]) -> list[str]:
        """The text of each plain value, from one encoder call: none holds a raw newline."""
        return self._lines(list(values))[1:-1].split("\n")

    def _key(self, key: Any) -> str:
        """A key as the standard encoder writes it (str, or a number, bool or None made a string)."""
        if isinstance(key, str):
            return self._encode(key, 0)
        return self._encode({key: None}, 0)[1:-len(": null}")]


_LEFTOVER = "^\\.{name}\\.(staging|old)-(\\d+)-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_swap(out: str | Path) -> None:
    """Finish what an interrupted :func:`staged_folder` of a dead process left beside ``out``.

    A kill between the swap's two renames leaves ``out`` missing and the previous folder under
    its backup name: it is put back. Staging folders and backups of dead processes are removed.
    Only folders named the way ``staged_folder`` names them, by a process no longer running, are
    touched.
    """
    out = Path(out)
    if not out.parent.is_dir():
        return
    pattern = re.compile(_LEFTOVER.format(name=re.escape(out.name)))
    leftovers: dict[str, list[Path]] = {"staging": [], "old": []}
    for path in out.parent.iterdir():
        match = pattern.match(path.name)
        if match and path.is_dir() and not path.is_symlink() and not _alive(int(match.group(2))):
            leftovers[match.group(1)].append(path)
    backups = sorted(leftovers["old"], key=lambda p: p.stat().st_mtime)
    if backups and not out.exists() and not out.is_symlink():
        backups.pop().rename(out)
    for path in backups + leftovers["staging"]:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def staged_folder(out: str | Path) -> Iterator[Path]:
    """Yield an empty folder beside ``out``; on success it replaces ``out``, on failure it is removed.

    The swap is two renames (``out`` to a backup name, then the staged folder to ``out``); a
    process killed in between is repaired by :func:`recover_swap`, which every call runs first.
    Callers check that ``out`` may be replaced at all (``mhmmkg.outputs``).
    """
    out = Path(out)
    _make_parent(out)
    recover_swap(out)
    tag = f"{os.getpid()}-"
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-{tag}", dir=out.parent))
    except OSError as exc:
        raise cannot_write(out, exc) from None
    try:
        yield staging
        _swap_in(staging, out, tag)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if is_user_os_error(exc):
            raise cannot_write(out, exc) from None
        raise


def _swap_in(staging: Path, out: Path, tag: str) -> None:
    """``out`` becomes ``staging``; on a failure the previous ``out`` is put back."""
    old = None
    if out.exists() or out.is_symlink():
        old = out.parent / f".{out.name}.old-{tag}{uuid.uuid4().hex[:8]}"
        out.rename(old)
    try:
        staging.chmod(0o755)
        publish(staging, out)
    except BaseException:
        if old is not None:
            old.rename(out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
