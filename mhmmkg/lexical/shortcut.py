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
from functools import cached_property

from .bm25 import BM25
from ..kg.graph import KnowledgeGraph
from ..kg.model import Query
from .tfidf import CharTfidf
from .tokens import PLAIN, NumberedWords, gathered

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
    attacks_of: dict[str, dict[str, int]] = defaultdict(dict)     # a monster's attacks with a caption, by place
    captions_of: dict[str, list[str]] = defaultdict(list)
    for e in kg.entities:
        if e.type == "attack_action" and e.caption and e.monster:
            attacks_of[e.monster].setdefault(e.id, len(captions_of[e.monster]))
            captions_of[e.monster].append(e.caption)
    measured: list[Query] = []
    for q in queries:
        if q.subtask != 2 or not q.perception or not q.paths or (monster and q.monster != monster):
            continue
        if q.paths[0][-1] in attacks_of.get(q.monster, ()):
            measured.append(q)
    places_of: dict[str, list[int]] = defaultdict(list)
    for place, q in enumerate(measured):
        places_of[q.monster].append(place)
    groups = [captions_of[owner] for owner in places_of]
    group_of, target_of = [0] * len(measured), [0] * len(measured)
    for g, (owner, places) in enumerate(places_of.items()):
        for place in places:
            group_of[place] = g
            target_of[place] = attacks_of[owner][measured[place].paths[0][-1]]
    perceptions = [q.perception for q in measured]
    texts = list({*(c for group in groups for c in group), *perceptions})
    read = _Texts({t: i for i, t in enumerate(texts)}, PLAIN.numbered_words_of(texts))
    ranks = {name: _ranks(name, groups, perceptions, group_of, target_of, read) for name in MEASURES}
    return ShortcutResult(tuple(q.id for q in measured), {m: tuple(r) for m, r in ranks.items()})


class _Texts:
    """The distinct texts the statistic reads (captions and perceptions), by number: their words
    (``bm25.words``) numbered once for all groups, and what their character n-grams are made of."""

    def __init__(self, number: dict[str, int], words: NumberedWords):
        self.number, self.words = number, words

    @cached_property
    def characters(self):
        """How many characters each text has."""
        import numpy as np

        return np.fromiter(map(len, self.number), dtype=np.int64, count=len(self.number))

    def words_found(self, texts: list[str]) -> dict[str, list[str]]:
        return {t: self.words.words(self.number[t]) for t in texts}

    @cached_property
    def spelling(self):
        """Every numbered word's characters followed by a space, as digits 1..K (K characters in
        all, the space one of them): the digits, where each word starts in them, how many each
        word takes (with its space) and K + 1."""
        import numpy as np

        words = ["", *self.words.vocabulary[1:]]               # number 0 is no word
        spans = np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1
        points = np.frombuffer((" ".join(words) + " ").encode("utf-32-le"), dtype=np.uint32)
        alphabet, digits = np.unique(points, return_inverse=True)
        return digits.astype(np.int64) + 1, np.cumsum(spans) - spans, spans, len(alphabet) + 1


#: scores closer than this (relative) are compared again with the measure's exact scores
_CLOSE = 1e-9


def _ranks(name: str, groups: list[list[str]], queries: list[str], group_of: list[int],
           target_of: list[int], read: _Texts) -> list[int]:
    """``rank_of(MEASURES[name](groups[g]).scores(query), target)`` for every query, from scores
    computed for a few groups' queries at once (numpy, summed in any order). A document whose
    score lies within ``_CLOSE`` of the target's (a tie, or a difference rounding could decide)
    is compared with it again by the measure's own scores of the two, so every rank is the one
    the exact scores give."""
    import numpy as np

    ranks = np.zeros(len(queries), dtype=np.int64)
    exact: dict[int, object] = {}          # the measure of a group, made once for all its close queries
    sizes = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    group_of_query = np.asarray(group_of, dtype=np.int64)
    target_of_query = np.asarray(target_of, dtype=np.int64)
    for rows, scores in _chunked_scores(name, groups, queries, group_of_query, read):
        targets = target_of_query[rows]
        mine = scores[np.arange(len(rows)), targets][:, None]
        places = np.arange(scores.shape[1])
        others = (places[None, :] < sizes[group_of_query[rows]][:, None]) & (places[None, :] != targets[:, None])
        close = others & (np.abs(scores - mine) <= _CLOSE * (1 + np.abs(mine))) & ((scores != 0) | (mine != 0))
        found = 1 + (others & (scores >= mine)).sum(axis=1)
        for i in np.flatnonzero(close.any(axis=1)):    # exact zeros share no term: a true tie, not close
            row = int(rows[i])
            g = group_of[row]
            if g not in exact:
                exact[g] = (BM25(groups[g], words_found=read.words_found(groups[g])) if name == "bm25"
                            else MEASURES[name](groups[g]))
            near = np.flatnonzero(close[i]).tolist()
            target, *others_near = exact[g].scores_of(queries[row], [target_of[row], *near])
            found[i] -= int((scores[i, near] >= mine[i, 0]).sum())
            found[i] += sum(score >= target for score in others_near)
        ranks[rows] = found
    return ranks.tolist()


#: about this many characters of text are scored at once: arrays of a few hundred kB, which the
#: allocator keeps and reuses; arrays of a few MB are mapped afresh from the system for each
#: chunk and paid for in page faults (at 100x: 0.7 s of system time with 100,000 characters)
_CHUNK_CHARACTERS = 10_000
#: BM25 makes one entry per word, not three per character: its chunks hold as many entries when
#: they hold this many times the characters
_CHUNK_SCALE = {"bm25": 8}


def _chunked_scores(name: str, groups: list[list[str]], queries: list[str], group_of, read: _Texts):
    """``_approximate_scores`` of all queries, a few groups at a time: for each chunk, its
    queries' numbers (an array) and their (query, document of its group) scores."""
    import numpy as np

    number = read.number.__getitem__
    docs = [d for group in groups for d in group]
    doc_numbers = np.fromiter(map(number, docs), dtype=np.int64, count=len(docs))
    query_numbers = np.fromiter(map(number, queries), dtype=np.int64, count=len(queries))
    sizes = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    doc_ends = np.cumsum(sizes).tolist()
    order = np.argsort(group_of, kind="stable")          # the queries group by group
    query_ends = np.cumsum(np.bincount(group_of, minlength=len(groups))).tolist()
    characters = read.characters
    text_size = (np.bincount(np.repeat(np.arange(len(groups)), sizes), weights=characters[doc_numbers], minlength=len(groups))
                 + np.bincount(group_of, weights=characters[query_numbers], minlength=len(groups))).tolist()
    start, size, limit = 0, 0, _CHUNK_CHARACTERS * _CHUNK_SCALE.get(name, 1)
    for g in range(len(groups)):
        size += text_size[g]
        if size < limit and g < len(groups) - 1:
            continue
        first_doc, first_query = doc_ends[start - 1] if start else 0, query_ends[start - 1] if start else 0
        rows = order[first_query:query_ends[g]]
        if len(rows):
            yield rows, _approximate_scores(name, sizes[start:g + 1], doc_numbers[first_doc:doc_ends[g]],
                                            query_numbers[rows], group_of[rows] - start, read)
        start, size = g + 1, 0


def _approximate_scores(name: str, sizes, doc_numbers, query_numbers, query_group, read: _Texts):
    """A (query, document of its group) matrix of the measure's scores, up to rounding, for the
    groups of ``sizes`` documents (numbered ``doc_numbers``, group by group) and the queries
    numbered ``query_numbers`` asked of the groups ``query_group``. Every summand is positive,
    so a score is 0 exactly when the query shares no term with the document."""
    import numpy as np

    n_docs, n_texts = len(doc_numbers), len(doc_numbers) + len(query_numbers)
    doc_group = np.repeat(np.arange(len(sizes)), sizes)
    text_group = np.concatenate([doc_group, query_group])
    numbers = np.concatenate([doc_numbers, query_numbers])
    codes, text_of, span = (_char_ngram_codes if name == "char_tfidf" else _word_codes)(numbers, read)
    # one sort puts each (group, term) together, its documents first: document frequencies and
    # the query-document pairs that share a term are then runs of neighbours; the text's number
    # takes the lowest bits of the key, so it is split off by a mask and a shift
    bits = max(int(n_texts - 1).bit_length(), 1)
    if (len(sizes) * span) << bits >= 1 << 63:
        distinct, codes = np.unique(codes, return_inverse=True)
        codes, span = codes.astype(np.int64), max(len(distinct), 1)
    keys = codes << bits
    keys += ((text_group * span) << bits | np.arange(n_texts))[text_of]
    keys.sort()
    first = np.empty(len(keys), dtype=bool)
    first[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    first = np.flatnonzero(first)
    counts = np.diff(first, append=len(keys)).astype(float)
    keys = keys[first]
    text = keys & ((1 << bits) - 1)
    keys >>= bits                                 # the (group, term)
    new_run = np.empty(len(keys), dtype=bool)
    new_run[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=new_run[1:])
    run = np.cumsum(new_run) - 1
    run_start = np.flatnonzero(new_run)
    is_doc = text < n_docs
    docs_so_far = np.cumsum(is_doc)
    df = np.diff(docs_so_far[np.append(run_start[1:], len(keys)) - 1], prepend=0) if len(keys) else run_start
    weights, norms = _weights(name, counts, run, df, sizes[keys[run_start] // span], text,
                              read.words.lengths[numbers], doc_group, n_docs)
    pairs = np.flatnonzero(~is_doc & (df[run] > 0))
    width = int(sizes.max(initial=1))
    group_start = np.cumsum(sizes) - sizes
    row_start = np.arange(len(query_numbers)) * width - group_start[query_group]   # a document's number is its group's start + its place
    totals = np.zeros(len(query_numbers) * width)
    for block in _blocks(df[run[pairs]]):
        totals += _pair_sums(name, pairs[block], df, run, run_start, text, weights, row_start[text[pairs[block]] - n_docs],
                             len(totals))
    totals = totals.reshape(len(query_numbers), width)
    if norms is None:
        return totals
    doc_of_cell = group_start[query_group][:, None] + np.arange(width)[None, :]
    doc_norms = np.where(np.arange(width)[None, :] < sizes[query_group][:, None],
                         norms[np.minimum(doc_of_cell, max(n_docs - 1, 0))], 0.0)
    scale = norms[n_docs:][:, None] * doc_norms
    return np.divide(totals, scale, out=np.zeros_like(totals), where=scale > 0)


#: at most about this many (query entry, document entry) pairs are made at once: a few large
#: groups meet millions, whose arrays would be tens of MB each
_PAIRS_AT_ONCE = 1 << 17


def _blocks(repeat):
    """Slices of consecutive query entries, each meeting at most ``_PAIRS_AT_ONCE`` document
    entries in all (or one entry that meets more), ``repeat`` the number each meets."""
    import numpy as np

    total = int(repeat.sum())
    if total <= _PAIRS_AT_ONCE:
        return [slice(None)]
    bounds = np.searchsorted(np.cumsum(repeat), np.arange(_PAIRS_AT_ONCE, total, _PAIRS_AT_ONCE), side="right")
    bounds = np.unique(np.concatenate([[0], bounds, [len(repeat)]])).tolist()
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def _pair_sums(name, pairs, df, run, run_start, text, weights, cell_start, cells):
    """For the query entries ``pairs``: the sum of the summands they make with the document
    entries of their runs, per (query, document) cell (``cell_start`` + the document's number)."""
    import numpy as np

    repeat = df[run[pairs]]
    # a query entry meets the df document entries that open its run: the k-th pair made of the
    # i-th query entry takes the entry run_start + k, and its query's row and weight by repetition
    doc_entry = np.arange(int(repeat.sum()))
    doc_entry += np.repeat(run_start[run[pairs]] - (np.cumsum(repeat) - repeat), repeat)
    cell = np.repeat(cell_start, repeat)
    cell += text[doc_entry]
    summands = weights[doc_entry]
    if name == "char_tfidf":
        summands *= np.repeat(weights[pairs], repeat)
    return np.bincount(cell, weights=summands, minlength=cells)


def _weights(name, counts, run, df, group_size, text, lengths, doc_group, n_docs):
    """Per (text, term) entry: the factor its side brings to a summand of the score (only a
    document's for BM25, whose query side brings 1), and the texts' norms to divide the score by
    (TF-IDF's cosine; None for BM25). ``df`` and ``group_size`` are the (group, term) runs',
    ``lengths`` the texts' numbers of words."""
    import numpy as np

    if name == "char_tfidf":       # cosine of TF-IDF vectors: (c_q idf) (c_d idf) / (|q| |d|)
        # a query's term no document holds is out of the vocabulary: no weight, no share of the norm
        idf = _by_size_and_df(lambda n, k: np.where(k > 0, np.log((1 + n) / (1 + k)) + 1, 0.0), group_size, df)
        weights = counts * idf[run]
        return weights, np.sqrt(np.bincount(text, weights=weights * weights, minlength=len(lengths)))
    k1, b = 1.5, 0.75              # BM25: idf * tf * (k1 + 1) / (tf + norm) on the document's side
    idf = _by_size_and_df(lambda n, k: np.log((n - k + 0.5) / (k + 0.5) + 1), group_size, df)
    doc_lengths = lengths[:n_docs].astype(float)
    average = np.bincount(doc_group, weights=doc_lengths) / np.bincount(doc_group)
    norm = k1 * (1 - b + b * np.divide(doc_lengths, average[doc_group], out=np.zeros_like(doc_lengths),
                                       where=average[doc_group] > 0))
    doc_norm = norm[np.minimum(text, n_docs - 1)] if n_docs else counts
    return idf[run] * counts * (k1 + 1) / (counts + doc_norm), None


_LOOKED_UP = 1000


def _by_size_and_df(idf, group_size, df):
    """``idf(group_size, df)`` for every entry, computed once per possible pair of the two whole
    numbers (a group holds a few dozen documents) and looked up; entry by entry for a group of
    more than ``_LOOKED_UP`` documents, whose table would be large."""
    import numpy as np

    df = df.astype(np.int64)
    top = int(max(group_size.max(), df.max())) + 1 if len(df) else 0
    if not len(df) or top > _LOOKED_UP:
        return idf(group_size, df).astype(float)
    sizes, dfs = np.divmod(np.arange(top * top), top)
    return idf(sizes, dfs)[group_size * top + df]


#: when the characters' digits are more than this, a group of texts numbers the characters it holds
#: again (1..k), so that its n-grams' codes stay small
_FEW_DIGITS = 1 << 8


def _char_ngram_codes(numbers, read: _Texts):
    """Every character n-gram of ``tfidf.char_ngrams`` of the texts numbered ``numbers`` as an
    integer, the number of the text it is in, and the number of codes. The characters are
    numbered 1..K (those of all words, as :attr:`_Texts.spelling` numbers them, or when they are
    more than ``_FEW_DIGITS``, those these texts hold) and an n-gram is written as base-(K+1)
    digits, so that n-grams of different lengths get different codes; when such codes could
    leave 64 bits, they are numbered by :func:`_numbered_ngrams`."""
    import numpy as np

    from .tfidf import NGRAMS

    words, owners, _ = _word_codes(numbers, read)
    spelled, starts, spans, base = read.spelling
    spans = spans[words]
    digits = gathered(spelled, starts[words], spans)   # each text's words, each followed by a space
    text_of_char = np.repeat(owners, spans)
    ends = np.cumsum(np.bincount(owners, weights=spans, minlength=len(numbers)).astype(np.int64))
    left = (ends - 1)[text_of_char]       # the last space is not the text's
    left -= np.arange(len(left))
    if base > _FEW_DIGITS:
        present = np.zeros(base, dtype=np.int64)
        present[digits] = 1
        base = int(present.sum()) + 1
        digits = np.cumsum(present)[digits]
    if base ** max(NGRAMS) >= 1 << 62:
        return _numbered_ngrams(digits, left, text_of_char, NGRAMS)
    codes, owners = [], []
    code = np.zeros(len(digits), dtype=np.int64)
    for n in range(1, max(NGRAMS) + 1):
        code = code[:len(digits) - n + 1] * base
        code += digits[n - 1:]
        if n in NGRAMS:
            fits = left[:len(code)] >= n
            codes.append(code[fits])
            owners.append(text_of_char[:len(code)][fits])
    return np.concatenate(codes), np.concatenate(owners), base ** max(NGRAMS)


def _numbered_ngrams(digits, left, text_of_char, sizes):
    """The n-gram codes of ``_char_ngram_codes`` for text of any script: characters numbered
    1..K in order of their digits, the (n-1)-grams numbered again densely whenever the next
    product could leave 64 bits, and each size's n-grams numbered on their own after the sizes
    before it, so that sizes never share a code."""
    import numpy as np

    alphabet, digits = np.unique(digits, return_inverse=True)
    digits = digits.astype(np.int64) + 1
    base = len(alphabet) + 1
    codes, owners, offset = [], [], 0
    code = np.zeros(len(digits), dtype=np.int64)
    for n in range(1, max(sizes) + 1):
        if len(code) and int(code.max()) >= (1 << 62) // base:
            code = np.unique(code, return_inverse=True)[1].astype(np.int64) + 1
        code = code[:len(digits) - n + 1] * base
        code += digits[n - 1:]
        if n in sizes:
            fits = left[:len(code)] >= n
            distinct, numbered = np.unique(code[fits], return_inverse=True)
            codes.append(numbered.astype(np.int64) + offset)
            owners.append(text_of_char[:len(code)][fits])
            offset += len(distinct)
    return np.concatenate(codes), np.concatenate(owners), max(offset, 1)


def _word_codes(numbers, read: _Texts):
    """Every word of ``bm25.words`` of the texts numbered ``numbers`` as an integer (its number
    in the vocabulary of all texts), the number of the text it is in, and the number of codes."""
    import numpy as np

    words = read.words
    lengths = words.lengths[numbers]
    codes = gathered(words.codes, words.starts[numbers], lengths)
    return codes, np.repeat(np.arange(len(numbers)), lengths), max(len(words.vocabulary), 1)
