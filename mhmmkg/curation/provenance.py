"""Where a fact comes from, by kind of source.

A source (an entry of an entity's or relation's ``sources``) is one of three kinds: a game table
(``mhworlddata:<table>.csv``, the MHWorldData tables copied in the sources), a row of the authors'
question list (``authors-list:<File>#route`` or ``#answer``), or a public page (its URL). The
authors' repository itself is none of them: it holds code and the question list, not a knowledge
graph. A fact is *independently sourced* when it has a table or a page.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import chain, compress, count, repeat
from operator import attrgetter

TABLE, AUTHORS_LIST, PAGE = "table", "authors_list", "page"
SOURCE_KINDS = (TABLE, AUTHORS_LIST, PAGE)
INDEPENDENT = (TABLE, PAGE)

TABLE_PREFIX = "mhworlddata:"
AUTHORS_LIST_PREFIX = "authors-list:"
AUTHORS_REPOSITORY = "https://github.com/wbw520/MH-MMKG"
#: Entity types whose name must say where it comes from (``name_origin``).
NAME_ORIGIN_TYPES = ("attack_action", "attack_phase", "attack_effect")
_URL = re.compile(r"https?://[^\s/]+\.[^\s/]+(/\S*)?$")


def source_kind(source: str) -> str | None:
    """``table``, ``authors_list`` or ``page``; None for anything else (the bare authors'
    repository included). A table or row citation's own form is checked elsewhere."""
    if source.startswith(TABLE_PREFIX):
        return TABLE
    if source.startswith(AUTHORS_LIST_PREFIX):
        return AUTHORS_LIST
    if _URL.match(source) and source.rstrip("/") != AUTHORS_REPOSITORY:
        return PAGE
    return None


def source_kinds(sources) -> set[str]:
    return set(_kinds(tuple(sources)))


@lru_cache(maxsize=1 << 14)
def _kinds(sources: tuple[str, ...]) -> frozenset[str]:
    """The kinds of a list of sources, once per distinct list (facts share a few lists)."""
    return frozenset(k for k in map(source_kind, sources) if k)


def independently_sourced(fact) -> bool:
    return not _kinds(tuple(fact.sources)).isdisjoint(INDEPENDENT)


def leans_on_authors_list(fact) -> bool:
    """Sourced only by the authors' release: a question-list row (or the repository itself), no
    table or page."""
    return not independently_sourced(fact) and any(
        source_kind(s) == AUTHORS_LIST or s.rstrip("/") == AUTHORS_REPOSITORY for s in fact.sources)


def rests_on(kg, query, weak) -> bool:
    """True when a ground-truth path of the query passes an entity that is ``weak``, or a hop whose
    every relation is."""
    for path in query.paths:
        if any(e in kg and weak(kg.entity(e)) for e in path):
            return True
        for a, b in zip(path, path[1:]):
            relations = kg.relations_between(a, b)
            if relations and all(weak(r) for r in relations):
                return True
    return False


def _count_resting(queries, entity_ids: list[str], entity_flags, heads: list[str], tails: list[str],
                   relation_flags, tests: int) -> list[int]:
    """For each of ``tests`` ways of being weak (a bit of the flags, numpy arrays giving each entity's
    and relation's), how many queries ``rests_on`` the facts weak that way: a path of theirs passes
    a weak entity, or a hop whose every relation is weak. In columns over all the queries' paths,
    every id (of an entity, a relation's end, a path's step) numbered once."""
    import numpy as np

    paths_of = list(map(attrgetter("paths"), queries))
    paths = list(chain.from_iterable(paths_of))
    ids = list(chain.from_iterable(paths))
    path_lengths = np.fromiter(map(len, paths), np.intp, len(paths))
    owner = np.repeat(np.repeat(np.arange(len(queries)), np.fromiter(map(len, paths_of), np.intp, len(queries))),
                      path_lengths)
    number: dict[str, int] = {}
    numbers = count()

    def numbered(names: list[str]):
        return np.fromiter(map(number.setdefault, names, numbers), np.int64, len(names))

    entity_numbers, id_numbers = numbered(entity_ids), numbered(ids)
    head_numbers, tail_numbers = numbered(heads), numbered(tails)
    size = next(numbers)
    flags_by_number = np.zeros(size, np.uint8)
    flags_by_number[entity_numbers] = entity_flags
    id_flags = flags_by_number[id_numbers]
    hop_starts = np.ones(len(ids), bool)
    hop_starts[np.cumsum(path_lengths)[path_lengths > 0] - 1] = False
    hop_starts = np.flatnonzero(hop_starts)
    hops = id_numbers[hop_starts] * size + id_numbers[hop_starts + 1]
    relation_hops = head_numbers * size + tail_numbers
    order = np.argsort(relation_hops)
    relation_hops = relation_hops[order]
    firsts = np.flatnonzero(np.diff(relation_hops, prepend=-1))
    hop_flags = np.zeros(len(hops), np.uint8)
    if len(firsts):
        known_hops, every_flag = relation_hops[firsts], np.bitwise_and.reduceat(relation_flags[order], firsts)
        at = np.minimum(np.searchsorted(known_hops, hops), len(known_hops) - 1)
        hop_flags = np.where(known_hops[at] == hops, every_flag[at], 0)
    counts = []
    for bit in (1 << t for t in range(tests)):
        resting = (np.bincount(owner, (id_flags & bit) != 0, minlength=len(queries))
                   + np.bincount(owner[hop_starts], (hop_flags & bit) != 0, minlength=len(queries)))
        counts.append(int(np.count_nonzero(resting)))
    return counts


_KIND_BITS = {TABLE: 1, AUTHORS_LIST: 2, PAGE: 4}
_BARE = 8
#: by the bits of a list of sources (0..15, ``_list_bits``): what the figures count
_HAS_KIND = tuple(bits & 7 != 0 for bits in range(16))
_HAS = {kind: tuple(bits & bit != 0 for bits in range(16)) for kind, bit in _KIND_BITS.items()}
_INDEPENDENT = tuple(bits & 5 != 0 for bits in range(16))
_AUTHORS_ONLY = tuple(bits & 5 == 0 and bits & 10 != 0 for bits in range(16))


def _source_bits(source: str) -> int:
    """A source's kind as a bit of ``_KIND_BITS`` (0 for none), with ``_BARE`` set when it is the
    authors' repository itself."""
    return _KIND_BITS.get(source_kind(source), 0) | (_BARE if source.rstrip("/") == AUTHORS_REPOSITORY else 0)


def _sources_bits(sources: list[str]):
    """``_source_bits`` of each source, as a numpy array. ASCII sources (all of them in practice) are
    classified in columns over their bytes (``_ascii_bits``); the others, and any citing the
    authors' repository, one distinct string at a time."""
    import numpy as np

    text = "".join(sources)
    if text.isascii() and AUTHORS_REPOSITORY not in text:
        return _ascii_bits(text, sources)
    plain = np.fromiter((s.isascii() and not s.startswith(AUTHORS_REPOSITORY) for s in sources), bool, len(sources))
    bits = np.empty(len(sources), np.uint8)
    ascii_sources = list(compress(sources, plain.tolist()))
    bits[plain] = _ascii_bits("".join(ascii_sources), ascii_sources)
    others = list(compress(sources, (~plain).tolist()))
    bits_of = {source: _source_bits(source) for source in set(others)}
    bits[~plain] = np.fromiter(map(bits_of.__getitem__, others), np.uint8, len(others))
    return bits


#: Python's ``\s`` among ASCII characters, which is all ``_URL`` matches against in ``_ascii_bits``
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())


def _ascii_bits(text: str, sources: list[str]):
    """``_source_bits`` of ASCII sources none of which starts with the authors' repository, in
    columns: ``text`` is the sources joined. ``_URL`` is taken apart: after ``http://`` or
    ``https://``, no whitespace (one final newline aside), and a host (up to the first ``/``)
    holding a ``.`` that is neither its first nor its last character."""
    import numpy as np

    lengths = np.fromiter(map(len, sources), np.int64, len(sources))
    ends = np.cumsum(lengths)
    starts = ends - lengths
    width = max(len(TABLE_PREFIX), len(AUTHORS_LIST_PREFIX), len("https://"))
    data = np.frombuffer(text.encode("ascii") + bytes(width), np.uint8)
    window = data[starts[:, None] + np.arange(width)]

    def prefixed(prefix: str):
        return (lengths >= len(prefix)) & (window[:, :len(prefix)] == np.frombuffer(prefix.encode(), np.uint8)).all(axis=1)

    def between(positions, first, last):
        """How many of ``positions`` (sorted) lie in [first, last)."""
        return np.searchsorted(positions, last) - np.searchsorted(positions, np.minimum(first, last))

    scheme = np.where(prefixed("https://"), 8, np.where(prefixed("http://"), 7, 0))
    rest = starts + scheme
    end = ends - ((ends > rest) & (data[np.maximum(ends - 1, 0)] == ord("\n")))
    spaces = np.flatnonzero(np.isin(data[:len(text)], np.frombuffer(_ASCII_SPACE, np.uint8)))
    slashes = np.flatnonzero(data[:len(text)] == ord("/"))
    host_end = np.minimum(np.append(slashes, len(text))[np.searchsorted(slashes, rest)], end)
    dots = np.flatnonzero(data[:len(text)] == ord("."))
    page = ((scheme > 0) & (between(spaces, rest, end) == 0)
            & (between(dots, rest + 1, host_end - 1) > 0))
    return (prefixed(TABLE_PREFIX) * _KIND_BITS[TABLE] | prefixed(AUTHORS_LIST_PREFIX) * _KIND_BITS[AUTHORS_LIST]
            | page * _KIND_BITS[PAGE]).astype(np.uint8)


def _list_bits(facts):
    """Per fact, the bits of its sources or-ed together (a numpy array), and how many bare repository
    URLs the lists hold in all. Each distinct list is classified once (facts often share one), and
    all of them together in columns (``_sources_bits``), so that many distinct lists cost little too."""
    import numpy as np

    lists = list(map(attrgetter("sources"), facts))
    first_with_list: dict[tuple[str, ...], int] = {}
    first = np.fromiter(map(first_with_list.setdefault, lists, count()), np.intp, len(lists))
    distinct = first == np.arange(len(lists))
    distinct_lists = list(compress(lists, distinct.tolist()))
    flat = list(chain.from_iterable(distinct_lists))
    bits = _sources_bits(flat)
    lengths = np.fromiter(map(len, distinct_lists), np.intp, len(distinct_lists))
    list_bits = np.zeros(len(distinct_lists), np.uint8)
    list_bare = np.zeros(len(distinct_lists), np.intp)
    if flat:
        filled = lengths > 0
        starts = (np.cumsum(lengths) - lengths)[filled]
        list_bits[filled] = np.bitwise_or.reduceat(bits, starts)
        list_bare[filled] = np.add.reduceat((bits >> 3).astype(np.intp), starts)
    which = np.zeros(len(lists), np.intp)
    which[distinct] = np.arange(len(distinct_lists))
    which = which[first]
    return list_bits[which], int(list_bare[which].sum())


def _counts(types: list[str], bits, known: tuple[str, ...]):
    """How many facts have each type of ``known`` (one row each, then a row for any other type)
    and each value of bits (16 columns)."""
    import numpy as np

    codes = {t: i for i, t in enumerate(known)}
    rows = np.fromiter(map(codes.get, types, repeat(len(known))), np.intp, len(types))
    return np.bincount(rows * 16 + bits, minlength=(len(known) + 1) * 16).reshape(len(known) + 1, 16)


def _count(counts, test: tuple[bool, ...]) -> int:
    """The facts of ``counts`` (a row or a table of ``_counts``) whose bits pass ``test``."""
    return int(counts[..., list(test)].sum())


def provenance_figures(kg, queries) -> dict:
    """The provenance of a KG and its benchmark, by kind of source: the one place these figures are
    computed (``mhmmkg info``, ``mhmmkg audit`` and the dataset card all show them).

    Facts are counted by (type, kinds of their sources), in columns, and every share is a whole
    count over a whole count."""
    import numpy as np

    from ..kg.model import ENTITY_TYPES, RELATION_TYPES

    entities, relations = kg.entities, kg.relations
    entity_types = list(map(attrgetter("type"), entities))
    entity_bits, entity_bare = _list_bits(entities)
    relation_bits, relation_bare = _list_bits(relations)
    entity_counts = _counts(entity_types, entity_bits, ENTITY_TYPES)
    relation_counts = _counts(list(map(attrgetter("type"), relations)), relation_bits, RELATION_TYPES)
    by_bits = entity_counts.sum(axis=0) + relation_counts.sum(axis=0)
    n_facts = len(entities) + len(relations)

    def share(test) -> float | None:
        return round(_count(by_bits, test) / n_facts, 3) if n_facts else None

    def per_type(counts, types) -> dict:
        totals = counts.sum(axis=1).tolist()
        return {t: round(_count(counts[i], _INDEPENDENT) / totals[i], 3) for i, t in enumerate(types) if totals[i]}

    origins = {}
    for (type_, origin), n in Counter(zip(entity_types, map(attrgetter("name_origin"), entities))).items():
        if type_ in NAME_ORIGIN_TYPES or origin:
            counts = origins.setdefault(type_, {"game": 0, "descriptive": 0, "unset": 0})
            counts[origin or "unset"] += n
    entity_unverified = np.fromiter(map(attrgetter("unverified"), entities), bool, len(entities))
    relation_unverified = np.fromiter(map(attrgetter("unverified"), relations), bool, len(relations))
    authors_only = np.array(_AUTHORS_ONLY)
    on_unverified, on_authors_list = _count_resting(
        queries, list(map(attrgetter("id"), entities)), entity_unverified | authors_only[entity_bits] << 1,
        list(map(attrgetter("head"), relations)), list(map(attrgetter("tail"), relations)),
        relation_unverified | authors_only[relation_bits] << 1, tests=2)
    return {
        "facts": n_facts,
        "with_source": share(_HAS_KIND) or 0.0,
        "by_kind": {kind: share(_HAS[kind]) or 0.0 for kind in SOURCE_KINDS},
        "independently_sourced": share(_INDEPENDENT) or 0.0,
        "authors_list_only": share(_AUTHORS_ONLY) or 0.0,
        "repository_url": entity_bare + relation_bare,
        "entities_independently_sourced": per_type(entity_counts, ENTITY_TYPES),
        "relations_independently_sourced": per_type(relation_counts, RELATION_TYPES),
        "unverified": {"entities": int(entity_unverified.sum()), "relations": int(relation_unverified.sum())},
        "queries_on_unverified": on_unverified,
        "queries_on_authors_list_only": on_authors_list,
        "name_origin": {t: origins[t] for t in sorted(origins, key=list(ENTITY_TYPES).index)},
    }
