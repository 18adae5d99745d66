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
from itertools import chain, compress
from operator import attrgetter, itemgetter, not_

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


def _weak_places(entities, entity_flags, hops, hop_flags) -> tuple[set[str], set[tuple[str, str]]]:
    """For ``rests_on`` over many queries at once: the entities that are weak, and the hops
    (head, tail) whose every relation is. The flags say which entity, which relation is weak."""
    weak_hops = set(compress(hops, hop_flags))
    if weak_hops:
        weak_hops.difference_update(compress(hops, map(not_, hop_flags)))
    return set(compress(map(attrgetter("id"), entities), entity_flags)), weak_hops


def _count_resting(queries, places: tuple[set[str], set[tuple[str, str]]]) -> int:
    """How many queries ``rests_on`` the weak facts ``places`` gives (``_weak_places``)."""
    entities, hops = places
    if not entities and not hops:
        return 0
    return sum(not entities.isdisjoint(chain.from_iterable(q.paths))
               or any(not hops.isdisjoint(zip(p, p[1:])) for p in q.paths) for q in queries)


def _summary(sources: tuple[str, ...]) -> tuple[frozenset[str], bool, bool, int]:
    """Of one list of sources: its kinds, whether it is independent, whether it leans on the
    authors' list only, and how many bare repository URLs it holds."""
    kinds = _kinds(sources)
    independent = not kinds.isdisjoint(INDEPENDENT)
    bare = sum(s.rstrip("/") == AUTHORS_REPOSITORY for s in sources)
    return kinds, independent, not independent and (bare > 0 or AUTHORS_LIST in kinds), bare


def provenance_figures(kg, queries) -> dict:
    """The provenance of a KG and its benchmark, by kind of source: the one place these figures are
    computed (``mhmmkg info``, ``mhmmkg audit`` and the dataset card all show them).

    Facts are counted by (type, sources): a few hundred distinct lists of sources stand for
    hundreds of thousands of facts, and every share is a whole count over a whole count."""
    from ..kg.model import ENTITY_TYPES, RELATION_TYPES

    entities, relations = kg.entities, kg.relations
    type_and_sources = attrgetter("type", "sources")
    entity_groups = Counter(map(type_and_sources, entities))
    relation_groups = Counter(map(type_and_sources, relations))
    summaries = {sources: _summary(tuple(sources)) for sources in
                 {sources for _, sources in chain(entity_groups, relation_groups)}}
    n_facts = len(entities) + len(relations)

    def share(test) -> float | None:
        return round(sum(n for groups in (entity_groups, relation_groups) for (_, sources), n in groups.items()
                         if test(summaries[sources])) / n_facts, 3) if n_facts else None

    def per_type(groups, types) -> dict:
        independent: dict[str, list[int]] = {t: [0, 0] for t in types}
        for (type_, sources), n in groups.items():
            if type_ in independent:
                independent[type_][0] += n * summaries[sources][1]
                independent[type_][1] += n
        return {t: round(k / total, 3) for t, (k, total) in independent.items() if total}

    origins = {}
    for e in entities:
        if e.type in NAME_ORIGIN_TYPES or e.name_origin:
            counts = origins.setdefault(e.type, {"game": 0, "descriptive": 0, "unset": 0})
            counts[e.name_origin or "unset"] += 1
    entity_unverified = list(map(attrgetter("unverified"), entities))
    relation_unverified = list(map(attrgetter("unverified"), relations))
    authors_only = {sources: row[2] for sources, row in summaries.items()}
    hops = list(zip(map(attrgetter("head"), relations), map(attrgetter("tail"), relations)))
    unverified = _weak_places(entities, entity_unverified, hops, relation_unverified)
    authors_list = _weak_places(entities, list(map(authors_only.__getitem__, map(attrgetter("sources"), entities))),
                                hops, list(map(authors_only.__getitem__, map(attrgetter("sources"), relations))))
    return {
        "facts": n_facts,
        "with_source": share(lambda row: bool(row[0])) or 0.0,
        "by_kind": {kind: share(lambda row, kind=kind: kind in row[0]) or 0.0 for kind in SOURCE_KINDS},
        "independently_sourced": share(itemgetter(1)) or 0.0,
        "authors_list_only": share(itemgetter(2)) or 0.0,
        "repository_url": sum(n * summaries[sources][3] for groups in (entity_groups, relation_groups)
                              for (_, sources), n in groups.items()),
        "entities_independently_sourced": per_type(entity_groups, ENTITY_TYPES),
        "relations_independently_sourced": per_type(relation_groups, RELATION_TYPES),
        "unverified": {"entities": sum(entity_unverified), "relations": sum(relation_unverified)},
        "queries_on_unverified": _count_resting(queries, unverified),
        "queries_on_authors_list_only": _count_resting(queries, authors_list),
        "name_origin": {t: origins[t] for t in sorted(origins, key=list(ENTITY_TYPES).index)},
    }
