"""Graph search strategies of the baseline, each a function
``(graph, root, expand, validate, **options) -> SearchResult``:

- ``bfs`` (default) and ``dfs``: ours (``ours.py``), with a global visited set, a depth bound and
  a path budget; the summarizer gets the ``alpha`` shortest complete paths;
- ``official``: the authors' search as their released code runs it (``official.py``); it stops
  once ``alpha`` paths are found and the summarizer gets every path it found.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from mhmmkg.graph import KnowledgeGraph

from .common import Expand, Path, SearchResult, Validate, admissible
from .official import official_search
from .ours import breadth_first, depth_first

ORDERS = ("bfs", "dfs", "official")

__all__ = ["ORDERS", "Expand", "Path", "SearchResult", "Validate", "admissible", "search", "select_paths"]


def search(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate, *, order: str = "bfs",
           max_depth: int = 4, path_budget: int = 10, alpha: int = 5,
           rng: random.Random | None = None) -> SearchResult:
    """Search from ``root`` with the strategy ``order`` names; options a strategy has no use for are ignored."""
    if order == "bfs":
        return breadth_first(graph, root, expand, validate, max_depth=max_depth, path_budget=path_budget)
    if order == "dfs":
        return depth_first(graph, root, expand, validate, max_depth=max_depth, path_budget=path_budget)
    if order == "official":
        return official_search(graph, root, expand, validate, alpha=alpha, rng=rng)
    raise ValueError(f"unknown search order {order!r} (choose from {', '.join(ORDERS)})")


def select_paths(paths: Sequence[Path], alpha: int, order: str = "bfs") -> list[Path]:
    """The paths given to the summarizer: for ours the ``alpha`` shortest (among equally long ones,
    the first found); for the official search every path found, in the order found."""
    if order == "official":
        return list(paths)
    return sorted(paths, key=len)[:alpha]
