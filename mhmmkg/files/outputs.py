"""Where a verb may write: the one rule every command applies before it writes anything.

- No output lands on an input: an output equal to an input, inside an input folder or above
  one (symlinks resolved) is refused.
- A folder is replaced only when it holds our own manifest of the expected kind (a built
  dataset, a Neo4j export, a demo folder, an imported sources folder) and no file that manifest
  does not list; an empty folder may be used, anything else is left untouched.
- A file is replaced only when we recognise it as one this tool wrote of the expected kind
  (:data:`FILE_KINDS`: a marker, or our own format), when it is empty, or when the user says
  ``--force``; it is written beside the target and renamed into place (``mhmmkg.atomic``).
- No output file inside one of our output folders (a run, a built dataset, an export, a demo
  or an imported sources folder): its manifest would not list it. A run writes its own files
  itself.
- Never the current folder or a folder above it, never a path under a file, never a place we
  cannot write, never a symbolic link, FIFO, socket or device.

Every refusal is a :class:`~mhmmkg.errors.UserError` (exit code 2) naming the path and the reason.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .atomic import recover_swap
from ..errors import UserError
from .jsontext import JSONTextError, loads_strict, parse_json_line, read_json_file
from ..dataset.manifest import FORMATS, MANIFEST, kind_of, write_manifest  # noqa: F401  (FORMATS: its old home)

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
        data = read_json_file(path, "manifest")
    except UserError:
        return None
    return data if isinstance(data, dict) else None


def manifest_kind(folder: str | Path) -> str | None:
    """The kind of output our manifest in ``folder`` declares (see FORMATS, or "run"), else None."""
    data = _manifest(Path(folder))
    return None if data is None else kind_of(data)


def unlisted_files(folder: Path) -> list[str]:
    """Files of one of our output folders that its manifest does not list (added by someone else)."""
    listed = (_manifest(folder) or {}).get("files") or {}
    every = (p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())
    return sorted(rel for rel in every if rel != MANIFEST and rel not in listed)


def write_output_manifest(folder: Path, kind: str) -> str:
    """Mark a staged output folder as ours (with the SHA-256 of its files); returns the fingerprint."""
    return write_manifest(folder, format=FORMATS[kind], kind=kind)


def _resolved(path: str | Path) -> Path:
    # no ~ expansion: the shell expands it; a "~" that reaches us is a literal name, and is
    # written as one, so it must be checked as one
    return Path(os.path.abspath(path)).resolve()


def check_location(out: str | Path, *, inputs: Inputs = (), flag: str = "--out") -> Path:
    """Refuse an output path that is or overlaps an input, lies inside one of our output folders,
    is or holds the current folder, is under a file, or lies where we cannot write. Returns
    ``out`` as a Path."""
    if "\0" in str(out):
        raise UserError(f"{flag} {str(out)!r}: a path cannot hold a NUL character")
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
    enclosing = enclosing_output_folder(out)
    if enclosing is not None:
        folder, folder_kind = enclosing
        raise UserError(f"{flag} {out}: lies inside {folder}, {WHAT[folder_kind]}; what is added there would not "
                        f"be in its manifest: choose a place outside it")
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


GENERATOR = "mhmmkg"
_HEAD_BYTES = 1 << 16
_MAX_RECOGNISED_JSON = 64 << 20


def _head(path: Path, size: int = _HEAD_BYTES) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


def _json_document(path: Path) -> Any:
    if path.stat().st_size > _MAX_RECOGNISED_JSON:
        return None
    try:
        return loads_strict(path.read_bytes().decode("utf-8"))
    except (JSONTextError, UnicodeDecodeError):
        return None


def _first_json_line(path: Path) -> Any:
    head = _head(path).lstrip(b"\n")
    line = head.split(b"\n", 1)[0]
    try:
        return parse_json_line(line)
    except JSONTextError:
        return None


def _is_submission(path: Path) -> bool:
    line = _first_json_line(path)
    return isinstance(line, dict) and "query_id" in line and "answer" in line


def _is_run_metadata(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and "setting" in doc and "mhmmkg_version" in doc


def _is_jsonl_docs(path: Path) -> bool:
    line = _first_json_line(path)
    return isinstance(line, dict) and set(line) == {"id", "text", "metadata"}


def _is_official_results(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and all(isinstance(v, str) or (isinstance(v, dict) and "Answer" in v)
                                         for v in doc.values())


def _is_prompt_set(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and doc.get("format") == "mhmmkg-prompt-set"


def _is_captions(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and set(doc) == {"model", "captions"}


def _is_evaluation(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and "by_subtask" in doc and "warnings" in doc


def _is_triples(path: Path) -> bool:
    from ..kg.model import RELATION_TYPES

    head = _head(path)
    lines = head.split(b"\n")[:-1] if len(head) == _HEAD_BYTES else head.split(b"\n")
    rows = [line.split(b"\t") for line in lines if line]
    known = {t.encode() for t in RELATION_TYPES} | {b"relation"}
    return bool(rows) and all(len(row) == 3 and row[1] in known for row in rows)


def _is_triples_by_kind(path: Path) -> bool:
    """Triples whose relation column holds relation kinds: a base type, then a bracketed condition."""
    from ..kg.model import RELATION_TYPES

    rows = [line.split(b"\t") for line in _head(path).split(b"\n")[:20] if line]
    known = {t.encode() for t in RELATION_TYPES}
    return bool(rows) and all(len(row) == 3 and row[1].split(b" [", 1)[0] in known for row in rows)


def _is_ranking(path: Path) -> bool:
    """A run of 'mhmmkg rank': TREC lines tagged mhmmkg-<method>, or JSON {query: {entity: score}}."""
    first = _head(path, 4096).split(b"\n", 1)[0].split()
    if len(first) == 6 and first[1] == b"Q0" and first[5].startswith(b"mhmmkg-"):
        return True
    doc = _json_document(path)
    return isinstance(doc, dict) and all(isinstance(v, dict) for v in doc.values())


def _is_retrieval_scores(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and {"measures", "per_query", "ranked"} <= set(doc)


def _is_agreement(path: Path) -> bool:
    doc = _json_document(path)
    return isinstance(doc, dict) and "judges" in doc and "labels" in doc


def _tail(path: Path, size: int = 4096) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - size))
        return handle.read()


def _marked(*marks: bytes, at_end: bool = False) -> Callable[[Path], bool]:
    def recognise(path: Path) -> bool:
        text = _tail(path) if at_end else _head(path)
        return any(mark in text for mark in marks)
    return recognise


#: what each output picture carries: PNG text chunk, matplotlib SVG creator, our own KG SVG
PICTURE_MARKS = (b"tEXtSoftware\x00" + GENERATOR.encode(), f"<dc:title>{GENERATOR}</dc:title>".encode(),
                 b'<svg xmlns="http://www.w3.org/2000/svg" class="kg"')


#: what each kind of output file is, and how we recognise one we wrote
FILE_KINDS: dict[str, tuple[str, Callable[[Path], bool]]] = {
    "submission": ("a submission file (JSON Lines with id and answer)", _is_submission),
    "run-metadata": ("the run metadata of a submission (.meta.json)", _is_run_metadata),
    "official-results": ("a result file in the authors' format", _is_official_results),
    "prompt-set": ("a prompt-set file", _is_prompt_set),
    "captions": ("a captions file made by 'mhmmkg caption'", _is_captions),
    "evaluation": ("a result file of 'mhmmkg evaluate --json'", _is_evaluation),
    "report": ("a report written by 'mhmmkg report'", _marked(b'<meta name="generator" content="mhmmkg report">')),
    "picture": ("a picture drawn by mhmmkg", _marked(*PICTURE_MARKS)),
    "graphml": ("a GraphML export of mhmmkg", _marked(f">{GENERATOR}</data>".encode(), at_end=True)),
    "triples": ("a triples export (head, relation, tail)", _is_triples),
    "jsonl-docs": ("a JSONL documents export", _is_jsonl_docs),
    "triples-kind": ("a triples export with relation kinds", _is_triples_by_kind),
    "turtle": ("an RDF export of mhmmkg", _marked(b"@prefix mh: <urn:mhmmkg:vocab:>")),
    "ntriples": ("an RDF export of mhmmkg", _marked(b"<urn:mhmmkg:")),
    "ranking": ("a ranking written by 'mhmmkg rank'", _is_ranking),
    "retrieval-scores": ("a result file of 'mhmmkg evaluate-retrieval --json'", _is_retrieval_scores),
    "agreement": ("a result file of 'mhmmkg judge-agreement --json'", _is_agreement),
    "table": ("a leaderboard table written by 'mhmmkg report'",
              _marked(b"source,run,model,setting", b"% mhmmkg report: the leaderboard")),
}


def is_our_file(path: str | Path, kind: str) -> bool:
    """Whether the existing regular file ``path`` is one we wrote as ``kind`` (an empty file
    holds nothing to lose and counts as ours)."""
    path = Path(path)
    try:
        return path.stat().st_size == 0 or FILE_KINDS[kind][1](path)
    except OSError:
        return False


def enclosing_output_folder(path: str | Path) -> tuple[Path, str] | None:
    """The nearest folder above ``path`` (symlinks resolved) that is one of our output folders,
    with its kind."""
    for folder in _resolved(path).parents:
        kind = manifest_kind(folder)
        if kind is not None:
            return folder, kind
    return None


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="replace an existing output file even when mhmmkg does not recognise it as its own")


def claim_output_file(out: str | Path, kind: str, *, inputs: Inputs = (), flag: str = "--out",
                      force: bool = False) -> Path:
    """An output file of ``kind`` that the caller writes with ``atomic.atomic_path``.

    Refuses what :func:`check_output_file` refuses and an existing file we do not recognise as
    ours (unless ``force``)."""
    out = check_output_file(out, inputs=inputs, flag=flag)
    if out.exists() and not force and not is_our_file(out, kind):
        raise UserError(f"{flag} {out}: exists and is not {FILE_KINDS[kind][0]}; it is left untouched: choose "
                        f"another {flag}, or add --force to replace it")
    return out
