"""Writing a curated sources folder (the format ``mhmmkg.sources`` reads) in one atomic step.

The folder is assembled beside its destination, read back with ``load_sources`` (so what is
written always validates and builds), and only then renamed into place.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from mhmmkg.files.atomic import staged_folder
from mhmmkg.errors import UserError
from mhmmkg.files.outputs import claim_output_folder, write_output_manifest
from mhmmkg.curation.sources import MONSTERS_DIR, QUERIES_DIR, SHARED_FILE, Sources, load_sources

from mhmmkg.builders.origin import ORIGIN_FILE


def write_json(path: Path, doc) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def check_destination(out: Path, force: bool, *inputs: Path | None) -> None:
    """Refuse an output on an input or one we did not make (``mhmmkg.outputs``), and replace an
    earlier import only with ``force``."""
    claim_output_folder(out, "sources", inputs=inputs)
    if out.exists() and any(out.iterdir()) and not force:
        raise UserError(f"--out {out} already exists and is not empty; choose another folder or add --force to replace it")


def _ignore_queries(root: Path):
    def ignore(folder: str, names: list[str]) -> list[str]:
        skipped = [n for n in names if n.startswith(".") or n == "__pycache__"]
        if Path(folder).resolve() == root.resolve() and QUERIES_DIR in names:
            skipped.append(QUERIES_DIR)
        return skipped
    return ignore


def write_sources_folder(out: str | Path, *, shared: dict | None = None, monsters: dict[str, dict] | None = None,
                         queries: dict[str, dict] | None = None, copies: list[tuple[Path, str]] = (),
                         base: str | Path | None = None, origin: dict | None = None) -> Sources:
    """Write a sources folder at ``out`` (replacing it) and return it as read back.

    ``base``: an existing sources folder copied first, without its queries (its KG and media);
    ``shared`` / ``monsters`` (id -> document) / ``queries`` (file stem -> document) are then
    written as JSON; ``copies`` are (source file, path relative to ``out``) pairs; ``origin`` is
    written as origin.json (see ``builders.origin``).
    """
    out = Path(out)
    with staged_folder(out) as staging:
        if base is not None:
            shutil.copytree(base, staging, ignore=_ignore_queries(Path(base)), dirs_exist_ok=True)
        if shared is not None:
            write_json(staging / SHARED_FILE, shared)
        for monster, doc in (monsters or {}).items():
            write_json(staging / MONSTERS_DIR / f"{monster}.json", doc)
        for name, doc in (queries or {}).items():
            write_json(staging / QUERIES_DIR / f"{name}.json", doc)
        if origin is not None:
            write_json(staging / ORIGIN_FILE, origin)
        for source, rel in copies:
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        sources = load_sources(staging)
        write_output_manifest(staging, "sources")
    sources.root = out
    return sources
