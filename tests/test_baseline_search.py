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
