"""Answer keys the importer derives from the authors' Answer and Search Route."""
from __future__ import annotations

import pytest

from mhmmkg import Entity, KnowledgeGraph
from mhmmkg.builders.official.queries import derive_key, key_counts


def _kg() -> KnowledgeGraph:
    E = Entity
    return KnowledgeGraph([
        E("tigrex", "Tigrex", "monster"),
        E("tigrex.tail-spin", "Tail Spin", "attack_action", "tigrex", aliases=("Spinning Tail",)),
        E("tigrex.bite", "Bite", "attack_action", "tigrex"),
        E("tigrex.slam", "Slam", "attack_action", "tigrex"),
        E("tigrex.body-slam", "Body Slam", "attack_action", "tigrex"),
    ], [])


@pytest.mark.parametrize("answer, paths, key", [
    ("Tail Spin", [["tigrex", "tigrex.tail-spin"]], {"kind": "entity", "entities": ["tigrex.tail-spin"]}),
    ("Tigrex will use its Spinning Tail.", [["tigrex", "tigrex.tail-spin"]],
     {"kind": "entity", "entities": ["tigrex.tail-spin"]}),
    ("It does a Body Slam", [["tigrex", "tigrex.slam"], ["tigrex", "tigrex.body-slam"]],   # "Slam" is inside it
     {"kind": "entity", "entities": ["tigrex.body-slam"]}),
    ("Yes, it spins.", [["tigrex", "tigrex.tail-spin"]], {"kind": "yes_no", "polarity": "yes"}),
    ("No", [["tigrex"]], {"kind": "yes_no", "polarity": "no"}),
    ("Tail Spin or Bite", [["tigrex", "tigrex.tail-spin"], ["tigrex", "tigrex.bite"]], None),   # two leaves
    ("Flying Wyvern", [["tigrex"]], None),                                                  # the topic is no leaf
    ("Tigrex is a Flying Wyvern", [["tigrex"]], None),
    ("It charges forward", [["tigrex", "tigrex.tail-spin"]], None),
    ("Nothing happens", [], None),
])
def test_derive_key(answer, paths, key):
    derived = derive_key(answer, paths, "tigrex", _kg())
    assert derived == (None if key is None else {**key, "origin": "derived"})


def test_key_counts():
    queries = [{"key": {"kind": "entity"}}, {"key": {"kind": "yes_no"}}, {"key": {"kind": "entity"}}, {}]
    assert key_counts(queries) == {"entity": 2, "yes_no": 1, None: 1}
