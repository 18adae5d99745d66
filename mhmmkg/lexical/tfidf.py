"""Character n-gram TF-IDF over a small set of texts, compared by cosine: a lexical measure that,
unlike word-level BM25, also matches word stems and inflections ("slams" ~ "slamming"). Used to
tell how far surface overlap alone gets on a task."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain

from .tokens import PLAIN

#: n-gram lengths, as in the common ``char`` setting of (3, 5)
NGRAMS = (3, 4, 5)


def char_ngrams(text: str, sizes: Sequence[int] = NGRAMS) -> Counter:
    """Counts of the character n-grams of the text's lower-case words joined by single spaces.

    n-grams run across word boundaries, so word pairs count too ("tail sl"): on our captions this
    ranks answers first more often than n-grams kept inside each word, and the stronger measure is
    the one a shortcut ceiling must hold against."""
    return Counter(PLAIN.char_ngrams(text, sizes))


class CharTfidf:
    """Cosine of a query against every document of a fixed collection, on TF-IDF weighted
    character n-grams (raw counts, smoothed idf ``ln((1 + n) / (1 + df)) + 1``, unit length)."""

    def __init__(self, documents: Sequence[str], *, sizes: Sequence[int] = NGRAMS):
        self.sizes = tuple(sizes)
        counts = [char_ngrams(d, self.sizes) for d in documents]
        n = len(counts)
        df = Counter(chain.from_iterable(counts))
        idf_of_df = {k: math.log((1 + n) / (1 + k)) + 1 for k in set(df.values())}
        self.idf = {g: idf_of_df[k] for g, k in df.items()}
        idf = self.idf
        self.docs = [self._unit({g: k * idf[g] for g, k in c.items()}) for c in counts]

    def _weights(self, counts: Counter) -> dict[str, float]:
        idf = self.idf
        return {g: counts[g] * idf[g] for g in counts.keys() & idf.keys()}

    @staticmethod
    def _unit(weights: dict[str, float]) -> dict[str, float]:
        norm = math.sqrt(math.fsum([w * w for w in weights.values()]))
        return {g: w / norm for g, w in weights.items()} if norm else {}

    def scores(self, query: str) -> list[float]:
        return self.scores_of(query, range(len(self.docs)))

    def scores_of(self, query: str, which: Iterable[int]) -> list[float]:
        """``[self.scores(query)[i] for i in which]``, computing only those."""
        q = self._unit(self._weights(char_ngrams(query, self.sizes)))
        return [math.fsum([q[g] * self.docs[i][g] for g in q.keys() & self.docs[i].keys()])   # fsum: exact, in any order
                for i in which]
