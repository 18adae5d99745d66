"""The JSON writer of every output (``atomic_write_json``) gives exactly the text of
``json.dumps(indent=2, ensure_ascii=False)``: the fast path is checked against the standard one."""
from __future__ import annotations

import json
import random

import pytest

from mhmmkg.atomic import atomic_write_json, indented_json

EDGE_CASES = [
    {}, [], (), 0, -1.5, "x", None, True, float("nan"), float("-inf"), 10 ** 30, 1e300,
    {"a": [], "b": {}, "c": [1, [2, {}], {"d": ()}], "é": "ü\u2028\x00\"\\", 1: 2, 2.5: "x", True: [None],
     None: {"k": 1}},
    [[[]]], [{"a": 1}, [], {}], {"queries": [{"query_id": "q", "precision": 0.5, "verdict": ""}] * 3},
    {"b": 1, "a": {"d": [1, 2], "c": "s"}, "ci": {"acc": None, "recall": [0.25, 0.75]}},
]


def random_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([0, 1.25, -3, -0.0, "t\"\\\n", "ñ €", None, False, True, 2 ** 70, 0.1, ""])
    if roll < 0.7:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["a", "b", "c", "d", "é"]): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


@pytest.mark.parametrize("sort_keys", [False, True])
def test_indented_json_is_the_standard_text(sort_keys):
    rng = random.Random(7)
    values = EDGE_CASES + [random_value(rng) for _ in range(2000)]
    checked = 0
    for value in values:
        try:
            expected = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort_keys)
        except TypeError:       # keys of mixed types cannot be sorted
            continue
        assert indented_json(value, sort_keys=sort_keys) == expected, value
        checked += 1
    assert checked > 1000


def test_indented_json_refuses_what_json_refuses():
    with pytest.raises(TypeError, match="not JSON serializable"):
        indented_json({"a": [1, {"b": object()}]})
    with pytest.raises(TypeError, match="not JSON serializable"):
        indented_json({"a": object()})


def test_atomic_write_json_writes_the_standard_text(tmp_path):
    value = {"queries": [{"id": "q-1", "score": 0.5}], "ci": {"acc": [0.1, 0.9]}, "name": "Ñ"}
    out = atomic_write_json(tmp_path / "out.json", value, sort_keys=True)
    assert out.read_text(encoding="utf-8") == json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
