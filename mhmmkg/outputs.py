"""Where a verb may write: the one rule every command applies before it writes anything.

- No output lands on an input: an output equal to an input, inside an input folder or above
  one (symlinks resolved) is refused.
- A folder is replaced only when it holds our own manifest of the expected kind (a built
  dataset, a Neo4j export, a demo folder, an imported sources folder) and no file that manifest
  does not list; an empty folder may be used, anything else is left untouched.
- Never the current folder or a folder above it, never a path under a file, never a place we
  cannot write, never a symbolic link, FIFO or device.

Every refusal is a :class:`~mhmmkg.errors.UserError` (exit code 2) naming the path and the reason.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .atomic import recover_swap
from .errors import UserError
from .manifest import MANIFEST, write_manifest

#: manifest formats of the folders we write, by kind ("dataset" is the build manifest)
FORMATS = {
    "dataset": "mh-mmkg/1",
    "neo4j": "mh-mmkg-neo4j/1",
    "demo": "mh-mmkg-demo/1",
    "sources": "mh-mmkg-sources/1",
    "beir": "mh-mmkg-beir/1",
    "completion": "mh-mmkg-completion/1",
}
WHAT = {
    "dataset": "a dataset folder built by 'mhmmkg build'",
    "neo4j": "a Neo4j export made by 'mhmmkg export --format neo4j'",
    "demo": "a demo folder made by 'mhmmkg demo'",
    "sources": "a sources folder made by 'mhmmkg import-official'",
    "run": "a run folder made by 'mhmmkg run'",
    "beir": "a retrieval export made by 'mhmmkg export --format beir'",
    "completion": "a link-prediction split made by 'mhmmkg export --format completion'",
}

Inputs = Iterable[str | Path | None]


def _manifest(folder: Path) -> dict | None:
    path = folder / MANIFEST
    if not path.is_file() or path.is_symlink():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def manifest_kind(folder: str | Path) -> str | None:
    """The kind of output our manifest in ``folder`` declares (see FORMATS, or "run"), else None."""
    data = _manifest(Path(folder))
    if data is None:
        return None
    if "config_hash" in data and isinstance(data.get("config"), dict):
        return "run"
    if not isinstance(data.get("fingerprint"), str) or not isinstance(data.get("files"), dict):
        return None
    return next((kind for kind, fmt in FORMATS.items() if data.get("format") == fmt), None)


def unlisted_files(folder: Path) -> list[str]:
    """Files of one of our output folders that its manifest does not list (added by someone else)."""
    listed = (_manifest(folder) or {}).get("files") or {}
    every = (p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())
    return sorted(rel for rel in every if rel != MANIFEST and rel not in listed)


def write_output_manifest(folder: Path, kind: str) -> str:
    """Mark a staged output folder as ours (with the SHA-256 of its files); returns the fingerprint."""
    return write_manifest(folder, format=FORMATS[kind])


def _resolved(path: str | Path) -> Path:
    return Path(os.path.abspath(Path(path).expanduser())).resolve()


def check_location(out: str | Path, *, inputs: Inputs = (), flag: str = "--out") -> Path:
    """Refuse an output path that is or overlaps an input, is or holds the current folder, is
    under a file, or lies where we cannot write. Returns ``out`` as a Path."""
    out = Path(out)
    real = _resolved(out)
    for given in inputs:
        if given is None or not Path(given).exists():
            continue
        source = _resolved(given)
        if real == source:
            raise UserError(f"{flag} {out}: is the input {given}; an output never replaces an input")
        if source.is_dir() and real.is_relative_to(source):
            raise UserError(f"{flag} {out}: is inside the input folder {given}; choose a place outside it")
        if source.is_relative_to(real):
            raise UserError(f"{flag} {out}: holds the input {given}; choose a place that does not contain it")
    cwd = _resolved(Path.cwd())
    if cwd.is_relative_to(real):
        raise UserError(f"{flag} {out}: is the current folder or holds it; name a new folder instead")
    if out.is_symlink():
        raise UserError(f"{flag} {out}: is a symbolic link; give the real path")
    if out.exists() and not (out.is_dir() or out.is_file()):
        raise UserError(f"{flag} {out}: is not a regular file or folder (a FIFO or device?)")
    parent = real.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UserError(f"{flag} {out}: lies under {parent}, which is a file, not a folder")
    try:        # a real attempt: permissions alone do not tell (root, read-only mounts, /proc)
        os.rmdir(tempfile.mkdtemp(prefix=".mhmmkg-probe-", dir=parent))
    except OSError as exc:
        raise UserError(f"{flag} {out}: cannot write in {parent} ({exc.strerror or exc})") from None
    if out.exists() and not os.access(out, os.W_OK):
        raise UserError(f"{flag} {out}: is read-only")
    return out


def check_output_file(out: str | Path, *, inputs: Inputs = (), flag: str = "--out") -> Path:
    """A file output: check_location, and not an existing folder."""
    out = check_location(out, inputs=inputs, flag=flag)
    if out.is_dir():
        raise UserError(f"{flag} {out}: is a folder; name the file to write")
    return out


def claim_output_folder(out: str | Path, kind: str, *, inputs: Inputs = (), flag: str = "--out") -> Path:
    """A folder output that the caller will replace as a whole (``atomic.staged_folder``).

    First repairs a swap of ``out`` a killed process left half done, then refuses ``out`` unless
    it is absent, empty, or holds our manifest of ``kind``.
    """
    out = Path(out)
    if not out.is_symlink() and _resolved(out).parent.is_dir():
        recover_swap(out)
    check_location(out, inputs=inputs, flag=flag)
    if out.exists() and not out.is_dir():
        raise UserError(f"{flag} {out}: exists and is a file; choose a folder name")
    if not out.is_dir() or not any(out.iterdir()):
        return out
    if manifest_kind(out) != kind:
        raise UserError(f"{flag} {out}: exists and is not {WHAT[kind]} (no {MANIFEST} of ours); it is left "
                        f"untouched: choose another {flag} or remove it yourself")
    added = unlisted_files(out)
    if added:
        raise UserError(f"{flag} {out}: holds {len(added)} file(s) mhmmkg did not write ({added[0]}"
                        f"{', ...' if len(added) > 1 else ''}); it is left untouched: move them away first")
    return out
