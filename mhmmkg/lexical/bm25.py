"""Okapi BM25 over a small set of texts: the lexical baseline every retrieval benchmark measures
itself against. Used to tell how far word overlap alone gets on a task."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING

from .tokens import PLAIN

if TYPE_CHECKING:
    import numpy as np

#: lower-case alphanumeric words: the tokens BM25 matches
words = PLAIN.words


class BM25:
    """Scores of one query against every document of a fixed collection (k1 = 1.5, b = 0.75)."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75,
                 words_found: Mapping[str, list[str]] | None = None):
        """``words_found``: the words of some of the documents, already found by ``words``."""
        found = words_found or {}
        read = [found[d] if d in found else words(d) for d in documents]
        self.docs = list(map(Counter, read))
        self.lengths = list(map(len, read))
        self.avg_length = (sum(self.lengths) / len(self.docs)) if self.docs else 0.0
        n = len(self.docs)
        df = Counter(chain.from_iterable(self.docs))
        self.idf = {t: math.log((n - c + 0.5) / (c + 0.5) + 1) for t, c in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> list[float]:
        return self.scores_of(query, range(len(self.docs)))

    def scores_of(self, query: str, which: Iterable[int]) -> list[float]:
        """``[self.scores(query)[i] for i in which]``, computing only those."""
        terms = self.idf.keys() & words(query)
        out = []
        for i in which:
            doc, length = self.docs[i], self.lengths[i]
            norm = self.k1 * (1 - self.b + self.b * length / self.avg_length) if self.avg_length else self.k1
            out.append(math.fsum([self.idf[t] * doc[t] * (self.k1 + 1) / (doc[t] + norm)
                                  for t in terms & doc.keys()]))     # fsum: exact, in any order
        return out

    @cached_property
    def _postings(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """For each term, the documents holding it and the term's share of their score (the
        summands of :meth:`scores`, computed by the same operations)."""
        import numpy as np

        docs_of: dict[str, list[int]] = {}
        counts_of: dict[str, list[int]] = {}
        for i, doc in enumerate(self.docs):
            for term, count in doc.items():
                docs_of.setdefault(term, []).append(i)
                counts_of.setdefault(term, []).append(count)
        lengths = np.asarray(self.lengths, dtype=float)
        norms = (self.k1 * (1 - self.b + self.b * lengths / self.avg_length) if self.avg_length
                 else np.full(len(lengths), self.k1))
        out = {}
        for term, ids in docs_of.items():
            ids_array = np.asarray(ids, dtype=np.intp)
            tf = np.asarray(counts_of[term], dtype=float)
            out[term] = (ids_array, self.idf[term] * tf * (self.k1 + 1) / (tf + norms[ids_array]))
        return out

    def score_array(self, query: str) -> np.ndarray:
        """:meth:`scores` as an array, from an inverted index: work in proportion to the
        documents sharing a term with the query, not to the collection. Each score is the sum of
        the same summands, accumulated with its exact rounding error (TwoSum) and rounded once,
        so it equals ``math.fsum``'s correctly rounded sum unless the exact sum lies within about
        2^-100 (relative) of a midpoint between two floats."""
        import numpy as np

        total = np.zeros(len(self.docs))
        error = np.zeros(len(self.docs))
        for term in sorted(self.idf.keys() & words(query)):
            ids, summands = self._postings[term]
            dense = self._dense_summands.get(term)
            if dense is not None:         # a common term: whole-array operations beat indexing
                ids, summands = slice(None), dense
            before = total[ids]
            after = before + summands
            part = after - before
            error[ids] += (before - (after - part)) + (summands - part)
            total[ids] = after
        return total + error

    @cached_property
    def _dense_summands(self) -> dict[str, np.ndarray]:
        """The summands of the terms in more than a quarter of the documents, as whole arrays (zero
        where a document lacks the term: adding zero changes neither the sum nor its error)."""
        import numpy as np

        out = {}
        for term, (ids, summands) in self._postings.items():
            if 4 * len(ids) > len(self.docs):
                out[term] = np.zeros(len(self.docs))
                out[term][ids] = summands
        return out
