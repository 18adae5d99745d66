"""The authors' search, as their released code runs it (``--search official``).

From the topic entity, which is validated first (a complete root ends the search with that one
path), each open node is expanded once and *all* the children the expansion agent picks are
validated before any of them is opened; then the open children are searched depth-first, in
the order they were picked. Differences from our breadth-first search (``ours.py``):

- no global visited set: an entity reached along two paths is validated (and opened) twice;
- a pick that is already on its own path closes a loop: that path (ending in the repeated
  entity) is recorded as a found path, without validation;
- the phase rule: when a reply picks several entities and one of them is an attack phase, only
  one of the picked entities, drawn at random, is followed (the authors draw it unseeded; here
  the draw comes from a seeded generator, so a run is repeatable; it is among the picks the
  reply parser resolved to entities, where the authors draw among every name in the reply);
- a verdict that cannot be read drops that child (neither complete nor open);
- with ``draw_phase=False`` the phase rule is left to the reply reader (``--replies exact``
  draws among the reply's items, as the authors do, before they are resolved);
- no depth limit and no path budget: the search stops when nothing is open or, checked before
  each expansion, once at least ``alpha`` paths are found; every found path is kept (the
  children validated in the last expansion may take the count past ``alpha``).
"""
from __future__ import annotations

import random

from mhmmkg.kg.graph import KnowledgeGraph

from mhmmkg.baseline.search.common import Expand, Path, SearchResult, Traits, Validate, neighbour_ids, with_traits

#: every found path goes to the summarizer; paths may loop; the topic entity is validated as text
TRAITS = Traits(hands_over="all", offers_path_entities=True, validates_topic_as_text=True)


def official_search(graph: KnowledgeGraph, root: str, expand: Expand, validate: Validate, *, alpha: int = 5,
                    rng: random.Random | None = None, draw_phase: bool = True) -> SearchResult:
    rng = rng or random.Random(0)
    result = SearchResult()
    result.visited.append(root)
    result.validations += 1
    if validate((root,)) is True:
        result.paths.append((root,))
        result.stopped = "root"
        return result
    stack: list[Path] = [(root,)]
    while stack:
        if len(result.paths) >= alpha:
            result.stopped = "alpha"
            return result
        path = stack.pop()
        neighbours = neighbour_ids(graph, path[-1])
        if not neighbours:
            continue
        result.expansions += 1
        stack += reversed(_validated_children(graph, path, expand(path), neighbours, validate, result,
                                              rng if draw_phase else None))
    return result


def _validated_children(graph: KnowledgeGraph, path: Path, proposed, neighbours: set[str], validate: Validate,
                        result: SearchResult, rng: random.Random | None) -> list[Path]:
    """Validate every pick of one expansion; record complete paths and loops; return the open ones.
    ``rng`` None: no phase draw here (the reply reader made it)."""
    picks = list(proposed)
    if rng is not None and len(picks) > 1 and any(p in graph and graph.entity(p).type == "attack_phase" for p in picks):
        picks = [picks[rng.randrange(len(picks))]]
    still_open = []
    for child in picks:
        if child not in neighbours:
            continue
        extended = path + (child,)
        if child in path:
            result.paths.append(extended)
            continue
        result.visited.append(child)
        result.validations += 1
        verdict = validate(extended)
        if verdict is None:
            continue
        if verdict:
            result.paths.append(extended)
        else:
            still_open.append(extended)
    return still_open


@with_traits(TRAITS)
def strategy(graph, root, expand, validate, *, alpha, rng, draw_phase, **_) -> SearchResult:
    """``--search official``, as ``mhmmkg.baseline.search.STRATEGIES`` calls a strategy."""
    return official_search(graph, root, expand, validate, alpha=alpha, rng=rng, draw_phase=draw_phase)
