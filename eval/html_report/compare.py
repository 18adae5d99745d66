"""Each run against each other run taken as the baseline: the paired bootstrap of their
differences overall, per sub-task and per hop count, computed by the evaluator that scored them
(``Evaluator.paired``, the same call ``mhmmkg evaluate --compare`` makes, so the numbers agree),
from the scores the report already holds; and the queries on which their verdicts differ."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mhmmkg.kg.model import ROMAN

from ..evaluator import Evaluator, QueryScore
from .runs import RunView


@dataclass(frozen=True)
class Group:
    key: str
    title: str
    n: int
    metrics: dict[str, dict]


@dataclass(frozen=True)
class Comparison:
    run: int
    baseline: int
    groups: list[Group]
    gained: list[str]     # right in the run, wrong in the baseline
    lost: list[str]       # right in the baseline, wrong in the run


def compare_runs(runs: Sequence[RunView], evaluator: Evaluator) -> list[Comparison]:
    """Every ordered pair (run, baseline) of distinct runs: each pair resampled once, its
    reverse read off it (see :func:`reversed_comparison`)."""
    found = {}
    for base in range(len(runs)):
        for run in range(base + 1, len(runs)):
            found[(run, base)] = compare_pair(runs, run, base, evaluator)
            found[(base, run)] = reversed_comparison(found[(run, base)])
    return [found[(run, base)] for base in range(len(runs)) for run in range(len(runs)) if run != base]


def reversed_comparison(c: Comparison) -> Comparison:
    """The baseline against the run. The paired bootstrap of b - a resamples the same queries as
    that of a - b, so every resampled difference, the mean, the interval (percentiles with
    numpy's symmetric interpolation) and p are those of a - b negated, swapped or kept: the
    numbers ``evaluate --compare`` gives in that direction (tested)."""
    def flip(block: dict) -> dict:
        ci = block["ci"]
        return {"a": block["b"], "b": block["a"], "delta": None if block["delta"] is None else -block["delta"],
                "ci": None if ci is None else [-ci[1], -ci[0]], "p": block["p"]}

    groups = [Group(g.key, g.title, g.n, {m: flip(v) for m, v in g.metrics.items()}) for g in c.groups]
    return Comparison(c.baseline, c.run, groups, gained=c.lost, lost=c.gained)


def compare_pair(runs: Sequence[RunView], run: int, base: int, evaluator: Evaluator) -> Comparison:
    a, b = runs[run].counted, runs[base].counted
    hops = sorted({s.hops for s in a.values()} | {s.hops for s in b.values()})
    selections = [("all", "All queries"), *((f"subtask={r}", f"Sub-task {r}") for r in ROMAN.values()),
                  *((f"hops={h}", f"{h} hop{'s' if h != 1 else ''}") for h in hops)]
    in_a, in_b = selected(a), selected(b)
    groups = []
    for key, title in selections:
        n, metrics = evaluator.paired(in_a.get(key, {}), in_b.get(key, {}))
        if n:
            groups.append(Group(key, title, n, metrics))
    shared = [q for q in a if q in b]
    gained = [q for q in shared if a[q].correct and not b[q].correct]
    lost = [q for q in shared if b[q].correct and not a[q].correct]
    return Comparison(run, base, groups, gained, lost)


def selected(scores: dict[str, QueryScore]) -> dict[str, dict[str, QueryScore]]:
    """The scores of each selection a comparison resamples ("all", "subtask=I", "hops=2", ...),
    each in the order of ``scores``, sorted out in one pass."""
    found: dict[str, dict[str, QueryScore]] = {"all": scores}
    for query_id, score in scores.items():
        found.setdefault(f"subtask={score.subtask}", {})[query_id] = score
        found.setdefault(f"hops={score.hops}", {})[query_id] = score
    return found
