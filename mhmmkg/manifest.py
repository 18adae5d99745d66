"""The manifest of a built dataset folder: SHA-256 and size of every file, and a fingerprint
that identifies the build (run records and submissions carry it)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .errors import UserError

MANIFEST = "manifest.json"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path) -> str:
    """Write manifest.json listing every other file of ``folder``; returns the fingerprint."""
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST):
        files[path.relative_to(folder).as_posix()] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    fingerprint = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    manifest = {"format": "mh-mmkg/1", "fingerprint": fingerprint, "files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return fingerprint


def read_manifest(folder: str | Path) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UserError(f"{path}: unreadable manifest ({exc})") from None


def dataset_fingerprint(folder: str | Path) -> str | None:
    """The fingerprint of a built dataset folder, or None when it has no manifest."""
    manifest = read_manifest(folder)
    return manifest.get("fingerprint") if manifest else None


def verified_files(folder: str | Path) -> list[str]:
    """Files of a built dataset folder checked against its manifest; UserError when it is not one."""
    folder = Path(folder)
    manifest = read_manifest(folder) if folder.is_dir() else None
    if manifest is None or not (folder / "README.md").is_file():
        raise UserError(f"{folder}: not a built dataset folder (needs README.md and {MANIFEST}; run 'mhmmkg build' first)")
    for rel, entry in manifest.get("files", {}).items():
        path = folder / rel
        if not path.is_file():
            raise UserError(f"{folder / MANIFEST}: lists {rel}, which is missing: rebuild the dataset")
        if sha256_file(path) != entry["sha256"]:
            raise UserError(f"{path}: changed since the build (SHA-256 differs from {MANIFEST}): rebuild the dataset")
    return sorted([*manifest["files"], MANIFEST])
