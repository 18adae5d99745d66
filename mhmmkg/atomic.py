"""Writing outputs so that a failure never leaves a half-written file or folder behind: write
beside the target, then rename into place only on success."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def atomic_path(out: str | Path) -> Iterator[Path]:
    """Yield a temporary file path beside ``out``; it replaces ``out`` when the block succeeds."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.{uuid.uuid4().hex}.tmp"  # created by the writer, with the usual permissions
    try:
        yield tmp
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_text(out: str | Path, text: str, *, durable: bool = False) -> Path:
    """Write ``text`` to ``out`` atomically; ``durable`` also fsyncs it before the rename."""
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        if durable:
            f.flush()
            os.fsync(f.fileno())
    return Path(out)


def atomic_write_json(out: str | Path, data: Any, *, durable: bool = False, sort_keys: bool = False) -> Path:
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n"
    return atomic_write_text(out, text, durable=durable)


@contextmanager
def staged_folder(out: str | Path) -> Iterator[Path]:
    """Yield an empty folder beside ``out``; on success it replaces ``out``, on failure it is removed."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        out.rename(old)
    staging.chmod(0o755)
    staging.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
