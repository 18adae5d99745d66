"""Breadth-first and depth-first search on small hand-made graphs with known expected results."""
from __future__ import annotations

import pytest

from mhmmkg.baseline.search import admissible, search, select_paths
from mhmmkg.graph import KnowledgeGraph
from mhmmkg.model import Entity, Relation


def graph_of(edges: list[tuple[str, str]], phases: tuple[str, ...] = ()) -> KnowledgeGraph:
    names = sorted({n for e in edges for n in e})
    entities = [Entity(n, n.upper(), "attack_phase" if n in phases else ("monster" if n == "m" else "attack_action"))
                for n in names]
    relations = [Relation(f"{h}|continues_with|{t}", h, t, "continues_with", "continues with") for h, t in edges]
    return KnowledgeGraph(entities, relations)


def follow_all(graph: KnowledgeGraph, log: list | None = None):
    """An expansion policy that proposes every neighbour, in graph order."""
    def expand(path):
        if log is not None:
            log.append(path[-1])
        return [n.entity.id for n in graph.neighbours(path[-1])]
    return expand


def complete_at(*leaves: str):
    done = set(leaves)
    return lambda path: path[-1] in done


#   m -> a -> c -> e
#   m -> b -> c          (c is shared by a and b)
#   m -> b -> d
#   c -> a               (loop back)
TREE = [("m", "a"), ("m", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "e"), ("c", "a")]


def test_bfs_order_shared_neighbour_opened_once_and_loop_closed():
    g = graph_of(TREE)
    opened: list[str] = []
    result = search(g, "m", follow_all(g, opened), complete_at("d", "e"), order="bfs")
    assert opened == ["m", "a", "b", "c"]              # level by level; c once, a not reopened
    assert result.visited == ["m", "a", "b", "c", "d", "e"]
    assert result.paths == [("m", "b", "d"), ("m", "a", "c", "e")]
    assert result.stopped == "exhausted"
    assert result.expansions == 4
    assert result.validations == 6


def test_dfs_goes_deep_first():
    g = graph_of(TREE)
    opened: list[str] = []
    result = search(g, "m", follow_all(g, opened), complete_at("d", "e"), order="dfs")
    assert opened == ["m", "a", "c", "b"]
    assert result.visited == ["m", "a", "b", "c", "e", "d"]
    assert result.paths == [("m", "a", "c", "e"), ("m", "b", "d")]


def test_root_complete_on_its_own():
    g = graph_of(TREE)
    opened: list[str] = []
    result = search(g, "m", follow_all(g, opened), complete_at("m"))
    assert result.paths == [("m",)]
    assert opened == []


def test_depth_bound():
    g = graph_of(TREE)
    result = search(g, "m", follow_all(g), complete_at("e", "d"), max_depth=2)
    assert result.paths == [("m", "b", "d")]
    assert result.stopped == "depth"
    assert "e" not in result.visited


def test_path_budget_stops_the_search():
    g = graph_of([("m", "a"), ("m", "b"), ("m", "c"), ("a", "x")])
    opened: list[str] = []
    result = search(g, "m", follow_all(g, opened), lambda p: len(p) == 2, path_budget=2)
    assert result.paths == [("m", "a"), ("m", "b")]
    assert result.stopped == "budget"
    assert "c" not in result.visited and opened == ["m"]


def test_only_proposed_neighbours_are_followed():
    g = graph_of(TREE)
    result = search(g, "m", lambda p: ["b", "e", "zzz"] if p[-1] == "m" else ["d"], complete_at("d"))
    assert result.paths == [("m", "b", "d")]
    assert result.visited == ["m", "b", "d"]


def test_at_most_one_phase_per_expansion():
    g = graph_of([("m", "p1"), ("m", "p2"), ("m", "a"), ("p1", "x"), ("p2", "y")], phases=("p1", "p2"))
    assert admissible(g, ("m",), ["p2", "a", "p1", "a"]) == ["p2", "a"]
    result = search(g, "m", follow_all(g), complete_at("x", "y", "a"))
    assert result.paths == [("m", "a"), ("m", "p1", "x")]
    assert "p2" not in result.visited


def test_nothing_proposed_means_nothing_found():
    g = graph_of(TREE)
    result = search(g, "m", lambda p: [], complete_at("e"))
    assert result.paths == [] and result.visited == ["m"] and result.stopped == "exhausted"


def test_unknown_order():
    with pytest.raises(ValueError):
        search(graph_of(TREE), "m", lambda p: [], lambda p: False, order="astar")


def test_select_paths_shortest_first_then_first_found():
    paths = [("m", "a", "c"), ("m", "b"), ("m", "a", "d"), ("m", "c"), ("m",)]
    assert select_paths(paths, 3) == [("m",), ("m", "b"), ("m", "c")]
    assert select_paths(paths, 10)[3:] == [("m", "a", "c"), ("m", "a", "d")]


# ---- the authors' search (--search official)

def validate_log(done: set[str], log: list, unreadable: frozenset[str] = frozenset()):
    def validate(path):
        log.append(path)
        if path[-1] in unreadable:
            return None
        return path[-1] in done
    return validate


def test_official_validates_all_children_then_recurses_depth_first_without_global_dedup():
    g = graph_of(TREE)
    opened: list[str] = []
    checked: list = []
    result = search(g, "m", follow_all(g, opened), validate_log({"d", "e"}, checked), order="official", alpha=5)
    # m's children a and b are both validated before a is opened; then a's subtree, then b's
    assert checked == [("m",), ("m", "a"), ("m", "b"), ("m", "a", "c"), ("m", "a", "c", "e"),
                       ("m", "b", "c"), ("m", "b", "d"), ("m", "b", "c", "e"), ("m", "b", "c", "a")]
    # c and a are reached (validated and opened) along two paths each; no global visited set
    assert opened == ["m", "a", "c", "b", "c", "a"]
    # c -> a closes a loop on m > a > c, and a -> c on m > b > c > a: recorded as paths, not validated
    assert result.paths == [("m", "a", "c", "e"), ("m", "a", "c", "a"), ("m", "b", "d"), ("m", "b", "c", "e"),
                            ("m", "b", "c", "a", "c")]
    assert result.stopped == "exhausted" and result.validations == len(checked)


def test_official_stops_before_an_expansion_once_alpha_paths_are_found_and_keeps_all():
    # m has four children, all complete: the one expansion finds four paths, more than alpha
    g = graph_of([("m", "a"), ("m", "b"), ("m", "c"), ("m", "x"), ("x", "y"), ("x", "z")])
    opened: list[str] = []
    result = search(g, "m", follow_all(g, opened), lambda p: p[-1] in {"a", "b", "c"}, order="official", alpha=2)
    assert result.paths == [("m", "a"), ("m", "b"), ("m", "c")]
    assert opened == ["m"] and result.stopped == "alpha"
    assert select_paths(result.paths, 2, "official") == result.paths     # all found paths go to the summarizer


def test_official_has_no_depth_limit_and_ignores_the_path_budget():
    chain = [("m", "a"), ("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f")]
    g = graph_of(chain)
    result = search(g, "m", follow_all(g), complete_at("f"), order="official", max_depth=2, path_budget=1)
    assert result.paths == [("m", "a", "b", "c", "d", "e", "f")]
    ours = search(g, "m", follow_all(g), complete_at("f"), order="bfs", max_depth=2)
    assert ours.paths == [] and ours.stopped == "depth"


def test_official_drops_a_child_whose_verdict_cannot_be_read():
    g = graph_of(TREE)
    checked: list = []
    result = search(g, "m", follow_all(g), validate_log({"d"}, checked, frozenset({"a"})), order="official")
    assert ("m", "a", "c") not in checked            # a was neither complete nor opened
    assert result.paths == [("m", "b", "d")]
    ours = search(g, "m", follow_all(g), validate_log({"d"}, [], frozenset({"a"})), order="bfs")
    assert "c" in ours.visited                       # ours keeps an unreadable verdict open


def test_official_phase_rule_follows_one_random_pick_when_a_phase_is_among_several():
    import random

    g = graph_of([("m", "p1"), ("m", "a"), ("m", "b"), ("p1", "x")], phases=("p1",))
    picks = set()
    for seed in range(30):
        result = search(g, "m", follow_all(g), complete_at("a", "b", "x"), order="official",
                        rng=random.Random(seed))
        assert len(result.paths) == 1                # one pick of the three is followed
        picks.add(result.paths[0])
        again = search(g, "m", follow_all(g), complete_at("a", "b", "x"), order="official", rng=random.Random(seed))
        assert again.paths == result.paths           # a seeded generator: repeatable
    assert picks == {("m", "a"), ("m", "b"), ("m", "p1", "x")}
    # without a phase among the picks, every pick is followed
    no_phase = search(g, "m", lambda p: ["a", "b"] if p == ("m",) else [], complete_at("a", "b"), order="official")
    assert no_phase.paths == [("m", "a"), ("m", "b")]


def test_official_root_complete_ends_the_search():
    g = graph_of(TREE)
    opened: list[str] = []
    result = search(g, "m", follow_all(g, opened), complete_at("m"), order="official")
    assert result.paths == [("m",)] and opened == [] and result.stopped == "root"
