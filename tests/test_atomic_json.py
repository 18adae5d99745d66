"""The JSON writer of every output (``atomic_write_json``) gives exactly the text of
``json.dumps(indent=2, ensure_ascii=False)``: the fast path is checked against the standard one."""
from __future__ import annotations

import json
import random
from enum import IntEnum

import pytest

from mhmmkg.atomic import atomic_write_json, indented_json
from mhmmkg.files.atomic import _Indented

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


class Label(str):
    pass


class Level(IntEnum):
    LOW = 1


COLUMNS = {
    "ids": lambda rng, i: rng.choice(["q", "é-q", "名-", "t\"\\\n\t\u2028\x00"]) + str(i),
    "few strings": lambda rng, i: rng.choice(["key-entity", "", "ñ €", "a\"b", "\x1f"]),
    "bools": lambda rng, i: rng.random() < 0.5,
    "ints": lambda rng, i: rng.choice([0, 1, -1, 2 ** 70]),
    "floats": lambda rng, i: rng.choice([0.0, -0.0, 1.0, 1 / 3, 0.1, float("nan"), float("inf"), -float("inf"), 1e300]),
    "fractions": lambda rng, i: rng.choice([0.0, 1.0, 0.5, 1 / 3]),
    "negative zeros": lambda rng, i: rng.choice([-0.0, 2.5, float("nan")]),
    "equal numbers": lambda rng, i: rng.choice([1, True, 1.0, 0, False, 0.0, -0.0, None]),
    "ints and bools": lambda rng, i: rng.choice([1, True, 0, False]),
    "subclasses": lambda rng, i: rng.choice([Label("x"), "x", Level.LOW, 1, float(i)]),
    "nones": lambda rng, i: None,
}


def same_key_rows(rng: random.Random, n: int) -> list[dict]:
    names = rng.sample(sorted(COLUMNS), rng.randrange(1, len(COLUMNS) + 1))
    keys = [rng.choice(["", "é", "k\"\n", name]) + str(i) for i, name in enumerate(names)]
    return [{key: COLUMNS[name](rng, i) for key, name in zip(keys, names)} for i in range(n)]


@pytest.mark.parametrize("sort_keys", [False, True])
def test_rows_of_the_same_keys_written_by_column_are_the_standard_text(sort_keys):
    """A list of objects with the same keys (an evaluation's rows) is written column by column,
    each column once per distinct value where equal values are written alike: the same text as
    json.dumps, with equal values of different types in a column (1, True, 1.0), both zeros, NaN,
    escapes, text beyond ASCII, subclasses of str and int, and more rows than a piece holds."""
    rng = random.Random(11)
    for n in (1, 2, 511, 512, 1100):
        for _ in range(4):
            rows = same_key_rows(rng, n)
            assert (_Indented(sort_keys)._table(rows, 1) is None) == sort_keys
            value = {"queries": rows, "n": n}
            assert indented_json(value, sort_keys=sort_keys) == json.dumps(value, indent=2, ensure_ascii=False,
                                                                           sort_keys=sort_keys)


@pytest.mark.parametrize("rows", [
    [{"a": 1, "b": 2}, {"b": 2, "a": 1}],           # the same keys in another order
    [{"a": 1}, {"a": 1, "b": 2}],                   # more keys
    [{1: "x"}, {True: "y"}],                        # equal keys that are not strings
    [{"a": 1, "b": "x"}, {"a": 2, "b": [1, {"c": None}]}],        # a container
    [{"a": 1, "b": "x"}, {"a": 2, "b": []}],
])
def test_other_lists_of_objects_are_written_as_before(rows):
    assert _Indented(False)._table(rows, 0) is None
    value = {"rows": rows}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)
