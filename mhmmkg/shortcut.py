"""The recognition shortcut: how many attack-recognition queries (sub-task II) word overlap alone
answers. For each query, BM25 ranks the topic monster's attack captions against the query's
perception text; the query counts when the attack it asks for ranks first, strictly. A scene
description that reads like the caption reworded scores high; one written as a viewer describes
the clip needs perceiving, and scores low."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .bm25 import BM25
from .graph import KnowledgeGraph
from .model import Query


@dataclass(frozen=True)
class ShortcutResult:
    """Which recognition queries BM25 answers, and the share over all that could be measured."""

    measured: tuple[str, ...]
    first: tuple[str, ...]

    @property
    def share(self) -> float | None:
        return round(len(self.first) / len(self.measured), 3) if self.measured else None


def recognition_shortcut(kg: KnowledgeGraph, queries: list[Query], monster: str | None = None) -> ShortcutResult:
    attacks_of: dict[str, list[str]] = defaultdict(list)
    for e in kg.entities:
        if e.type == "attack_action" and e.caption and e.monster:
            attacks_of[e.monster].append(e.id)
    indexes: dict[str, BM25] = {}
    measured, first = [], []
    for q in queries:
        if q.subtask != 2 or not q.perception or not q.paths or (monster and q.monster != monster):
            continue
        attacks, target = attacks_of.get(q.monster, []), q.paths[0][-1]
        if target not in attacks:
            continue
        if q.monster not in indexes:
            indexes[q.monster] = BM25([kg.entity(a).caption for a in attacks])
        measured.append(q.id)
        scores = indexes[q.monster].scores(q.perception)
        best = scores[attacks.index(target)]
        if all(s < best for a, s in zip(attacks, scores) if a != target):
            first.append(q.id)
    return ShortcutResult(tuple(measured), tuple(first))
