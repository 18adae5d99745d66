"""The benchmark's metrics: path precision and recall, means, and bootstrap intervals.

Paths are compared as whole sequences. A ground-truth path is matched when some predicted
path is the same sequence; each predicted path matches at most once, so a path predicted twice
counts once for recall and twice in the precision denominator.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mhmmkg.kg.model import hop_count  # noqa: F401  (re-exported: part of the metrics API)

EntityPath = Sequence[str]


@dataclass(frozen=True)
class PathScore:
    matched: int
    n_truth: int
    n_predicted: int

    @property
    def recall(self) -> float:
        return self.matched / self.n_truth if self.n_truth else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.n_predicted if self.n_predicted else 0.0


def path_score(truth: Sequence[EntityPath], predicted: Sequence[EntityPath]) -> PathScore:
    """Match ground-truth paths L against predicted paths L^ (each predicted path used once)."""
    return PathScore(matched_one_to_one(truth, predicted), len(truth), len(predicted))


def matched_one_to_one(truth: Sequence[EntityPath], predicted: Sequence[EntityPath]) -> int:
    """How many ground-truth paths ``path_score`` matches."""
    if not truth or not predicted:
        return 0
    if len(truth) == 1 and len(predicted) == 1:         # the common case: one path each
        return int(tuple(truth[0]) == tuple(predicted[0]))
    distinct_wanted, distinct_offered = set(map(tuple, truth)), set(map(tuple, predicted))
    if len(distinct_wanted) == len(truth) and len(distinct_offered) == len(predicted):    # no repeats: sets do
        return len(distinct_wanted & distinct_offered)
    return sum((Counter(map(tuple, truth)) & Counter(map(tuple, predicted))).values())


def path_score_any(truth: Sequence[EntityPath], predicted: Sequence[EntityPath]) -> PathScore:
    """The authors' matching: a ground-truth path counts when any predicted path equals it (a
    predicted path may match several, and a repeated one is not used up); no prediction, no match."""
    offered = {tuple(p) for p in predicted}
    matched = sum(tuple(p) in offered for p in truth) if offered else 0
    return PathScore(matched, len(truth), len(predicted))


def mean(values: Sequence[float]) -> float | None:
    return float(sum(values) / len(values)) if len(values) else None


MAX_RESAMPLES = 100_000
#: bootstrap indices drawn at once: 4 Mi (32 MiB), whatever the number of queries
CHUNK_INDICES = 1 << 22


def resampled_means(columns: Sequence[np.ndarray], resamples: int, seed: int) -> list[np.ndarray]:
    """The mean of each column over each of ``resamples`` bootstrap resamples of its rows.

    A resample's means depend only on how many rows it draws from each group of rows holding the
    same values (per-query scores take few values: 0/1 accuracies, small fractions), and those
    counts follow a multinomial law. So when there are few groups, the counts are drawn directly
    (a few per resample instead of one index per row: 10,000 resamples of 23,800 queries in
    milliseconds); otherwise row indices are drawn as before (:func:`_resampled_means_by_index`).
    Either way it is the same bootstrap, and the same seed gives the same means.
    """
    if not 0 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"resamples must be 0..{MAX_RESAMPLES}, not {resamples}")
    rows = np.column_stack([np.asarray(c, dtype=float) for c in columns])
    n = len(rows)
    groups, sizes = unique_rows(rows)
    if len(groups) * GROUPS_PER_ROW > n:
        return _resampled_means_by_index(columns, resamples, seed)
    counts = np.random.default_rng(seed).multinomial(n, sizes / n, size=resamples)
    sums = np.zeros((resamples, rows.shape[1]))
    for group, values in enumerate(groups):     # in a fixed order, so the same on every machine
        sums += counts[:, group, None] * values
    return [sums[:, j] / n for j in range(rows.shape[1])]


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_counts=True)`` for rows of finite floats: the distinct rows in
    lexicographic order and how many times each occurs, by a sort on the columns (``np.unique``
    sorts the rows as records, several times slower)."""
    if not len(rows):
        return rows[:0], np.zeros(0, dtype=np.intp)
    ordered = rows[np.lexsort(rows.T[::-1])]
    starts = np.flatnonzero(np.concatenate(([True], (ordered[1:] != ordered[:-1]).any(axis=1))))
    return ordered[starts], np.diff(np.append(starts, len(rows)))


#: the count draw is used while there are at most n / GROUPS_PER_ROW groups (a multinomial costs
#: a binomial draw per group, about 16 times an index draw)
GROUPS_PER_ROW = 16


def _resampled_means_by_index(columns: Sequence[np.ndarray], resamples: int, seed: int) -> list[np.ndarray]:
    """Resamples drawn as row indices, in chunks of rows, so memory stays bounded as the
    benchmark grows; the generator yields the same indices as one ``(resamples, n)`` draw."""
    n = len(columns[0])
    rng = np.random.default_rng(seed)
    per_chunk = max(1, CHUNK_INDICES // n)
    means: list[list[np.ndarray]] = [[] for _ in columns]
    for start in range(0, resamples, per_chunk):
        idx = rng.integers(0, n, size=(min(per_chunk, resamples - start), n))
        for out, values in zip(means, columns):
            out.append(values[idx].mean(axis=1))
    return [np.concatenate(out) for out in means]


def _interval(samples: np.ndarray, level: float) -> list[float]:
    tail = (1 - level) / 2 * 100
    ordered = np.sort(samples)
    return [percentile_of_sorted(ordered, tail), percentile_of_sorted(ordered, 100 - tail)]


def percentile_of_sorted(ordered: np.ndarray, q: float) -> float:
    """``float(np.percentile(ordered, q))`` (its default, linear method) of sorted values without
    NaN: the same operations on the same two neighbours. np.percentile finds them by ``np.unique``,
    which imports ``numpy.ma`` (5 ms of ``mhmmkg evaluate``, for two numbers per metric)."""
    last = len(ordered) - 1
    position = last * (q / 100)
    below = min(max(math.floor(position), 0), last)
    low, high = float(ordered[below]), float(ordered[min(below + 1, last)])
    share = position - below
    if share >= 0.5:
        return high - (high - low) * (1 - share)
    return low + (high - low) * share


def bootstrap_intervals(columns: Mapping[str, Sequence[float]], *, resamples: int = 1000, seed: int = 0,
                        level: float = 0.95) -> dict[str, list[float] | None]:
    """Percentile bootstrap interval of the mean of each column, resampling queries jointly."""
    n = len(next(iter(columns.values()), ()))
    if n == 0 or resamples <= 0:
        return {name: None for name in columns}
    means = resampled_means([np.asarray(v, dtype=float) for v in columns.values()], resamples, seed)
    return {name: _interval(m, level) for name, m in zip(columns, means)}


def paired_bootstrap(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]], *,
                     resamples: int = 1000, seed: int = 0, level: float = 0.95) -> dict[str, dict]:
    """Difference of means (a - b) per column over the same queries, with a paired bootstrap.

    ``p`` is the two-sided bootstrap share of resamples whose difference has the other sign
    (an approximate p-value for "no difference").
    """
    out = {}
    n = len(next(iter(a.values()), ()))
    for name in a:
        va, vb = np.asarray(a[name], dtype=float), np.asarray(b[name], dtype=float)
        if len(va) != len(vb):
            raise ValueError(f"paired columns {name!r} differ in length: {len(va)} vs {len(vb)}")
        out[name] = {"a": mean(va), "b": mean(vb), "delta": mean(va - vb), "ci": None, "p": None}
    if n and resamples > 0:
        differences = [np.asarray(a[name], dtype=float) - np.asarray(b[name], dtype=float) for name in a]
        for name, deltas in zip(a, resampled_means(differences, resamples, seed)):
            out[name]["ci"] = _interval(deltas, level)
            out[name]["p"] = float(min(1.0, 2 * min((deltas <= 0).mean(), (deltas >= 0).mean())))
    return out


def cohens_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' yes/no verdicts on the same items: (p_o - p_e) / (1 - p_e),
    with p_o the observed agreement and p_e the agreement expected from each rater's yes rate.

    None for no items; 1.0 when both raters give one and the same verdict to every item (p_e = 1)."""
    if len(a) != len(b):
        raise ValueError(f"the raters judged different numbers of items: {len(a)} vs {len(b)}")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    yes_a, yes_b = sum(map(bool, a)) / n, sum(map(bool, b)) / n
    expected = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    if expected == 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)
