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

import networkx as nx

from mhmmkg.bm25 import BM25
from mhmmkg.exports import entity_document
from mhmmkg.graph import KnowledgeGraph, normalise_name

from . import RetrievalQuery

TOP_K = 5
MAX_DEPTH = 4


class EntityIndex:
    """BM25 (:mod:`mhmmkg.bm25`) over every entity's document, scores keyed by entity id."""

    def __init__(self, graph: KnowledgeGraph):
        self.ids = [e.id for e in graph.entities]
        self.bm25 = BM25([entity_document(graph, i)["text"] for i in self.ids])

    def scores(self, query: str) -> dict[str, float]:
        return dict(zip(self.ids, self.bm25.scores(query)))


_indexes: weakref.WeakKeyDictionary[KnowledgeGraph, EntityIndex] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def index(graph: KnowledgeGraph) -> EntityIndex:
    """The BM25 index of a graph's entity documents, built once per graph."""
    with _lock:
        if graph not in _indexes:
            _indexes[graph] = EntityIndex(graph)
        return _indexes[graph]


def topic(query: RetrievalQuery, graph: KnowledgeGraph, scores: dict[str, float]) -> str | None:
    question = f" {normalise_name(query.question)} "
    named = [(len(normalise_name(name)), m.id) for m in graph.monsters() for name in m.names
             if normalise_name(name) and f" {normalise_name(name)} " in question]
    if named:
        return max(named)[1]
    monsters = sorted(graph.monsters(), key=lambda m: (-scores.get(m.id, 0.0), m.id))
    return monsters[0].id if monsters else None


def retrieve(query: RetrievalQuery, graph: KnowledgeGraph) -> list[list[str]]:
    scores = index(graph).scores(query.text)
    root = topic(query, graph, scores)
    if root is None:
        return []
    walks = nx.single_source_shortest_path(graph.graph, root, cutoff=MAX_DEPTH)
    ranked = sorted((e for e in walks if scores.get(e, 0.0) > 0), key=lambda e: (-scores[e], e))
    return [walks[e] for e in ranked[:TOP_K]] or [[root]]
