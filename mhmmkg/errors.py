"""Errors a user can cause. The CLI turns them into one clear message and exit code 2."""
from __future__ import annotations

import json
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
    """The decoded JSON file ``path`` the user gave as ``what``; unreadable or not JSON is a user error."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UserError(f"{path}: not JSON: {exc}") from None
