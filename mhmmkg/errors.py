"""Errors a user can cause. The CLI turns them into one clear message and exit code 2."""
from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one input file: where it is and what is wrong."""

    file: str
    pointer: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.pointer}" if self.pointer else self.file
        return f"{where}: {self.reason}"


class UserError(Exception):
    """A problem with what the user gave us; the message is meant to be read as it is."""


class InvalidInput(UserError):
    """One or more problems found in one pass over the input."""

    def __init__(self, problems: list[Problem], what: str = "input"):
        self.problems = sorted(set(problems))
        lines = [f"{len(self.problems)} problem(s) in the {what}:"]
        lines += [f"  {p}" for p in self.problems]
        super().__init__("\n".join(lines))


def json_pointer(*parts: object) -> str:
    """RFC 6901 pointer from path parts."""
    escaped = (str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return "".join("/" + p for p in escaped)


def read_json_input(path: str | Path, what: str) -> Any:
    """The JSON file ``path`` the user gave as ``what``, read strictly (:mod:`mhmmkg.jsontext`)."""
    from .files.jsontext import read_json_file

    return read_json_file(path, what)


#: errno values of OSErrors a user causes by where they point us (full disk, read-only mount,
#: permissions, a missing or non-folder parent, a name too long): user errors, not bugs
USER_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT,
                         errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP, errno.EFBIG, errno.EEXIST,
                         errno.ENXIO, errno.ETXTBSY, errno.EMLINK, errno.EXDEV, errno.EBUSY})


def os_error_message(exc: OSError, path: str | Path | None = None, action: str = "cannot write") -> str:
    """``path: action: reason`` for an OSError (the path from the error when not given)."""
    where = path if path is not None else (exc.filename if exc.filename is not None else "")
    return f"{where}: {action}: {exc.strerror or exc}" if where != "" else f"{action}: {exc.strerror or exc}"


def is_user_os_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in USER_ERRNOS
