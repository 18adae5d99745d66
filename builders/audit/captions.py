"""Near-copy captions: pairs of attack captions too alike to tell two attacks apart.

Similarity is difflib's ``SequenceMatcher`` ratio of the lower-cased captions (no junk
heuristic); a pair at ``NEAR_COPY`` or above is a near copy. Pairs are compared within one monster
and across monsters, except between a monster and its own species (a subspecies shares its
parent's moves, so its captions may echo them).

difflib is slow on ten thousands of pairs; with ``rapidfuzz`` installed (``mhmmkg[audit]``), its
LCS similarity, which is never below difflib's ratio, rules most pairs out first. The result is
the same either way.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from difflib import SequenceMatcher

from mhmmkg.kg.graph import KnowledgeGraph

NEAR_COPY = 0.6


@dataclass(frozen=True, order=True)
class NearCopy:
    first: str
    second: str
    ratio: float

    def __str__(self) -> str:
        return f"{self.first} ~ {self.second}: similarity {self.ratio:.2f}"


def similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a.lower(), b.lower(), autojunk=False).ratio()


def _upper_bound(a: str, b: str) -> float:
    """A cheap bound that difflib's ratio never exceeds."""
    try:
        from rapidfuzz.distance import Indel
    except ImportError:
        return SequenceMatcher(None, a, b, autojunk=False).quick_ratio()
    return Indel.normalized_similarity(a, b) + 1e-9


def species_of(kg: KnowledgeGraph) -> dict[str, str]:
    """Each monster's species: the monster a chain of subspecies links leads back to."""
    parent = {r.tail: r.head for r in kg.relations if r.type == "has_subspecies"}
    parent |= {r.head: r.tail for r in kg.relations if r.type == "subspecies_of"}

    def root(monster: str) -> str:
        seen = set()
        while monster in parent and monster not in seen:
            seen.add(monster)
            monster = parent[monster]
        return monster

    return {m.id: root(m.id) for m in kg.monsters()}


def near_copies(kg: KnowledgeGraph, *, threshold: float = NEAR_COPY, monster: str | None = None) -> list[NearCopy]:
    """Every near-copy pair of attack captions (pairs involving ``monster`` only, when given)."""
    species = species_of(kg)
    attacks = sorted((e for e in kg.entities if e.type == "attack_action" and e.caption), key=lambda e: e.id)
    found = []
    for a, b in itertools.combinations(attacks, 2):
        if monster and monster not in (a.monster, b.monster):
            continue
        if a.monster != b.monster and species.get(a.monster) == species.get(b.monster):
            continue
        if _upper_bound(a.caption.lower(), b.caption.lower()) < threshold:
            continue
        ratio = similarity(a.caption, b.caption)
        if ratio >= threshold:
            found.append(NearCopy(a.id, b.id, round(ratio, 3)))
    return found
