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

from mhmmkg.graph import KnowledgeGraph

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
