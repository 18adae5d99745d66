"""What the report shows of one run: its submission scored, its settings, its cost, its calls.

A run is given as a run folder (``manifest.json``, ``submission.jsonl``, ``calls.jsonl``) or as a
submission file (with its ``<name>.meta.json`` when there is one). Everything is read, nothing
is written.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from mhmmkg.benchmark.efficiency import figures, spread
from mhmmkg.errors import Problem, UserError
from mhmmkg.files.jsontext import MAX_JSONL_BYTES, JSONTextError, parse_json_line, read_bytes_file, read_json_file
from mhmmkg.files.submission_file import meta_path

from ..evaluator import Evaluator, QueryScore
from ..submission import CheckedSubmission

SUBMISSION = "submission.jsonl"
CALLS = "calls.jsonl"
CALL_FIELDS = ("agent", "latency", "attempts", "cached", "prompt_tokens", "completion_tokens", "images", "prompt", "reply")


class Shown(NamedTuple):
    """What the page shows of one prediction (a run keeps no more of its submission)."""

    answer: str
    paths: tuple[tuple[str, ...], ...]
    topic: str | None


@dataclass
class RunView:
    """One run as the report shows it."""

    label: str
    source: Path
    settings: dict[str, Any]
    result: dict[str, Any]
    predictions: dict[str, Shown]
    efficiency: dict[str, Any]
    calls: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the scores that enter the means, by query id: the comparison reuses them, nothing is judged twice
    counted: dict[str, QueryScore] = field(default_factory=dict)
    #: the folder or file name (the label says what sets the run apart from the others)
    name: str = ""


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
    """Cost as the paper's supplement reports it and seconds per query (:mod:`mhmmkg.efficiency`),
    from the submission's per-query ``meta`` and the run's call records."""
    metas = [p.meta for p in checked.predictions.values() if p.meta]
    timed = [c for cs in calls.values() for c in cs if isinstance(c.get("latency"), (int, float))]
    return figures(metas, timed)


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
        meta.setdefault("retriever", config.get("retriever"))
        meta.setdefault("protocol", config.get("protocol") or manifest.get("protocol"))
    search = meta.get("search") if isinstance(meta.get("search"), dict) else {}
    prompts = meta.get("prompt_set") if isinstance(meta.get("prompt_set"), dict) else {}
    retriever = retriever_name(meta.get("retriever"))
    searches = _searches(meta.get("setting"))
    return {
        "model": str(meta.get("model") or "-"),
        "setting": str(meta.get("setting") or "-"),
        "protocol": str(meta.get("protocol") or "ours"),     # runs made before --protocol existed are ours
        "prompts": f"{prompts['name']} v{prompts.get('version', '?')}" if prompts.get("name") else "-",
        "search": (f"retriever {retriever}" if retriever else str(search.get("order") or search.get("strategy") or "-"))
        if searches else "-",
        "alpha": search.get("alpha", "-") if searches else "-",
        "date": str(meta.get("created") or "-")[:16].replace("T", " "),
        "retriever": str(meta.get("retriever") or ""),
    }


def _searches(setting: Any) -> bool:
    """Whether the run's setting searches the KG (its search settings mean something); unknown
    settings are taken to."""
    from mhmmkg.benchmark.settings import SETTINGS

    return not isinstance(setting, str) or setting not in SETTINGS or SETTINGS[setting].searches


def retriever_name(spec: Any) -> str:
    """A short name for a retriever spec (MODULE:FUNCTION or path.py:FUNCTION): the module's last
    part, with the function when it is not the usual ``retrieve``."""
    if not isinstance(spec, str) or not spec.strip():
        return ""
    module, _, function = spec.rpartition(":") if ":" in spec else (spec, "", "")
    stem = Path(module).stem if module.endswith(".py") else module.rsplit(".", 1)[-1]
    return stem if function in ("", "retrieve") else f"{stem}:{function}"


def load_run(path: Path, evaluator: Evaluator, label: str) -> RunView:
    submission = submission_of(path)
    folder = path if path.is_dir() else None
    checked = evaluator.check(submission)
    checked.raise_if_invalid()
    scores = evaluator.score(checked)
    result = evaluator.summarise(checked, scores, evaluator.caption_verdicts(checked), per_query=False)
    del result["queries"]       # ``counted`` holds the scores (as dicts they took tens of MiB at scale)
    calls = read_calls((folder or submission.parent) / CALLS) if folder else {}
    return RunView(label=label, name=label, source=path, settings=settings_of(checked, folder), result=result,
                   predictions={qid: Shown(p.answer, p.paths, p.topic) for qid, p in checked.predictions.items()},
                   efficiency=efficiency(checked, calls), calls=calls,
                   counted=evaluator.counted(scores))


#: what can tell runs apart, in the order a label names them
LABEL_FIELDS = ("model", "setting", "protocol", "search", "prompts", "alpha")


def labels_for(paths: list[Path]) -> list[str]:
    """Short distinct names: the folder or file stem, made unique with its parent when needed."""
    names = [p.name if p.is_dir() else p.stem for p in paths]
    for i, name in enumerate(names):
        if names.count(name) > 1:
            names[i] = f"{paths[i].parent.name}/{name}"
    return [n if names.count(n) == 1 else f"{n} #{i + 1}" for i, n in enumerate(names)]


def differing_labels(settings: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Each run named by what sets it apart from the others shown (model, setting, protocol,
    search or retriever, prompt set, alpha; a field a run has no value for, such as the search of
    a setting that does not search, is left out); one run alone by its model and setting. Runs that
    differ in none of these keep their names after it, so no two labels are the same."""
    differing = [f for f in LABEL_FIELDS if len({str(s.get(f)) for s in settings} - {"-"}) > 1]
    chosen = differing or ["model", "setting"]
    labels = [" · ".join(_label_part(f, s.get(f)) for f in chosen if str(s.get(f)) != "-") or "-" for s in settings]
    return [f"{label} ({name})" if labels.count(label) > 1 else label for label, name in zip(labels, names)]


def _label_part(field_name: str, value: Any) -> str:
    if field_name == "alpha":
        return f"α={value}"
    if field_name == "protocol":
        return f"{value} protocol"
    return str(value)


def input_files(path: Path) -> set[Path]:
    """Every file the report reads for one run, resolved: an output may be none of them."""
    submission = submission_of(path)
    files = {submission, meta_path(submission)}
    if path.is_dir():
        files |= {path / CALLS, path / "manifest.json"}
    return {f.resolve() for f in files}
