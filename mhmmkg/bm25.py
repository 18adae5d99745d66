"""Okapi BM25 over a small set of texts: the lexical baseline every retrieval benchmark measures
itself against. Used to tell how far word overlap alone gets on a task."""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words: the tokens BM25 matches."""
    return _WORD.findall(text.lower())


class BM25:
    """Scores of one query against every document of a fixed collection (k1 = 1.5, b = 0.75)."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75):
        self.docs = [Counter(words(d)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg_length = (sum(self.lengths) / len(self.docs)) if self.docs else 0.0
        n = len(self.docs)
        df = Counter(t for d in self.docs for t in d)
        self.idf = {t: math.log((n - c + 0.5) / (c + 0.5) + 1) for t, c in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> list[float]:
        terms = self.idf.keys() & words(query)
        out = []
        for doc, length in zip(self.docs, self.lengths):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg_length) if self.avg_length else self.k1
            out.append(math.fsum([self.idf[t] * doc[t] * (self.k1 + 1) / (doc[t] + norm)
                                  for t in terms & doc.keys()]))     # fsum: exact, in any order
        return out
