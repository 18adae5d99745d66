"""What every search strategy shares: the two questions it asks, its result, and which proposals count.

A strategy only decides *order* and bookkeeping; which neighbours to open and when a path is
complete are asked of two callables (in a run, the expansion and validation agents):

- ``expand(path) -> [entity ids]``: neighbours of ``path[-1]`` worth following, in the order proposed;
- ``validate(path) -> bool | None``: True when the path from the root to its last entity is
  complete, False when the search should go on from it, None when the verdict could not be read.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mhmmkg.kg.graph import KnowledgeGraph

Path = tuple[str, ...]
Expand = Callable[[Path], Sequence[str]]
Validate = Callable[[Path], "bool | None"]


@dataclass
class SearchResult:
    paths: list[Path] = field(default_factory=list)      # complete paths, in the order found
    visited: list[str] = field(default_factory=list)     # entities validated, in order
    expansions: int = 0
    validations: int = 0
    stopped: str = "exhausted"      # "exhausted", "budget", "depth", "alpha" (official) or "root"


@dataclass(frozen=True)
class Traits:
    """What a strategy asks of the run around it; a strategy without ``traits`` (a plug-in's, by
    default) is treated as ``bfs`` is."""

    #: the paths given to the summarizer: the ``alpha`` "shortest", the "first" ``alpha`` found, or "all" found
    hands_over: str = "shortest"
    #: the submission holds every path found (the whole retrieved subgraph), not only the summarizer's
    submits_all_found: bool = False
    #: the expansion agent is offered entities already on the path too (loops are the strategy's to handle)
    offers_path_entities: bool = False
    #: the topic entity is validated as text alone, read as an exact "Yes" with ``--replies exact``
    validates_topic_as_text: bool = False


def with_traits(traits: Traits) -> Callable[[Callable], Callable]:
    """Attach ``traits`` to a strategy function (a plug-in may do the same)."""
    def attach(function: Callable) -> Callable:
        function.traits = traits
        return function
    return attach


def traits_of(function: Callable) -> Traits:
    return getattr(function, "traits", Traits())


def neighbour_ids(graph: KnowledgeGraph, entity_id: str) -> set[str]:
    return {n.entity.id for n in graph.neighbours(entity_id)}


def admissible(graph: KnowledgeGraph, path: Path, proposed: Sequence[str]) -> list[str]:
    """The proposals that are neighbours of the path's end, without repeats, at most one phase."""
    neighbours = neighbour_ids(graph, path[-1])
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
