"""Where a fact comes from, by kind of source.

A source (an entry of an entity's or relation's ``sources``) is one of three kinds: a game table
(``mhworlddata:<table>.csv``, the MHWorldData tables copied in the sources), a row of the authors'
question list (``authors-list:<File>#route`` or ``#answer``), or a public page (its URL). The
authors' repository itself is none of them: it holds code and the question list, not a knowledge
graph. A fact is *independently sourced* when it has a table or a page.
"""
from __future__ import annotations

import re
from functools import lru_cache

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


def _share(facts, test) -> float | None:
    return round(sum(map(test, facts)) / len(facts), 3) if facts else None


def provenance_figures(kg, queries) -> dict:
    """The provenance of a KG and its benchmark, by kind of source: the one place these figures are
    computed (``mhmmkg info``, ``mhmmkg audit`` and the dataset card all show them). Each distinct
    list of sources is classified once and each fact counted in one pass."""
    from .model import ENTITY_TYPES, RELATION_TYPES

    entities, relations = kg.entities, kg.relations
    facts = [*entities, *relations]
    with_source = independent = authors_list_only = repository_url = 0
    by_kind = dict.fromkeys(SOURCE_KINDS, 0)
    classes: dict[tuple[str, ...], tuple] = {}
    for f in facts:
        sources = tuple(f.sources)
        known = classes.get(sources)
        if known is None:
            known = classes[sources] = _classify(sources)
        kinds, alone, repository = known
        with_source += bool(kinds)
        for kind in kinds:
            by_kind[kind] += 1
        independent += not kinds.isdisjoint(INDEPENDENT)
        authors_list_only += alone
        repository_url += repository

    def share(count: int) -> float:
        return round(count / len(facts), 3) if facts else 0.0

    def per_type(mine, types) -> dict:
        totals, sourced = dict.fromkeys(types, 0), dict.fromkeys(types, 0)
        for f in mine:
            if f.type in totals:
                totals[f.type] += 1
                sourced[f.type] += not classes[tuple(f.sources)][0].isdisjoint(INDEPENDENT)
        return {t: round(sourced[t] / n, 3) for t, n in totals.items() if n}

    origins = {}
    for e in entities:
        if e.type in NAME_ORIGIN_TYPES or e.name_origin:
            counts = origins.setdefault(e.type, {"game": 0, "descriptive": 0, "unset": 0})
            counts[e.name_origin or "unset"] += 1
    return {
        "facts": len(facts),
        "with_source": share(with_source),
        "by_kind": {kind: share(n) for kind, n in by_kind.items()},
        "independently_sourced": share(independent),
        "authors_list_only": share(authors_list_only),
        "repository_url": repository_url,
        "entities_independently_sourced": per_type(entities, ENTITY_TYPES),
        "relations_independently_sourced": per_type(relations, RELATION_TYPES),
        "unverified": {"entities": sum(e.unverified for e in entities),
                       "relations": sum(r.unverified for r in relations)},
        "queries_on_unverified": _count_resting_on(kg, queries, lambda f: f.unverified),
        "queries_on_authors_list_only": _count_resting_on(kg, queries, leans_on_authors_list),
        "name_origin": {t: origins[t] for t in sorted(origins, key=list(ENTITY_TYPES).index)},
    }


def _classify(sources: tuple[str, ...]) -> tuple[frozenset[str], bool, int]:
    """The kinds of a list of sources, whether it leans on the authors' list alone (see
    :func:`leans_on_authors_list`), and how many of its entries are the bare repository URL."""
    kinds = _kinds(sources)
    repository = sum(s.rstrip("/") == AUTHORS_REPOSITORY for s in sources)
    alone = kinds.isdisjoint(INDEPENDENT) and (AUTHORS_LIST in kinds or repository > 0)
    return kinds, alone, repository


def _count_resting_on(kg, queries, weak) -> int:
    """How many queries :func:`rests_on` ``weak`` facts, with each entity and hop judged once."""
    weak_entities = {e.id for e in kg.entities if weak(e)}
    weak_hops: dict[tuple[str, str], bool] = {}

    def weak_hop(a: str, b: str) -> bool:
        answer = weak_hops.get((a, b))
        if answer is None:
            relations = kg.relations_between(a, b)
            answer = weak_hops[a, b] = bool(relations) and all(weak(r) for r in relations)
        return answer

    count = 0
    for query in queries:
        count += any(not weak_entities.isdisjoint(path) or any(weak_hop(a, b) for a, b in zip(path, path[1:]))
                     for path in query.paths)
    return count
