"""The manifest of a built dataset folder: SHA-256 and size of every file, and a fingerprint
that identifies the build (run records and submissions carry it); and what every manifest of
ours has in common: a ``kind`` (:func:`kind_of`; manifests written before it are known by shape).

One rule says which fingerprint identifies a dataset (:func:`dataset_fingerprint`): a built
folder's build fingerprint, else (a sources folder, a Hub id) a hash of what was loaded from it,
``content-<sha256>``. A run records it and the evaluator computes it the same way, so a
submission made on other data is noticed whatever kind of dataset each side named.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..files.jsontext import read_json_file

if TYPE_CHECKING:
    from ..kg.graph import KnowledgeGraph
    from ..kg.model import Query

MANIFEST = "manifest.json"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


DATASET_FORMAT = "mh-mmkg/1"
#: the format of each kind of folder whose manifest lists its files ("dataset" is the build manifest);
#: a run's manifest (kind "run") records its configuration instead
FORMATS = {
    "dataset": DATASET_FORMAT,
    "neo4j": "mh-mmkg-neo4j/1",
    "demo": "mh-mmkg-demo/1",
    "sources": "mh-mmkg-sources/1",
    "beir": "mh-mmkg-beir/1",
    "completion": "mh-mmkg-completion/1",
}
RUN_KIND = "run"


def kind_of(manifest: dict) -> str | None:
    """What a manifest of ours describes: its ``kind`` (one of FORMATS, or "run"), or for a
    manifest written before manifests had one, the kind its shape shows; None when it is not ours
    (a declared kind its shape contradicts included)."""
    if "config_hash" in manifest and isinstance(manifest.get("config"), dict):
        shape = RUN_KIND
    elif isinstance(manifest.get("fingerprint"), str) and isinstance(manifest.get("files"), dict):
        shape = next((kind for kind, fmt in FORMATS.items() if manifest.get("format") == fmt), None)
    else:
        shape = None
    declared = manifest.get("kind", shape)
    return shape if declared == shape else None


def declares(manifest: dict, kind: str) -> bool:
    """False when ``manifest`` declares another kind than ``kind`` (a kind-less one declares none)."""
    return manifest.get("kind", kind) == kind


def file_entries(folder: Path) -> dict[str, dict]:
    """SHA-256 and size of every file under ``folder`` except the manifest, by relative path."""
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p != folder / MANIFEST):
        files[path.relative_to(folder).as_posix()] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    return files


def fingerprint_of(files: dict[str, dict]) -> str:
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


def write_manifest(folder: Path, format: str = DATASET_FORMAT, kind: str = "dataset", *,
                   stats: dict | None = None) -> str:
    """Write manifest.json listing every other file of ``folder``; returns the fingerprint.

    ``stats`` (a build's statistics, see ``kg.stats.stored_stats``) goes last, its keys in their
    own order; it is not part of the fingerprint, which hashes the listing alone."""
    files = file_entries(folder)
    fingerprint = fingerprint_of(files)
    manifest = {"format": format, "kind": kind, "fingerprint": fingerprint, "files": files}
    text = json.dumps(manifest, indent=2, sort_keys=True)
    if stats is not None:
        text = json.dumps({**json.loads(text), "stats": stats}, indent=2)
    (folder / MANIFEST).write_text(text + "\n", encoding="utf-8")
    return fingerprint


def read_manifest(folder: str | Path) -> dict | None:
    """The manifest of ``folder`` (None when it has none); UserError when it is not one of ours."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    manifest = read_json_file(path, "manifest")
    if not isinstance(manifest, dict):
        raise UserError(f"{path}: not a manifest (expected a JSON object)")
    return manifest


def build_fingerprint(folder: str | Path) -> str | None:
    """The fingerprint of a built dataset folder, or None when it has no build manifest."""
    manifest = read_manifest(folder) if Path(folder).is_dir() else None
    if not manifest or manifest.get("format") != DATASET_FORMAT or not declares(manifest, "dataset"):
        return None
    fingerprint = manifest.get("fingerprint")
    return fingerprint if isinstance(fingerprint, str) else None


def content_fingerprint(graph: KnowledgeGraph, queries: Iterable[Query]) -> str:
    """``content-<sha256>`` of the KG's entities and relations and the queries, as loaded."""
    content = {
        "entities": sorted([e.id, e.name, e.type, e.monster, list(e.aliases), e.text, e.caption]
                           for e in graph.entities),
        "relations": sorted([r.id, r.label, r.condition, r.info] for r in graph.relations),
        "queries": sorted([q.id, q.subtask, q.question, q.monster, q.extra, q.perception, q.answer,
                           [list(p) for p in q.paths]] for q in queries),
    }
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, default=str)
    return "content-" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def dataset_fingerprint(source: str | Path, graph: KnowledgeGraph | None = None,
                        queries: Iterable[Query] | None = None) -> str | None:
    """What identifies the dataset ``source``: its build fingerprint when it is a built folder,
    else the content fingerprint of ``graph`` and ``queries`` (loaded from it), else None."""
    fingerprint = build_fingerprint(source)
    if fingerprint is None and graph is not None and queries is not None:
        return content_fingerprint(graph, queries)
    return fingerprint


def verified_files(folder: str | Path) -> list[str]:
    """Files of a built dataset folder, checked against its manifest; UserError when it is not one.

    The files are hashed again: every listed path must be a plain file of the folder (paths are
    taken literally) with the listed hash, the listing must cover README.md and every Parquet
    file under data/, and the manifest's fingerprint must be the hash of the listing. Other files
    a user left in the folder are not part of the build (and not returned).
    """
    folder = Path(folder)
    manifest = read_manifest(folder) if folder.is_dir() else None
    if manifest is None or not (folder / "README.md").is_file():
        raise UserError(f"{folder}: not a built dataset folder (needs README.md and {MANIFEST}; run 'mhmmkg build' first)")
    path = folder / MANIFEST
    listed = manifest.get("files")
    if manifest.get("format") != DATASET_FORMAT or not declares(manifest, "dataset") or not isinstance(listed, dict):
        raise UserError(f"{path}: not a build manifest (format {DATASET_FORMAT} with a 'files' object)")
    actual = file_entries(folder)
    real = folder.resolve()
    for rel in actual:
        if (folder / rel).is_symlink() or not (folder / rel).resolve().is_relative_to(real):
            raise UserError(f"{folder / rel}: a symbolic link; a built dataset holds only its own files")
    for rel in sorted(listed):
        if rel not in actual:
            raise UserError(f"{path}: lists {rel!r}, which is not a file of {folder}: rebuild the dataset")
        if listed[rel] != actual[rel]:
            raise UserError(f"{folder / rel}: changed since the build (differs from {MANIFEST}): rebuild the dataset")
    unlisted = [rel for rel in actual if rel not in listed and (rel == "README.md" or
                                                                (rel.startswith("data/") and rel.endswith(".parquet")))]
    if unlisted:
        raise UserError(f"{path}: does not list {unlisted[0]!r}, a file of the build: rebuild the dataset")
    if manifest.get("fingerprint") != fingerprint_of(listed):
        raise UserError(f"{path}: the fingerprint does not match the files it lists: rebuild the dataset")
    return sorted([*listed, MANIFEST])
