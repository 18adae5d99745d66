"""The recognition shortcut: how many attack-recognition queries (sub-task II) surface overlap
alone answers. For each query, two lexical measures rank the topic monster's attack captions
against the query's perception text: word-level BM25 and character n-gram TF-IDF (cosine), the
stronger one, which also matches inflections. The attack the query asks for has rank 1 when it
scores strictly above every other caption; ties count against it. A scene description that reads
like the caption reworded ranks the answer high; one written as a viewer describes the clip needs
perceiving, and does not."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .bm25 import BM25
from .graph import KnowledgeGraph
from .model import Query
from .tfidf import CharTfidf

MEASURES = {"bm25": BM25, "char_tfidf": CharTfidf}


@dataclass(frozen=True)
class ShortcutResult:
    """The rank of each measured query's answer under each measure, in ``measured`` order."""

    measured: tuple[str, ...]
    ranks: dict[str, tuple[int, ...]]

    def within(self, measure: str, k: int) -> tuple[str, ...]:
        """The queries whose answer the measure ranks in its top ``k``."""
        return tuple(q for q, rank in zip(self.measured, self.ranks[measure]) if rank <= k)

    def share(self, measure: str = "bm25", k: int = 1) -> float | None:
        return round(len(self.within(measure, k)) / len(self.measured), 3) if self.measured else None

    @property
    def first(self) -> tuple[str, ...]:
        """The queries BM25 answers (ranks first)."""
        return self.within("bm25", 1)

    def figures(self) -> dict:
        return {"measured": len(self.measured),
                **{f"{m}_top{k}": self.share(m, k) for m in MEASURES for k in (1, 3)}}


def rank_of(scores: list[float], target: int) -> int:
    """1 + how many others score at least as high as the target."""
    return 1 + sum(s >= scores[target] for i, s in enumerate(scores) if i != target)


def recognition_shortcut(kg: KnowledgeGraph, queries: list[Query], monster: str | None = None) -> ShortcutResult:
    attacks_of: dict[str, list[str]] = defaultdict(list)
    for e in kg.entities:
        if e.type == "attack_action" and e.caption and e.monster:
            attacks_of[e.monster].append(e.id)
    measured: list[Query] = []
    for q in queries:
        if q.subtask != 2 or not q.perception or not q.paths or (monster and q.monster != monster):
            continue
        if q.paths[0][-1] in attacks_of.get(q.monster, []):
            measured.append(q)
    places_of: dict[str, list[int]] = defaultdict(list)
    for place, q in enumerate(measured):
        places_of[q.monster].append(place)
    ranks = {m: [0] * len(measured) for m in MEASURES}
    for owner, places in places_of.items():      # one monster's indexes in memory at a time
        attacks = attacks_of[owner]
        captions = [kg.entity(a).caption for a in attacks]
        for name, measure in MEASURES.items():
            index = measure(captions)
            for place in places:
                q = measured[place]
                ranks[name][place] = rank_of(index.scores(q.perception), attacks.index(q.paths[0][-1]))
    return ShortcutResult(tuple(q.id for q in measured), {m: tuple(r) for m, r in ranks.items()})
