"""Path precision/recall and bootstrap intervals, against hand-computed values."""
from __future__ import annotations

import numpy as np
import pytest

from mhmmkg.eval.metrics import (bootstrap_intervals, cohens_kappa, hop_count, mean, paired_bootstrap, path_score,
                                 percentile_of_sorted, resampled_means)

A = ("wolf", "wolf.charged-phase", "wolf.double-slam")
B = ("wolf", "dark-wolf", "dark-wolf.double-slam")
C = ("wolf", "wolf.bite")


@pytest.mark.parametrize("truth, predicted, matched, precision, recall", [
    ([A], [A], 1, 1.0, 1.0),                     # exact match
    ([A], [A, C], 1, 0.5, 1.0),                  # an extra path costs precision
    ([A, B], [A], 1, 1.0, 0.5),                  # a missing path costs recall
    ([A], [A, A], 1, 0.5, 1.0),                  # a duplicated path matches once, counts twice
    ([A, B], [A, A, B], 2, 2 / 3, 1.0),
    ([A], [], 0, 0.0, 0.0),                      # nothing retrieved
    ([A], [A[:2]], 0, 0.0, 0.0),                 # a prefix is not the path
    ([A], [tuple(reversed(A))], 0, 0.0, 0.0),    # order matters
    ([A], [list(A)], 1, 1.0, 1.0),               # lists and tuples compare alike
])
def test_path_score(truth, predicted, matched, precision, recall):
    score = path_score(truth, predicted)
    assert (score.matched, score.n_truth, score.n_predicted) == (matched, len(truth), len(predicted))
    assert score.precision == pytest.approx(precision)
    assert score.recall == pytest.approx(recall)


def test_hop_count_is_the_longest_ground_truth_path():
    assert hop_count([("wolf",)]) == 0
    assert hop_count([A, C]) == 2
    assert hop_count([]) == 0


def test_mean_of_nothing_is_none():
    assert mean([]) is None
    assert mean([1, 0, 0, 1]) == 0.5


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1] * 5
    first = bootstrap_intervals({"acc": values}, resamples=500, seed=3)
    again = bootstrap_intervals({"acc": values}, resamples=500, seed=3)
    assert first == again
    # the interval's ends are multiples of 1/50 here, so two seeds may agree on them: compare the draws
    column = [np.asarray(values, dtype=float)]
    assert not np.array_equal(resampled_means(column, 500, 3)[0], resampled_means(column, 500, 4)[0])
    low, high = first["acc"]
    assert low < mean(values) < high
    assert 0.5 < low and high < 0.9


def test_bootstrap_of_a_constant_column_is_a_point_and_empty_gives_none():
    assert bootstrap_intervals({"acc": [1.0] * 7}, resamples=100) == {"acc": [1.0, 1.0]}
    assert bootstrap_intervals({"acc": []}) == {"acc": None}
    assert bootstrap_intervals({"acc": [1, 0]}, resamples=0) == {"acc": None}


def test_percentile_of_sorted_is_numpys_linear_percentile_to_the_bit():
    rng = np.random.default_rng(7)
    samples = [rng.random(n) for n in (1, 2, 3, 10, 999, 1000, 10_000)]
    samples += [rng.integers(0, 5, 1000) / 7, np.full(5, 0.3), rng.random(1001) * 1e-9 + 0.1]  # ties, a constant, close values
    levels = [0.95, 0.9, 0.99, 0.5, 0.0, 1.0]
    qs = [0.0, 2.5, 97.5, 50.0, 100.0, 33.3, 0.1, 99.9, *(q for level in levels for q in ((1 - level) / 2 * 100,
                                                                                         100 - (1 - level) / 2 * 100))]
    qs += list(rng.random(50) * 100)
    for values in samples:
        ordered = np.sort(values)
        for q in qs:
            expected = float(np.percentile(values, [q])[0])
            assert percentile_of_sorted(ordered, q).hex() == expected.hex(), (len(values), q)


def test_paired_bootstrap_difference():
    a = {"acc": [1, 1, 1, 1, 0, 1, 1, 1, 1, 1] * 4}
    b = {"acc": [0, 1, 0, 1, 0, 0, 1, 0, 0, 0] * 4}
    row = paired_bootstrap(a, b, resamples=800, seed=1)["acc"]
    assert row["a"] == pytest.approx(0.9) and row["b"] == pytest.approx(0.3)
    assert row["delta"] == pytest.approx(0.6)
    assert 0 < row["ci"][0] < 0.6 < row["ci"][1]
    assert row["p"] < 0.01
    same = paired_bootstrap(a, a, resamples=200)["acc"]
    assert same["delta"] == 0 and same["ci"] == [0.0, 0.0] and same["p"] == 1.0
    with pytest.raises(ValueError):
        paired_bootstrap(a, {"acc": [1]})


def test_cohens_kappa_against_a_hand_computed_table():
    # judge yes & person yes 4, judge yes & person no 1, judge no & person yes 2, both no 3:
    # p_o = 7/10, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    judge = [True] * 4 + [True] + [False] * 2 + [False] * 3
    person = [True] * 4 + [False] + [True] * 2 + [False] * 3
    assert cohens_kappa(judge, person) == pytest.approx(0.4)
    assert cohens_kappa(person, person) == 1.0
    assert cohens_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert cohens_kappa([True, True], [True, True]) == 1.0 and cohens_kappa([], []) is None
    with pytest.raises(ValueError, match="different numbers"):
        cohens_kappa([True], [])


def test_path_score_matches_each_path_once_as_multisets_do():
    """Paths without repeats are matched by sets; with repeats by counts: both as the multiset rule."""
    import random
    from collections import Counter

    rng = random.Random(3)
    pool = [("m",), ("m", "a"), ("m", "b"), ("m", "a", "c")]
    for _ in range(2000):
        truth = [rng.choice(pool) for _ in range(rng.randrange(4))]
        predicted = [list(rng.choice(pool)) for _ in range(rng.randrange(5))]
        expected = sum((Counter(truth) & Counter(tuple(p) for p in predicted)).values())
        score = path_score(truth, predicted)
        assert (score.matched, score.n_truth, score.n_predicted) == (expected, len(truth), len(predicted))
