"""The submission file format on disk: JSON Lines, one object per query, with run metadata in a
``<name>.meta.json`` side file. The baseline and the importer write it; ``mhmmkg.eval`` checks
and scores it (its schema is ``schema/submission.schema.json``)."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .atomic import atomic_write_json, atomic_write_text


def meta_path(submission: str | Path) -> Path:
    """The run-metadata side file of a submission: ``run.jsonl`` -> ``run.meta.json``."""
    submission = Path(submission)
    return submission.with_suffix(".meta.json") if submission.suffix else submission.with_name(submission.name + ".meta.json")


def write_submission(path: str | Path, lines: Iterable[Mapping[str, Any]], run_meta: Mapping[str, Any] | None = None,
                     *, durable: bool = False) -> Path:
    """Write a submission (and its run metadata side file, when given) atomically."""
    text = "".join(json.dumps(dict(line), ensure_ascii=False, sort_keys=True) + "\n" for line in lines)
    atomic_write_text(path, text, durable=durable)
    if run_meta is not None:
        atomic_write_json(meta_path(path), dict(run_meta), durable=durable, sort_keys=True)
    return Path(path)
