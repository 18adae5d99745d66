"""Our search (the default): breadth-first with a global visited set, or depth-first for the
paper's ablation.

Rules (DESIGN section 8): K starts as {root}; an entity enters K once (a neighbour shared by two
open entities is opened once, by the first that proposes it; an entity already in K is never
reopened, which closes loops); at most one attack phase per expansion; proposals that are not
neighbours are dropped; the search stops when nothing is open, at the depth bound, or once
``path_budget`` complete paths are found (either bound None: no limit). The depth bound and the
path budget are ours: the authors' search (``mhmmkg.official.search``) and the paper's (``paper.py``) have neither.
"""
from __future__ import annotations

from mhmmkg.kg.graph import KnowledgeGraph

from .common import Expand, Path, SearchResult, Validate, admissible


class _Search:
    def __init__(self, graph: KnowledgeGraph, expand: Expand, validate: Validate, max_depth: int | None,
                 path_budget: int | None):
        self.graph, self.expand, self.validate = graph, expand, validate
        self.max_depth, self.path_budget = max_depth, path_budget
        self.result = SearchResult()
        self.known: set[str] = set()

    def start(self, root: str) -> bool:
        """Validate the root; True when the search goes on from it (its own knowledge may suffice)."""
        if self.enter((root,)):
            return True
        self.result.stopped = "budget" if self.full() else "exhausted"
        return False

    def full(self) -> bool:
        return self.path_budget is not None and len(self.result.paths) >= self.path_budget

    def too_deep(self, hops: int) -> bool:
        return self.max_depth is not None and hops >= self.max_depth

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


def breadth_first(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate, *,
                  max_depth: int | None = 4, path_budget: int | None = 10) -> SearchResult:
    """Level by level from ``root``; the root itself is validated first."""
    state = _Search(graph, expand, validate, max_depth, path_budget)
    if not state.start(root):
        return state.result
    frontier: list[Path] = [(root,)]
    depth = 0
    while frontier:
        if state.full():
            state.result.stopped = "budget"
            break
        if state.too_deep(depth):
            state.result.stopped = "depth"
            break
        next_frontier: list[Path] = []
        for path in frontier:
            next_frontier += state.open_children(path)
            if state.full():
                state.result.stopped = "budget"
                return state.result
        frontier = next_frontier
        depth += 1
    return state.result


def depth_first(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate, *,
                max_depth: int | None = 4, path_budget: int | None = 10) -> SearchResult:
    """Deepest open path first, with the same rules as :func:`breadth_first`."""
    state = _Search(graph, expand, validate, max_depth, path_budget)
    if not state.start(root):
        return state.result
    stack: list[Path] = [(root,)]
    while stack:
        if state.full():
            state.result.stopped = "budget"
            return state.result
        path = stack.pop()
        if state.too_deep(len(path) - 1):
            state.result.stopped = "depth"
            continue
        stack += reversed(state.open_children(path))
    if state.full():
        state.result.stopped = "budget"
    return state.result
