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

import math
import re
import threading
import weakref
from collections import Counter

import networkx as nx

from mhmmkg.exports import entity_document
from mhmmkg.graph import KnowledgeGraph, normalise_name

from . import RetrievalQuery

TOP_K = 5
MAX_DEPTH = 4
K1, B = 1.5, 0.75


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    """Okapi BM25 over a fixed set of documents."""

    def __init__(self, documents: dict[str, str], k1: float = K1, b: float = B):
        self.k1, self.b = k1, b
        self.terms = {doc_id: Counter(tokens(text)) for doc_id, text in documents.items()}
        self.length = {doc_id: sum(counts.values()) for doc_id, counts in self.terms.items()}
        self.average = sum(self.length.values()) / max(len(self.length), 1)
        frequency = Counter(term for counts in self.terms.values() for term in counts)
        n = len(self.terms)
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in frequency.items()}

    def scores(self, query: str) -> dict[str, float]:
        query_terms = [t for t in set(tokens(query)) if t in self.idf]
        out = {}
        for doc_id, counts in self.terms.items():
            norm = self.k1 * (1 - self.b + self.b * self.length[doc_id] / self.average)
            out[doc_id] = math.fsum(self.idf[t] * counts[t] * (self.k1 + 1) / (counts[t] + norm)
                                    for t in query_terms if t in counts)
        return out


_indexes: weakref.WeakKeyDictionary[KnowledgeGraph, BM25] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def index(graph: KnowledgeGraph) -> BM25:
    """The BM25 index of a graph's entity documents, built once per graph."""
    with _lock:
        if graph not in _indexes:
            _indexes[graph] = BM25({e.id: entity_document(graph, e.id)["text"] for e in graph.entities})
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
