"""Media of the authors' release: image files or keyframe folders and videos, planned for copying.

An image entry names a file (one image) or a folder (frames a person cut from the clip, which
become chosen keyframes). The release often lacks files its sheets name (the authors share the
videos on request only), so a missing file is a warning, never a failure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mhmmkg.builders.media import MAX_KEYFRAMES

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")


def natural_key(path: Path) -> list:
    """Sort key that puts frame2 before frame10."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.as_posix())]


class OutsideRelease(ValueError):
    """A sheet names a file that is not inside the folder it must come from."""


def inside(path: Path, folder: Path) -> bool:
    """True when ``path``, symlinks resolved, lies inside ``folder`` (also resolved)."""
    return path.resolve().is_relative_to(folder.resolve())


def contained(base: Path, entry: str) -> Path:
    """``base/entry``; OutsideRelease when the entry is absolute, climbs out with '..' or resolves
    (through symbolic links) to a place outside ``base``."""
    parts = PurePosixPath(entry.replace("\\", "/")).parts
    if not parts or parts[0] == "/" or ".." in parts or Path(entry).is_absolute():
        raise OutsideRelease(f"{entry!r} is not a path inside {base}")
    path = base / entry
    if path.exists() and not inside(path, base):
        raise OutsideRelease(f"{path} resolves to {path.resolve()}, outside {base}")
    return path


def find_entry(base: Path, entry: str) -> Path | None:
    """``base/entry`` if it exists, else a case-insensitive match in ``base`` (with or without suffix).

    Raises OutsideRelease for an entry that is absolute, climbs out with '..', or resolves
    (through symbolic links) to a place outside ``base``: media are copied from the release only.
    """
    contained(base, entry)
    found = _match_entry(base, entry)
    if found is not None and not inside(found, base):
        raise OutsideRelease(f"{base / entry} resolves to {found.resolve()}, outside {base}")
    return found


def _match_entry(base: Path, entry: str) -> Path | None:
    exact = base / entry
    if exact.exists():
        return exact
    if not base.is_dir():
        return None
    wanted = entry.lower()
    for child in sorted(base.iterdir()):
        if child.name.lower() == wanted or (not Path(entry).suffix and child.stem.lower() == wanted):
            return child
    return None


def folder_images(folder: Path) -> list[Path]:
    """Image files anywhere under ``folder``, in natural order."""
    files = [p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
             and not p.name.startswith(".") and inside(p, folder)]
    return sorted(files, key=lambda p: natural_key(p.relative_to(folder)))


def evenly(items: list, limit: int) -> list:
    """At most ``limit`` items spread evenly over the list, first and last included."""
    if len(items) <= limit:
        return list(items)
    if limit == 1:
        return [items[0]]
    step = (len(items) - 1) / (limit - 1)
    return [items[round(i * step)] for i in range(limit)]


def safe_relpath(*parts: str) -> str:
    """A '/'-separated path relative to the sources folder that the source schemas accept."""
    clean = []
    for part in parts:
        for piece in PurePosixPath(part.replace("\\", "/")).parts:
            piece = re.sub(r"\.{2,}", ".", piece).strip()
            if piece and piece not in (".", "/"):
                clean.append(piece)
    return "/".join(clean)


@dataclass
class MediaPlan:
    """Media of one entity or query: the JSON ``media`` object and the files to copy for it."""

    media: dict = field(default_factory=dict)
    copies: list[tuple[Path, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def refuse(self, where: str, exc: OutsideRelease) -> None:
        self.warnings.append(f"{where}: refused, media are copied from inside the release only: {exc}")

    def add_image_entry(self, base: Path, entry: str, dest: str, where: str) -> None:
        try:
            found = find_entry(base, entry)
        except OutsideRelease as exc:
            return self.refuse(where, exc)
        if found is None:
            self.warnings.append(f"{where}: image file or folder not found: {base / entry}")
        elif found.is_dir():
            frames = folder_images(found)
            if not frames:
                self.warnings.append(f"{where}: keyframe folder has no images: {found}")
                return
            chosen = evenly(frames, MAX_KEYFRAMES)
            if len(chosen) < len(frames):
                self.warnings.append(f"{where}: keyframe folder has {len(frames)} images; kept {len(chosen)} spread evenly")
            rels = [safe_relpath(dest, found.name, f.relative_to(found).as_posix()) for f in chosen]
            self.media["keyframe_images"] = rels
            self.copies += list(zip(chosen, rels))
        else:
            rel = safe_relpath(dest, found.name)
            self.media["images"] = [rel]
            self.copies.append((found, rel))

    def add_video(self, base: Path, entry: str, dest: str, where: str) -> None:
        try:
            found = find_entry(base, entry)
        except OutsideRelease as exc:
            return self.refuse(where, exc)
        if found is None or not found.is_file():
            self.warnings.append(f"{where}: video file not found: {base / entry}")
            return
        rel = safe_relpath(dest, found.name)
        self.media["video"] = rel
        self.copies.append((found, rel))
