"""The provenance figures counted in columns (issue 23) are those a plain count per fact and per
query gives, on random graphs whose facts share few lists of sources or have one each, and every
source is classified in columns as ``source_kind`` classifies it alone."""
from __future__ import annotations

import json
import random
import re

import pytest

from mhmmkg.graph import KnowledgeGraph
from mhmmkg.model import ENTITY_TYPES, RELATION_TYPES, Entity, Query, Relation
from mhmmkg.provenance import (AUTHORS_LIST, AUTHORS_REPOSITORY, NAME_ORIGIN_TYPES, PAGE, SOURCE_KINDS, TABLE,
                               _ASCII_SPACE, _sources_bits, independently_sourced, leans_on_authors_list,
                               provenance_figures, rests_on, source_kind, source_kinds)

REPOSITORY = AUTHORS_REPOSITORY
#: pieces that sources are made of: every prefix, the repository, and what the page pattern turns on
#: (whitespace of every kind, newlines, slashes and dots at the edges of a host, non-ASCII letters)
PIECES = ("mhworlddata:", "authors-list:", "http://", "https://", REPOSITORY, REPOSITORY + "/", "/", "//",
          ".", "..", "a", "b.c", "x.org", "wiki", "F#route", "\n", "\n\n", " ", "\t", "\r", "\x0b", "\x0c",
          "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000", "\x00", "é", "モ", "%E3", "?p=1", "-", ":")
PLAIN_SOURCES = ("mhworlddata:monsters.csv", "mhworlddata:weaknesses.csv", "authors-list:F#route",
                 "authors-list:G#answer", "https://x.org/wiki/A", "http://y.example.org", "https://a.b/",
                 REPOSITORY, REPOSITORY + "//", REPOSITORY + "/tree/main", "nonsense", "", "https://.org",
                 "https://x.org/a b", "https://x.org/a\n", "https://x.org/a\n\n", "https://x./a", "https://xy")


def _expected_bits(source: str) -> int:
    kinds = {TABLE: 1, AUTHORS_LIST: 2, PAGE: 4}
    return kinds.get(source_kind(source), 0) | (8 if source.rstrip("/") == REPOSITORY else 0)


def _random_source(rng: random.Random, ascii_only: bool) -> str:
    if rng.random() < 0.3:
        return rng.choice(PLAIN_SOURCES)
    pieces = [p for p in PIECES if p.isascii()] if ascii_only else PIECES
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))


@pytest.mark.parametrize("ascii_only", [True, False])
def test_sources_classified_in_columns_as_source_kind_classifies_each(ascii_only):
    rng = random.Random(23)
    for size in (0, 1, 2, 7, 50, 2000):
        sources = [_random_source(rng, ascii_only) for _ in range(size)]
        assert _sources_bits(sources).tolist() == list(map(_expected_bits, sources))
    url_like = [s for s in (_random_source(rng, ascii_only) for _ in range(20000)) if source_kind(s) == PAGE]
    assert len(url_like) > 100 and _sources_bits(url_like).tolist() == [4] * len(url_like)


def test_the_whitespace_of_ascii_sources_is_what_the_page_pattern_calls_whitespace():
    assert [chr(c) for c in _ASCII_SPACE] == [chr(c) for c in range(128) if re.fullmatch(r"\s", chr(c))]


def _plain_figures(kg, queries) -> dict:
    """The figures counted the plain way: one test per fact, ``rests_on`` per query."""
    entities, relations = kg.entities, kg.relations
    facts = [*entities, *relations]

    def share(mine, test):
        return round(sum(map(test, mine)) / len(mine), 3) if mine else None

    def per_type(mine, types):
        groups = {t: [f for f in mine if f.type == t] for t in types}
        return {t: share(group, independently_sourced) for t, group in groups.items() if group}

    origins = {}
    for e in entities:
        if e.type in NAME_ORIGIN_TYPES or e.name_origin:
            counts = origins.setdefault(e.type, {"game": 0, "descriptive": 0, "unset": 0})
            counts[e.name_origin or "unset"] += 1
    return {
        "facts": len(facts),
        "with_source": share(facts, lambda f: bool(source_kinds(f.sources))) or 0.0,
        "by_kind": {k: share(facts, lambda f, k=k: k in source_kinds(f.sources)) or 0.0 for k in SOURCE_KINDS},
        "independently_sourced": share(facts, independently_sourced) or 0.0,
        "authors_list_only": share(facts, leans_on_authors_list) or 0.0,
        "repository_url": sum(s.rstrip("/") == REPOSITORY for f in facts for s in f.sources),
        "entities_independently_sourced": per_type(entities, ENTITY_TYPES),
        "relations_independently_sourced": per_type(relations, RELATION_TYPES),
        "unverified": {"entities": sum(e.unverified for e in entities),
                       "relations": sum(r.unverified for r in relations)},
        "queries_on_unverified": sum(rests_on(kg, q, lambda f: f.unverified) for q in queries),
        "queries_on_authors_list_only": sum(rests_on(kg, q, leans_on_authors_list) for q in queries),
        "name_origin": {t: origins[t] for t in sorted(origins, key=list(ENTITY_TYPES).index)},
    }


def _random_graph(rng: random.Random, n_entities: int, shared_lists: bool):
    """Entities, relations (parallel ones included) and queries whose paths pass known and unknown
    ids; the facts' lists of sources drawn from a few shared lists or each made afresh."""
    pool = [tuple(_random_source(rng, rng.random() < 0.8) for _ in range(rng.randint(0, 3))) for _ in range(6)]

    def sources():
        if shared_lists:
            return rng.choice(pool)
        return tuple(_random_source(rng, rng.random() < 0.9) for _ in range(rng.choice((0, 1, 1, 2, 3))))

    entities = [Entity(f"e{i}", f"E {i}", rng.choice(ENTITY_TYPES), sources=sources(),
                       unverified=rng.random() < 0.1, name_origin=rng.choice((None, None, "game", "descriptive")))
                for i in range(n_entities)]
    ids = [e.id for e in entities]
    relations = [Relation(f"r{i}", rng.choice(ids), rng.choice(ids), rng.choice(RELATION_TYPES), "label",
                          sources=sources(), unverified=rng.random() < 0.2)
                 for i in range(n_entities * 2)]
    relations += [Relation(f"p{i}", r.head, r.tail, r.type, "label", sources=sources(), unverified=not r.unverified)
                  for i, r in enumerate(rng.sample(relations, len(relations) // 4))]
    hops = [(r.head, r.tail) for r in relations]

    def path():
        if rng.random() < 0.2:
            return tuple(rng.choice([*ids, "unknown"]) for _ in range(rng.randint(0, 3)))
        walk = list(rng.choice(hops))
        while rng.random() < 0.5:
            walk.append(rng.choice(ids))
        return tuple(walk)

    queries = [Query(f"q{i}", 1, "?", ids[0], "!", tuple(path() for _ in range(rng.randint(0, 3))))
               for i in range(n_entities)]
    return KnowledgeGraph(entities, relations), queries


@pytest.mark.parametrize("shared_lists", [True, False])
def test_figures_in_columns_equal_the_plain_figures_on_random_graphs(shared_lists):
    rng = random.Random(6)
    seen = set()
    for n_entities in (1, 2, 5, 30, 200):
        for _ in range(4):
            kg, queries = _random_graph(rng, n_entities, shared_lists)
            fast, plain = provenance_figures(kg, queries), _plain_figures(kg, queries)
            assert json.dumps(fast) == json.dumps(plain)
            seen.update(k for k in ("queries_on_unverified", "queries_on_authors_list_only", "repository_url")
                        if fast[k])
    assert seen == {"queries_on_unverified", "queries_on_authors_list_only", "repository_url"}


def test_figures_of_an_empty_graph_equal_the_plain_figures():
    empty = KnowledgeGraph([], [])
    assert json.dumps(provenance_figures(empty, [])) == json.dumps(_plain_figures(empty, []))


def test_provenance_figures_in_one_pass_equal_the_figures_per_fact():
    import dataclasses

    from mhmmkg.sources import load_sources

    sources = load_sources("data")
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    assert provenance_figures(kg, sources.queries) == _plain_figures(kg, sources.queries)
    odd = ((), (AUTHORS_REPOSITORY + "/",), ("authors-list:F#route", AUTHORS_REPOSITORY), ("https://x.org/p",),
           ("mhworlddata:monsters.csv", "authors-list:F#answer"), ("authors-list:F#route",), ("nonsense",))
    entities = [dataclasses.replace(e, sources=odd[i % len(odd)], unverified=i % 5 == 0)
                for i, e in enumerate(sources.entities.values())]
    relations = [dataclasses.replace(r, sources=odd[i % 3 + 2], unverified=i % 4 == 0)
                 for i, r in enumerate(sources.relations)]
    changed = KnowledgeGraph(entities, relations)
    figures = provenance_figures(changed, sources.queries)
    assert figures == _plain_figures(changed, sources.queries)
    assert figures["repository_url"] > 0 and 0 < figures["queries_on_unverified"] < len(sources.queries)
    assert figures["authors_list_only"] > 0 and figures["queries_on_authors_list_only"] > 0
    empty = KnowledgeGraph([], [])
    assert provenance_figures(empty, []) == _plain_figures(empty, [])
