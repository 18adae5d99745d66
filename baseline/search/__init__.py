"""Graph search strategies of the baseline, each a function
``(graph, root, expand, validate, **options) -> SearchResult``:

- ``bfs`` (default) and ``dfs``: ours (``ours.py``), with a global visited set, a depth bound and
  a path budget; the summarizer gets the ``alpha`` shortest complete paths (bfs) or the first
  ``alpha`` it completed (dfs);
- ``paper``: the search as the paper's section 4.1 writes it (``paper.py``): no limits, runs
  until nothing is open; the submission holds every root-to-leaf walk of the retrieved subgraph,
  the summarizer the first ``alpha``;
- ``official``: the authors' search as their released code runs it (``mhmmkg.official.search``); it stops
  once ``alpha`` paths are found and the summarizer gets every path it found.

Each is registered in :data:`STRATEGIES`; ``--search MODULE:FUNCTION`` (or ``FILE.py:FUNCTION``)
runs a strategy of one's own, called with every option as a keyword; it gets the summarizer's
paths as ``bfs`` does (the ``alpha`` shortest).
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.registry import Lazy, Registry, guarded

from .common import Expand, Path, SearchResult, Traits, Validate, admissible, traits_of, with_traits
from .ours import breadth_first, depth_first
from .paper import paper_search



def _breadth_first(graph, root, expand, validate, *, max_depth, path_budget, **_) -> SearchResult:
    return breadth_first(graph, root, expand, validate, max_depth=max_depth, path_budget=path_budget)


@with_traits(Traits(hands_over="first"))
def _depth_first(graph, root, expand, validate, *, max_depth, path_budget, **_) -> SearchResult:
    return depth_first(graph, root, expand, validate, max_depth=max_depth, path_budget=path_budget)


@with_traits(Traits(hands_over="first", submits_all_found=True, offers_path_entities=True))
def _paper(graph, root, expand, validate, **_) -> SearchResult:
    return paper_search(graph, root, expand, validate)


STRATEGIES = Registry("search", "--search", {"bfs": _breadth_first, "dfs": _depth_first, "paper": _paper,
                                             "official": Lazy("mhmmkg.official.search:strategy")}, plugins=True)
ORDERS = STRATEGIES.names()


def __getattr__(name: str):
    if name == "OFFERS_PATH_ENTITIES":      # asks each strategy, the authors' too: made when first read
        return tuple(order for order in STRATEGIES if traits_of(STRATEGIES[order]).offers_path_entities)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["ORDERS", "OFFERS_PATH_ENTITIES", "STRATEGIES", "Expand", "Path", "SearchResult", "Traits", "Validate",
           "admissible", "search", "select_paths", "submitted_paths", "traits"]


def search(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate, *, order: str = "bfs",
           max_depth: int | None = 4, path_budget: int | None = 10, alpha: int = 5,
           rng: random.Random | None = None, draw_phase: bool = True) -> SearchResult:
    """Search from ``root`` with the strategy ``order`` names; options a strategy has no use for are
    ignored (``max_depth`` / ``path_budget`` None: no limit)."""
    if order not in STRATEGIES and ":" not in order:
        raise ValueError(f"unknown search order {order!r} (choose from {', '.join(ORDERS)})")
    return strategy(order)(graph, root, expand, validate, max_depth=max_depth, path_budget=path_budget, alpha=alpha,
                           rng=rng, draw_phase=draw_phase)


@lru_cache(maxsize=None)
def strategy(order: str):
    """The search function ``order`` names (a plug-in is imported once, not once per query)."""
    if order in STRATEGIES:
        return STRATEGIES[order]
    return guarded(STRATEGIES.resolve(order), f"--search {order}", "search")


def traits(order: str) -> Traits:
    """What the strategy ``order`` names asks of the run (``common.Traits``)."""
    return traits_of(strategy(order))


def select_paths(paths: Sequence[Path], alpha: int, order: str = "bfs") -> list[Path]:
    """The paths given to the summarizer: for bfs the ``alpha`` shortest (among equally long ones,
    the first found); for dfs and the paper's search the first ``alpha`` found (so depth-first
    hands over the deep paths it completes first, the point of the paper's Figure 6b); for the
    official search every path found, in the order found (``Traits.hands_over``)."""
    hands_over = traits(order).hands_over
    if hands_over == "all":
        return list(paths)
    if hands_over == "first":
        return list(paths[:alpha])
    return sorted(paths, key=len)[:alpha]


def submitted_paths(paths: Sequence[Path], selected: Sequence[Path], order: str = "bfs") -> list[Path]:
    """The paths a run submits for scoring: the paper scores the whole retrieved subgraph (every
    root-to-leaf walk, supplement 2.2); the other strategies submit what the summarizer got."""
    return list(paths) if traits(order).submits_all_found else list(selected)
