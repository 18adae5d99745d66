"""Graph search of the baseline: breadth-first (the paper's) or depth-first (its ablation).

The search only decides *order* and bookkeeping; which neighbours to open and when a path is
complete are asked of two callables (in a run, the expansion and validation agents):

- ``expand(path) -> [entity ids]``: neighbours of ``path[-1]`` worth following;
- ``validate(path) -> bool``: True when the path from the root to its last entity is complete.

Rules (DESIGN section 8): K starts as {root}; an entity enters K once (a neighbour shared by two
open entities is opened once, by the first that proposes it; an entity already in K is never
reopened, which closes loops); at most one attack phase per expansion; proposals that are not
neighbours are dropped; the search stops when nothing is open, at the depth bound, or once
``path_budget`` complete paths are found.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mhmmkg.graph import KnowledgeGraph

Path = tuple[str, ...]
Expand = Callable[[Path], Sequence[str]]
Validate = Callable[[Path], bool]


@dataclass
class SearchResult:
    paths: list[Path] = field(default_factory=list)      # complete paths, in the order found
    visited: list[str] = field(default_factory=list)     # K, in the order entities entered it
    expansions: int = 0
    validations: int = 0
    stopped: str = "exhausted"                           # "exhausted", "budget" or "depth"


def admissible(graph: KnowledgeGraph, path: Path, proposed: Sequence[str]) -> list[str]:
    """The proposals that are neighbours of the path's end, without repeats, at most one phase."""
    neighbours = {n.entity.id for n in graph.neighbours(path[-1])}
    chosen: list[str] = []
    phase_taken = False
    for entity_id in proposed:
        if entity_id not in neighbours or entity_id in chosen:
            continue
        if graph.entity(entity_id).type == "attack_phase":
            if phase_taken:
                continue
            phase_taken = True
        chosen.append(entity_id)
    return chosen


class _Search:
    def __init__(self, graph: KnowledgeGraph, expand: Expand, validate: Validate, max_depth: int, path_budget: int):
        self.graph, self.expand, self.validate = graph, expand, validate
        self.max_depth, self.path_budget = max_depth, path_budget
        self.result = SearchResult()
        self.known: set[str] = set()

    def full(self) -> bool:
        return len(self.result.paths) >= self.path_budget

    def enter(self, path: Path) -> bool:
        """Add the path's last entity to K and validate it; True when it stays open."""
        self.known.add(path[-1])
        self.result.visited.append(path[-1])
        self.result.validations += 1
        if self.validate(path):
            self.result.paths.append(path)
            return False
        return True

    def open_children(self, path: Path) -> list[Path]:
        """Expand one open path; return the new paths that stay open, in proposal order."""
        self.result.expansions += 1
        still_open = []
        for child in admissible(self.graph, path, self.expand(path)):
            if child in self.known:
                continue
            if self.enter(path + (child,)):
                still_open.append(path + (child,))
            if self.full():
                break
        return still_open


def search(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate, *, order: str = "bfs",
           max_depth: int = 4, path_budget: int = 10) -> SearchResult:
    """Search from ``root``; the root itself is validated first (its own knowledge may suffice)."""
    if order not in ("bfs", "dfs"):
        raise ValueError(f"unknown search order {order!r}")
    state = _Search(graph, expand, validate, max_depth, path_budget)
    if not state.enter((root,)):
        state.result.stopped = "budget" if state.full() else "exhausted"
        return state.result
    if order == "bfs":
        _breadth_first(state, root)
    else:
        _depth_first(state, root)
    return state.result


def _breadth_first(state: _Search, root: str) -> None:
    frontier: list[Path] = [(root,)]
    depth = 0
    while frontier:
        if state.full():
            state.result.stopped = "budget"
            return
        if depth >= state.max_depth:
            state.result.stopped = "depth"
            return
        next_frontier: list[Path] = []
        for path in frontier:
            next_frontier += state.open_children(path)
            if state.full():
                state.result.stopped = "budget"
                return
        frontier = next_frontier
        depth += 1


def _depth_first(state: _Search, root: str) -> None:
    stack: list[Path] = [(root,)]
    while stack:
        if state.full():
            state.result.stopped = "budget"
            return
        path = stack.pop()
        if len(path) - 1 >= state.max_depth:
            state.result.stopped = "depth"
            continue
        stack += reversed(state.open_children(path))
    if state.full():
        state.result.stopped = "budget"


def select_paths(paths: Sequence[Path], alpha: int) -> list[Path]:
    """The ``alpha`` shortest complete paths; among equally long ones, the first found."""
    return sorted(paths, key=len)[:alpha]
