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


def _share(flags) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def _weak_places(entities, entity_flags, hops, hop_flags) -> tuple[set[str], set[tuple[str, str]]]:
    """For ``rests_on`` over many queries at once: the entities that are weak, and the hops
    (head, tail) whose every relation is. The flags say which entity, which relation is weak."""
    strong = {hop for hop, weak in zip(hops, hop_flags) if not weak}
    return ({e.id for e, weak in zip(entities, entity_flags) if weak},
            {hop for hop, weak in zip(hops, hop_flags) if weak} - strong)


def _count_resting(queries, places: tuple[set[str], set[tuple[str, str]]]) -> int:
    """How many queries ``rests_on`` the weak facts ``places`` gives (``_weak_places``)."""
    entities, hops = places
    return sum(any(e in entities for p in q.paths for e in p)
               or any((a, b) in hops for p in q.paths for a, b in zip(p, p[1:])) for q in queries)


def _summary(sources: tuple[str, ...]) -> tuple[frozenset[str], bool, bool, int]:
    """Of one list of sources: its kinds, whether it is independent, whether it leans on the
    authors' list only, and how many bare repository URLs it holds."""
    kinds = _kinds(sources)
    independent = not kinds.isdisjoint(INDEPENDENT)
    bare = sum(s.rstrip("/") == AUTHORS_REPOSITORY for s in sources)
    return kinds, independent, not independent and (bare > 0 or AUTHORS_LIST in kinds), bare


def provenance_figures(kg, queries) -> dict:
    """The provenance of a KG and its benchmark, by kind of source: the one place these figures are
    computed (``mhmmkg info``, ``mhmmkg audit`` and the dataset card all show them)."""
    from ..kg.model import ENTITY_TYPES, RELATION_TYPES

    entities, relations = kg.entities, kg.relations
    facts = [*entities, *relations]
    summaries: dict[tuple[str, ...], tuple] = {}
    rows = [summaries.get(sources) or summaries.setdefault(sources, _summary(sources))
            for sources in (tuple(f.sources) for f in facts)]
    kinds = [row[0] for row in rows]
    independent = [row[1] for row in rows]
    authors_only = [row[2] for row in rows]

    def per_type(start, stop, types) -> dict:
        groups: dict[str, list[bool]] = {t: [] for t in types}
        for f, ind in zip(facts[start:stop], independent[start:stop]):
            if f.type in groups:
                groups[f.type].append(ind)
        return {t: _share(group) for t, group in groups.items() if group}

    origins = {}
    for e in entities:
        if e.type in NAME_ORIGIN_TYPES or e.name_origin:
            counts = origins.setdefault(e.type, {"game": 0, "descriptive": 0, "unset": 0})
            counts[e.name_origin or "unset"] += 1
    hops = [(r.head, r.tail) for r in relations]
    n = len(entities)
    unverified_flags = [f.unverified for f in facts]
    unverified = _weak_places(entities, unverified_flags[:n], hops, unverified_flags[n:])
    authors_list = _weak_places(entities, authors_only[:n], hops, authors_only[n:])
    return {
        "facts": len(facts),
        "with_source": _share([bool(k) for k in kinds]) or 0.0,
        "by_kind": {kind: _share([kind in k for k in kinds]) or 0.0 for kind in SOURCE_KINDS},
        "independently_sourced": _share(independent) or 0.0,
        "authors_list_only": _share(authors_only) or 0.0,
        "repository_url": sum(row[3] for row in rows),
        "entities_independently_sourced": per_type(0, len(entities), ENTITY_TYPES),
        "relations_independently_sourced": per_type(len(entities), len(facts), RELATION_TYPES),
        "unverified": {"entities": sum(e.unverified for e in entities),
                       "relations": sum(r.unverified for r in relations)},
        "queries_on_unverified": _count_resting(queries, unverified),
        "queries_on_authors_list_only": _count_resting(queries, authors_list),
        "name_origin": {t: origins[t] for t in sorted(origins, key=list(ENTITY_TYPES).index)},
    }
