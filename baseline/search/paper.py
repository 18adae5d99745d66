"""The search as the paper writes it (section 4.1, equations 6-10; ``--search paper``).

Rounds of breadth-first growth of a subgraph K from the topic entity:

- the open set starts as the topic entity alone; the topic entity itself is never validated
  (the paper's validation agent judges the entities added in a round);
- in a round, every open entity is expanded; every link from an open entity to an entity it
  proposes joins K (equation 7), also when that entity is already in K;
- the entities new to K in this round (equation 9: K's entities now minus before; an entity
  two open entities propose is new once) are validated; "Yes" closes one, anything else
  (including a verdict that cannot be read) leaves it open; an entity already in K is never
  opened again, so a loop ends where it closes;
- the search runs until no entity is open: no depth limit, no path budget (equation 10).

The result is K's root-to-leaf walks (the paper's retrieved knowledge, supplement 2.2), in the
order a breadth-first walk over K meets them (shorter first; footnote 6: the first alpha
found go to the summarizer). A walk ends at an entity with no link in K to an entity not
already on the walk: a closed entity, an open one whose expansion proposed nothing, or one
whose only links close loops.
"""
from __future__ import annotations

from collections import deque

from mhmmkg.kg.graph import KnowledgeGraph

from .common import Expand, Path, SearchResult, Validate, admissible

#: walks of K listed at most (a guard against a pathological K; far above any real search)
MAX_WALKS = 10_000


def paper_search(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate) -> SearchResult:
    result = SearchResult()
    links: dict[str, list[str]] = {}
    reached: dict[str, Path] = {root: (root,)}      # the walk by which each entity entered K
    open_entities = [root]
    while open_entities:
        added: list[str] = []
        for entity in open_entities:
            path = reached[entity]
            result.expansions += 1
            for child in admissible(graph, path, expand(path)):
                links.setdefault(entity, []).append(child)
                if child not in reached:
                    reached[child] = path + (child,)
                    added.append(child)
        open_entities = []
        for child in added:
            result.visited.append(child)
            result.validations += 1
            if validate(reached[child]) is not True:
                open_entities.append(child)
    result.paths = leaf_walks(root, links)
    return result


def leaf_walks(root: str, links: dict[str, list[str]]) -> list[Path]:
    """K's walks from ``root`` to its leaves, breadth-first (shorter first, then in link order)."""
    walks: list[Path] = []
    queue: deque[Path] = deque([(root,)])
    while queue and len(walks) < MAX_WALKS:
        walk = queue.popleft()
        onward = [child for child in links.get(walk[-1], ()) if child not in walk]
        if not onward:
            walks.append(walk)
        queue.extend(walk + (child,) for child in onward)
    return walks
