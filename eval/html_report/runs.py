"""What the report shows of one run: its submission scored, its settings, its cost, its calls.

A run is given as a run folder (``manifest.json``, ``submission.jsonl``, ``calls.jsonl``) or as a
submission file (with its ``<name>.meta.json`` when there is one). Everything is read, nothing
is written.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mhmmkg.efficiency import figures, spread
from mhmmkg.errors import Problem, UserError
from mhmmkg.jsontext import MAX_JSONL_BYTES, JSONTextError, parse_json_line, read_bytes_file, read_json_file
from mhmmkg.submission_file import meta_path

from ..evaluator import Evaluator
from ..submission import CheckedSubmission

SUBMISSION = "submission.jsonl"
CALLS = "calls.jsonl"
CALL_FIELDS = ("agent", "latency", "attempts", "cached", "prompt_tokens", "completion_tokens", "images", "prompt", "reply")


@dataclass
class RunView:
    """One run as the report shows it."""

    label: str
    source: Path
    settings: dict[str, Any]
    result: dict[str, Any]
    predictions: dict[str, Any]
    efficiency: dict[str, Any]
    calls: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def submission_of(path: Path) -> Path:
    """The submission file a path names: the file itself, or a run folder's submission."""
    if path.is_dir():
        candidate = path / SUBMISSION
        if not candidate.is_file():
            raise UserError(str(Problem(str(path), "", f"not a run folder: no {SUBMISSION} in it")))
        return candidate
    if not path.is_file():
        raise UserError(str(Problem(str(path), "", "no such run folder or submission file")))
    return path


def read_calls(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Calls by query id; a torn or foreign line is skipped (the log is a record, not a contract)."""
    calls: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if not path.exists():
        return calls
    for line in read_bytes_file(path, "call log", max_bytes=MAX_JSONL_BYTES).split(b"\n"):
        try:
            record = parse_json_line(line)
        except JSONTextError:
            continue
        if isinstance(record, dict) and isinstance(record.get("query_id"), str):
            calls[record["query_id"]].append({k: record.get(k) for k in CALL_FIELDS if k in record})
    return calls


def efficiency(checked: CheckedSubmission, calls: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Cost as the paper's supplement reports it (:mod:`mhmmkg.efficiency`), and seconds per query,
    from the submission's per-query ``meta`` and the run's call records."""
    metas = [p.meta for p in checked.predictions.values() if p.meta]
    timed = [c for cs in calls.values() for c in cs if isinstance(c.get("latency"), (int, float))]
    return {**figures(metas, timed),
            "seconds_per_query": spread(m["response_time"] for m in metas if isinstance(m.get("response_time"), (int, float)))}


def settings_of(checked: CheckedSubmission, folder: Path | None) -> dict[str, Any]:
    meta = dict(checked.run_meta)
    if folder is not None and (folder / "manifest.json").exists():
        manifest = read_json_file(folder / "manifest.json", "run manifest")
        if not isinstance(manifest, dict):
            manifest = {}
        config = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
        meta.setdefault("model", config.get("model_name") or config.get("model"))
        meta.setdefault("setting", config.get("setting"))
        meta.setdefault("search", config.get("search"))
        meta.setdefault("created", manifest.get("created"))
        meta.setdefault("prompt_set", config.get("prompt_set"))
    search = meta.get("search") if isinstance(meta.get("search"), dict) else {}
    prompts = meta.get("prompt_set") if isinstance(meta.get("prompt_set"), dict) else {}
    return {
        "model": str(meta.get("model") or "-"),
        "setting": str(meta.get("setting") or "-"),
        "prompts": f"{prompts['name']} v{prompts.get('version', '?')}" if prompts.get("name") else "-",
        "search": str(search.get("order") or search.get("strategy") or "-"),
        "alpha": search.get("alpha", "-"),
        "date": str(meta.get("created") or "-")[:16].replace("T", " "),
    }


def load_run(path: Path, evaluator: Evaluator, label: str) -> RunView:
    submission = submission_of(path)
    folder = path if path.is_dir() else None
    checked = evaluator.check(submission)
    checked.raise_if_invalid()
    result = evaluator.eval(checked)
    calls = read_calls((folder or submission.parent) / CALLS) if folder else {}
    predictions = {qid: {"answer": p.answer, "paths": [list(x) for x in p.paths], "topic": p.topic}
                   for qid, p in checked.predictions.items()}
    return RunView(label=label, source=path, settings=settings_of(checked, folder), result=result,
                   predictions=predictions, efficiency=efficiency(checked, calls), calls=calls)


def labels_for(paths: list[Path]) -> list[str]:
    """Short distinct names: the folder or file stem, made unique with its parent when needed."""
    names = [p.name if p.is_dir() else p.stem for p in paths]
    for i, name in enumerate(names):
        if names.count(name) > 1:
            names[i] = f"{paths[i].parent.name}/{name}"
    return [n if names.count(n) == 1 else f"{n} #{i + 1}" for i, n in enumerate(names)]


def input_files(path: Path) -> set[Path]:
    """Every file the report reads for one run, resolved: an output may be none of them."""
    submission = submission_of(path)
    files = {submission, meta_path(submission)}
    if path.is_dir():
        files |= {path / CALLS, path / "manifest.json"}
    return {f.resolve() for f in files}
