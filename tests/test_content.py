"""The embedded default content (data/): scale, completeness, answerability, and compatibility
with the authors' published question list (skipped when ../shared/official is absent)."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import OFFICIAL_DIR
from mhmmkg.graph import KnowledgeGraph, normalise_name
from mhmmkg.model import RELATION_TYPES
from mhmmkg.provenance import AUTHORS_LIST, TABLE, source_kind
from mhmmkg.sources import load_sources
from mhmmkg.stats import compute_stats

ROOT = Path(__file__).resolve().parent.parent
QUESTION_LIST = OFFICIAL_DIR / "question_list.xlsx"

#: Rules on the data that issue 21 set; the figures on the data are in the failure messages.
#: The least share of facts with a game-table or public-page source.
MIN_INDEPENDENTLY_SOURCED = 0.54   # a ratchet: issue 21 aims at 0.60; raise it as pages are found
#: The most of sub-task II that either lexical measure (BM25, character n-gram TF-IDF) may rank first.
SHORTCUT_TOP1_CEILING = 0.40
#: Sub-tasks whose question refers to a scene (II..VI): each query needs a perception text.
SCENE_SUBTASKS = (2, 3, 4, 5, 6)
#: Words that put the viewer in the scene; a perception text describes it in the third person.
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
STOPWORDS = set("a an the of to and or in on is it its be by with for at as this that if when while from "
                "into than then yes no not does do will can only after before".split())


@pytest.fixture(scope="module")
def sources():
    return load_sources(ROOT / "data")


@pytest.fixture(scope="module")
def kg(sources):
    return KnowledgeGraph(sources.entities.values(), sources.relations)


def test_scale_is_at_least_the_papers(sources, kg):
    stats = compute_stats(kg, sources.queries)
    by_type = stats["entities_by_type"]
    assert stats["monsters"] == 22
    assert by_type["attack_action"] >= 265 and by_type["attack_phase"] >= 20
    assert by_type["element"] >= 9 and by_type["weapon"] >= 10 and by_type["prop"] >= 6 and by_type["attack_effect"] >= 9
    paper_types = [t for t in RELATION_TYPES if t != "subspecies_of"]
    assert all(stats["relations_by_type"][t] > 0 for t in paper_types), stats["relations_by_type"]
    assert stats["edge_kinds"] >= 100


def test_benchmark_has_the_papers_subtask_mix(sources):
    assert len(sources.queries) == 238
    assert Counter(q.subtask for q in sources.queries) == {1: 24, 2: 109, 3: 28, 4: 29, 5: 35, 6: 13}
    assert all(len(q.paths) == 1 and len(q.paths[0]) == 1 for q in sources.queries if q.subtask == 1)
    # recognition, combo and effect queries are about a scene; condition and cross-monster ones may be text only
    assert all(q.perception for q in sources.queries if q.subtask in (2, 3, 5))


def test_every_attack_has_a_caption_and_knowledge_entities_have_text(kg):
    assert all(e.caption for e in kg.entities if e.type == "attack_action")
    assert all(e.text for e in kg.entities if e.type in ("monster", "attack_phase", "attack_effect"))


def test_cross_monster_queries_cross_monsters(sources, kg):
    for q in (q for q in sources.queries if q.subtask == 6):
        owners = {kg.entity(e).monster or e for p in q.paths for e in p if kg.entity(e).type != "element"}
        assert len(owners - {None}) >= 2, q.id


def test_recognition_answers_are_the_recognised_entity(sources, kg):
    for q in (q for q in sources.queries if q.subtask == 2):
        leaves = {normalise_name(n) for p in q.paths for n in kg.entity(p[-1]).names}
        assert normalise_name(q.answer) in leaves, (q.id, q.answer)


def test_recognition_scenes_do_not_name_the_move(sources, kg):
    for q in (q for q in sources.queries if q.subtask == 2):
        scene = f" {normalise_name(' '.join(filter(None, (q.question, q.extra, q.perception))))} "
        for name in kg.entity(q.paths[0][-1]).names:
            assert f" {normalise_name(name)} " not in scene, (q.id, name)


def test_answers_naming_entities_are_on_or_stated_in_their_paths(sources, kg):
    for q in sources.queries:
        named = kg.find(q.answer)
        if not named:
            continue
        on_path = {e for p in q.paths for e in p}
        stated = normalise_name(q.answer) in normalise_name(kg.render_paths(q.paths))
        assert stated or any(e.id in on_path for e in named), (q.id, q.answer)


def content_words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def test_answers_are_derivable_from_path_text(sources, kg):
    """At least half of each answer's content words (crudely stemmed) occur in its paths' text."""
    for q in sources.queries:
        words = content_words(q.answer)
        found = words & content_words(kg.render_paths(q.paths))
        assert len(found) >= len(words) / 2, (q.id, q.answer, sorted(words - found))


@pytest.fixture(scope="module")
def official_rows():
    if not QUESTION_LIST.is_file():
        pytest.skip(f"{QUESTION_LIST} is not present")
    pytest.importorskip("openpyxl")
    from mhmmkg.builders.official.workbooks import read_question_list

    return read_question_list(QUESTION_LIST)


def test_every_official_route_is_a_walk_in_our_kg(official_rows, kg):
    from mhmmkg.builders.official.compat import check_routes

    reports = check_routes(kg, official_rows)
    failing = [f"row {r.row} {r.route}: {r.problem}" for r in reports if r.problem]
    share = 1 - len(failing) / len(reports)
    print(f"official routes that are walks in our KG: {len(reports) - len(failing)}/{len(reports)} ({share:.1%})")
    assert len(reports) == 265
    assert not failing, "\n".join(failing)


def shingles(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9']+", (text or "").lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_no_sentence_is_copied_from_the_official_list(official_rows, sources, kg):
    official = set()
    for row in official_rows:
        for column in ("Question", "Perception", "Answer", "Extra Information"):
            official |= shingles(str(row[column] or ""))
    ours = [(q.id, t) for q in sources.queries for t in (q.question, q.perception, q.answer, q.extra)]
    ours += [(e.id, t) for e in kg.entities for t in (e.caption, e.text)]
    copied = [(key, " ".join(sorted(shingles(t) & official)[0])) for key, t in ours if shingles(t) & official]
    assert not copied, copied[:10]


REFERENCE = ROOT / "data" / "reference" / "mhworlddata"


def test_sources_are_pages_copied_game_tables_or_question_list_rows(kg):
    from mhmmkg.builders.audit.authors_list import parse_citation

    tables = {p.name for p in REFERENCE.glob("*.csv")}
    bad = []
    for fact in [*kg.entities, *kg.relations]:
        for source in fact.sources:
            kind = source_kind(source)
            if kind is None or (kind == TABLE and source.split(":", 1)[1] not in tables) \
                    or (kind == AUTHORS_LIST and parse_citation(source) is None):
                bad.append((fact.id, source))
    assert not bad, bad[:10]
    assert (REFERENCE / "LICENSE").is_file() and (REFERENCE / "SOURCE.md").is_file()


def test_game_facts_agree_with_the_game_tables(sources, kg):
    from mhmmkg.builders.audit.reference import check_against_tables, read_tables

    disagreements = check_against_tables(kg, sources.queries, read_tables(REFERENCE))
    assert not disagreements, "\n".join(map(str, disagreements[:20]))


def test_no_two_attack_captions_are_near_copies(kg):
    from mhmmkg.builders.audit.captions import near_copies

    pairs = near_copies(kg)
    assert not pairs, "\n".join(map(str, pairs[:20]))


def test_recognition_needs_perceiving(sources, kg):
    from mhmmkg.builders.audit.cli import SHORTCUT_CEILING
    from mhmmkg.shortcut import MEASURES, recognition_shortcut

    shortcut = recognition_shortcut(kg, sources.queries)
    assert len(shortcut.measured) == sum(q.subtask == 2 for q in sources.queries)
    assert SHORTCUT_CEILING <= SHORTCUT_TOP1_CEILING
    over = {m: shortcut.share(m, 1) for m in MEASURES if shortcut.share(m, 1) > SHORTCUT_TOP1_CEILING}
    assert not over, f"top-1 share over {SHORTCUT_TOP1_CEILING:.0%}: {over} ({shortcut.figures()})"


def test_every_monster_fact_is_sourced_or_marked_unverified(kg):
    owned = {e.id for e in kg.entities if e.monster or e.type == "monster"}
    facts = [e for e in kg.entities if e.id in owned] + [r for r in kg.relations if r.head in owned]
    bare = [f.id for f in facts if not f.sources and not f.unverified]
    assert not bare, bare[:20]


def test_no_answer_rests_on_an_unverified_fact(sources, kg):
    from mhmmkg.stats import rests_on_unverified

    shaky = [q.id for q in sources.queries if rests_on_unverified(kg, q)]
    assert not shaky, shaky


def test_every_scene_query_has_a_perception_text_in_the_third_person(sources):
    from mhmmkg.bm25 import words

    scenes = [q for q in sources.queries if q.subtask in SCENE_SUBTASKS]
    missing = [q.id for q in scenes if not (q.perception or "").strip()]
    first_person = [(q.id, sorted(set(words(q.perception)) & FIRST_PERSON)) for q in scenes
                    if q.perception and set(words(q.perception)) & FIRST_PERSON]
    assert not missing and not first_person, \
        f"{len(missing)} without perception text: {missing[:15]}; {len(first_person)} in the first person: {first_person[:10]}"


def test_no_source_is_the_bare_repository_url(kg):
    from mhmmkg.provenance import AUTHORS_REPOSITORY

    bare = [f.id for f in [*kg.entities, *kg.relations] if any(s.rstrip("/") == AUTHORS_REPOSITORY for s in f.sources)]
    assert not bare, f"{len(bare)} facts cite {AUTHORS_REPOSITORY}: {bare[:15]}"


@pytest.mark.skipif(not QUESTION_LIST.is_file(), reason="the authors' question list is not present")
def test_every_authors_list_citation_is_backed_by_its_row(kg):
    from mhmmkg.builders.audit.authors_list import RowIndex, citation_problems

    problems = citation_problems(kg, RowIndex.read(QUESTION_LIST, kg))
    assert not problems, f"{len(problems)} unbacked: " + "\n".join(map(str, problems[:15]))


def test_most_facts_are_independently_sourced(sources, kg):
    from mhmmkg.provenance import provenance_figures

    figures = provenance_figures(kg, sources.queries)
    assert figures["independently_sourced"] >= MIN_INDEPENDENTLY_SOURCED, \
        {k: figures[k] for k in ("facts", "independently_sourced", "by_kind", "authors_list_only")}


def test_every_attack_phase_and_effect_says_where_its_name_comes_from(kg):
    from mhmmkg.provenance import NAME_ORIGIN_TYPES

    unset = [e.id for e in kg.entities if e.type in NAME_ORIGIN_TYPES and e.name_origin not in ("game", "descriptive")]
    assert not unset, f"{len(unset)} without name_origin: {unset[:15]}"


def test_no_query_path_passes_an_unsourced_condition(sources, kg):
    from mhmmkg.provenance import source_kinds

    def shaky(relation) -> bool:
        return bool(relation.condition) and (relation.unverified or not source_kinds(relation.sources))

    found = sorted({(q.id, r.id) for q in sources.queries for path in q.paths for a, b in zip(path, path[1:])
                    for r in kg.relations_between(a, b) if shaky(r)})
    assert not found, f"{len({q for q, _ in found})} queries pass {len({r for _, r in found})} relations " \
                      f"with an unsourced or unverified condition: {found[:10]}"


def test_every_query_has_an_answer_key(sources):
    missing = [q.id for q in sources.queries if q.key is None]
    assert not missing, f"{len(missing)} of {len(sources.queries)} queries have no key: {missing[:15]}"


def test_no_answer_key_names_an_unverified_entity(sources):
    """A key's entities are what the answer must name: like the paths, they rest on checked facts."""
    shaky = [(q.id, e) for q in sources.queries if q.key for e in q.key.entities
             if sources.entities[e].unverified or not sources.entities[e].sources]
    assert not shaky, f"answer keys naming an unverified or unsourced entity: {shaky}"
