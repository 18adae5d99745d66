"""A retriever that is not the agents: Okapi BM25 over the ``jsonl-docs`` export text, mapped back
to paths in the graph.

Each entity is one document (the text ``mhmmkg export --format jsonl-docs`` writes: name, caption,
context and its relations as sentences). For a query, the topic is the monster the question names
(the longest name or alias found in it; else the best-scoring monster document); the ``TOP_K``
best-scoring entities reachable from the topic (the topic itself included) are returned as the
shortest walks from it, best first. Deterministic, no model, no dependency.

  mhmmkg run --setting perceptive --retriever mhmmkg.baseline.retrievers.bm25:retrieve --out runs/bm25
"""
from __future__ import annotations

import threading
import weakref
from functools import cached_property

import networkx as nx

from mhmmkg.lexical.bm25 import BM25
from mhmmkg.interop.exports import entity_document
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name

from . import RetrievalQuery

TOP_K = 5
MAX_DEPTH = 4


class EntityIndex:
    """BM25 (:mod:`mhmmkg.bm25`) over every entity's document, scores keyed by entity id, and the
    monsters' names for finding the topic, normalised once per graph."""

    def __init__(self, graph: KnowledgeGraph):
        self.ids = [e.id for e in graph.entities]
        self.position = {entity_id: i for i, entity_id in enumerate(self.ids)}
        self.bm25 = BM25([entity_document(graph, i)["text"] for i in self.ids])
        self.monster_names: dict[str, list[tuple[int, str]]] = {}
        for m in graph.monsters():
            for name in m.names:
                if normalise_name(name):
                    self.monster_names.setdefault(normalise_name(name), []).append((len(normalise_name(name)), m.id))
        self.longest_name = max((len(n.split()) for n in self.monster_names), default=0)
        self.monsters = sorted(m.id for m in graph.monsters())

    def score_array(self, query: str):
        """Scores in the order of ``ids`` (see ``BM25.score_array``)."""
        return self.bm25.score_array(query)

    def scores(self, query: str) -> dict[str, float]:
        return dict(zip(self.ids, self.score_array(query).tolist()))

    def ranked(self, query: str, depth: int) -> list[tuple[str, float]]:
        """The ``depth`` best entities scoring above zero with their scores, best first, ties by id."""
        import numpy as np

        array = self.score_array(query)
        candidates = np.flatnonzero(array > 0)
        if len(candidates) > depth:      # keep every entity tied with the depth-th best
            threshold = np.partition(array[candidates], len(candidates) - depth)[len(candidates) - depth]
            candidates = candidates[array[candidates] >= threshold]
        order = candidates[np.lexsort((self._id_order[candidates], -array[candidates]))][:depth]
        return [(self.ids[i], float(array[i])) for i in order]

    @cached_property
    def _id_order(self):
        """Each entity's place in the sorted ids (ties of score go to the smaller id)."""
        import numpy as np

        order = np.empty(len(self.ids), dtype=np.intp)
        order[sorted(range(len(self.ids)), key=self.ids.__getitem__)] = np.arange(len(self.ids))
        return order

    def best_monster(self, array) -> str | None:
        """The monster scoring highest in ``array``; ties go to the smallest id."""
        if not self.monsters:
            return None
        return self.monsters[int(array[self._monster_positions].argmax())]     # the first of the best

    @cached_property
    def _monster_positions(self):
        import numpy as np

        return np.asarray([self.position[m] for m in self.monsters], dtype=np.intp)

    def named_monster(self, question: str) -> str | None:
        """The monster whose longest name (or alias) appears in the question as whole words; ties
        go to the greatest id."""
        words = normalise_name(question).split()
        named = [found for size in range(1, self.longest_name + 1) for i in range(len(words) - size + 1)
                 for found in self.monster_names.get(" ".join(words[i:i + size]), ())]
        return max(named)[1] if named else None


_indexes: weakref.WeakKeyDictionary[KnowledgeGraph, EntityIndex] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def index(graph: KnowledgeGraph) -> EntityIndex:
    """The BM25 index of a graph's entity documents, built once per graph."""
    with _lock:
        if graph not in _indexes:
            _indexes[graph] = EntityIndex(graph)
        return _indexes[graph]


def retrieve(query: RetrievalQuery, graph: KnowledgeGraph) -> list[list[str]]:
    entity_index = index(graph)
    array = entity_index.score_array(query.text)
    position = entity_index.position
    root = entity_index.named_monster(query.question) or entity_index.best_monster(array)
    if root is None:
        return []
    walks = nx.single_source_shortest_path(graph.graph, root, cutoff=MAX_DEPTH)
    scores = {e: float(array[position[e]]) if e in position else 0.0 for e in walks}
    ranked = sorted((e for e in walks if scores[e] > 0), key=lambda e: (-scores[e], e))
    return [walks[e] for e in ranked[:TOP_K]] or [[root]]
