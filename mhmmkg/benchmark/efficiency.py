"""A run's efficiency as the paper's supplement reports it (Table 13), and its time per query.

Four figures, each a mean and a population standard deviation over the run's queries or calls:
agent calls per query; seconds per query (the one definition used everywhere: wall-clock
seconds from the start of answering a query to its answer, every agent call and the retrieval
included, the ``response_time`` of its line's meta; cache hits make it short); seconds per
call (calls that reached the endpoint; cache hits are lookups) and retrieval seconds per query. The runner writes them into the run's ``summary.json``; ``mhmmkg evaluate`` shows them
beside the scores when it finds that file next to the submission.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..files.jsontext import read_json_file

#: summary.json key -> (label, unit, digits)
FIGURES: dict[str, tuple[str, str, int]] = {
    "calls_per_query": ("agent calls / query", "", 2),
    "seconds_per_query": ("seconds / query", " s", 3),
    "seconds_per_call": ("seconds / call", " s", 3),
    "retrieval_seconds_per_query": ("retrieval seconds / query", " s", 3),
}
SUMMARY = "summary.json"
#: seconds per query in words: the one definition the CLI, the HTML report and the README give
SECONDS_PER_QUERY_DEFINITION = ("Seconds / query = wall-clock seconds from the start of answering a query to its "
                                "answer, agent calls and retrieval included (cache hits make it short).")


def spread(values: Iterable[float]) -> dict[str, Any]:
    """``{"mean", "std", "n"}`` of ``values`` (population std); mean and std are None when empty."""
    values = list(values)
    if not values:
        return {"mean": None, "std": None, "n": 0}
    import statistics     # here: evaluating a submission outside a run folder needs none of it (8 ms)

    return {"mean": round(statistics.fmean(values), 4), "std": round(statistics.pstdev(values), 4), "n": len(values)}


def figures(metas: Iterable[Mapping[str, Any]], calls: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The figures from the per-query ``meta`` of a run's lines (``agent_calls``, ``response_time``,
    ``retrieval_time``) and its call records (``latency``, ``cached``) of those queries."""
    metas = list(metas)
    return {
        "calls_per_query": spread(m.get("agent_calls", 0) or 0 for m in metas),
        "seconds_per_query": spread(m["response_time"] for m in metas
                                    if isinstance(m.get("response_time"), (int, float)) and not isinstance(m["response_time"], bool)),
        "seconds_per_call": spread(c["latency"] for c in calls if not c.get("cached")),
        "retrieval_seconds_per_query": spread(m.get("retrieval_time", 0.0) or 0.0 for m in metas),
    }


def format_spread(block: Mapping[str, Any] | None, unit: str = "", digits: int = 3) -> str:
    """``mean ± std`` of a :func:`spread` block, or "-" when there is none."""
    if not block or block.get("mean") is None:
        return "-"
    return f"{block['mean']:.{digits}f} ± {block['std']:.{digits}f}{unit}"


def format_efficiency(figures: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, "mean ± std") rows for the figures present in ``figures``."""
    return [(label, format_spread(figures[key], unit, digits))
            for key, (label, unit, digits) in FIGURES.items() if key in figures]


def run_efficiency(submission: str | Path, n_predictions: int) -> tuple[dict[str, Any] | None, str | None]:
    """The efficiency figures of the run folder holding ``submission``, and a warning or None.

    Only a ``summary.json`` next to the submission that accounts for as many queries as the
    submission predicts is used; anything else is reported, never trusted.
    """
    path = Path(submission).parent / SUMMARY
    if not path.exists():
        return None, None
    try:
        summary = read_json_file(path, "run summary")
    except UserError as exc:
        return None, f"{exc}; efficiency not shown"
    if not isinstance(summary, dict) or not any(key in summary for key in FIGURES):
        return None, None
    if summary.get("queries") != n_predictions:
        return None, (f"{path}: accounts for {summary.get('queries')} queries, the submission predicts "
                      f"{n_predictions}; efficiency not shown")
    figures = {key: summary[key] for key in FIGURES if isinstance(summary.get(key), dict)}
    return figures, None
