"""The authors' question list as a source: which rows back which fact (resolved routes, answers),
the conversion of the bare repository URL into row citations, and the audit's check that every
``authors-list:`` citation is backed by its row; on the tiny sources and a question list written
here with openpyxl."""
from __future__ import annotations

import copy
import json

import pytest

from conftest import TINY_WOLF, write_json, write_tiny_sources
from mhmmkg.builders.audit.authors_list import (MAX_ROWS, RowIndex, citation_problems, convert_repo_citations,
                                                parse_citation)
from mhmmkg.cli import main
from mhmmkg.sources import graph_from_sources
from official_release import write_question_list
from test_audit import write_tables

REPO = "https://github.com/wbw520/MH-MMKG"
PAGE = "https://example.org/wolf-guide"


def row(file, route, answer, subtask=1, monster="Wolf"):
    return (file, None, None, "Which attack is {} using?", monster, None, "It rears up.", route, answer, subtask)


ROWS = [
    row("Wolf_Double Slam", "Wolf>Charged Phase>Double Slam", "Double Slam"),
    row("Wolf_Combo", "Wolf>Charged Phase>Double Slam>Back Slam", "It follows with a Back Slam.", 2),
    row("Wolf_Pure Text1", "Wolf>Dark Wolf>Double Slam", "Dark Wolf", 5),
    row("Wolf_Burn", "Wolf>Tail Spin;Wolf>Bite", "Fireblight", 4),
]


@pytest.fixture
def setup(tmp_path):
    src = write_tiny_sources(tmp_path / "src")
    xlsx = write_question_list(tmp_path / "question_list.xlsx", ROWS)
    return src, xlsx


def index_of(src, xlsx) -> RowIndex:
    return RowIndex.read(xlsx, graph_from_sources(src))


def test_rows_back_the_entities_and_hops_of_their_resolved_routes(setup):
    index = index_of(*setup)
    assert index.citations(("wolf.charged-phase", "wolf.double-slam")) == [
        "authors-list:Wolf_Double Slam#route", "authors-list:Wolf_Combo#route"]
    assert index.citations(("wolf.double-slam", "wolf.back-slam")) == ["authors-list:Wolf_Combo#route"]
    assert index.citations(("wolf.back-slam", "wolf.double-slam")) == []     # a hop backs one direction only
    assert index.citations(("wolf", "dark-wolf")) == ["authors-list:Wolf_Pure Text1#route"]
    assert index.citations("dark-wolf.double-slam") == ["authors-list:Wolf_Pure Text1#route"]
    # "Wolf>Tail Spin" names nothing the KG has: that route backs nothing, the row's other route does
    assert index.citations(("wolf", "wolf.bite")) == ["authors-list:Wolf_Burn#route"]
    assert index.citations("wolf.spark") == []


def test_answers_back_the_entities_they_name_the_longest_name_winning(setup):
    index = index_of(*setup)
    assert index.citations("effect.fireblight") == ["authors-list:Wolf_Burn#answer"]
    assert "authors-list:Wolf_Combo#answer" in index.citations("wolf.back-slam")
    # "Dark Wolf" names the subspecies, not the Wolf inside its name
    assert "authors-list:Wolf_Pure Text1#answer" in index.citations("dark-wolf")
    assert not any(c.endswith("#answer") for c in index.citations("wolf"))


def test_at_most_max_rows_per_fact_first_in_list_order_routes_before_answers(setup):
    index = index_of(*setup)
    assert MAX_ROWS == 3
    assert index.citations("wolf") == ["authors-list:Wolf_Double Slam#route", "authors-list:Wolf_Combo#route",
                                       "authors-list:Wolf_Pure Text1#route"]
    assert index.citations("wolf.double-slam") == ["authors-list:Wolf_Double Slam#route",
                                                   "authors-list:Wolf_Combo#route",
                                                   "authors-list:Wolf_Double Slam#answer"]


@pytest.mark.parametrize("source, fact, reason", [
    ("authors-list:Wolf_Combo", "wolf.double-slam", "malformed citation"),
    ("authors-list:Wolf_Combo#caption", "wolf.double-slam", "malformed citation"),
    ("authors-list: Wolf_Combo#route", "wolf.double-slam", "malformed citation"),
    ("authors-list:Wolf_Nothing#route", "wolf.double-slam", "no row of the question list has File 'Wolf_Nothing'"),
    ("authors-list:Wolf_Double Slam#route", "wolf.back-slam", "entity wolf.back-slam is not on a route of that row"),
    ("authors-list:Wolf_Combo#route", ("wolf.back-slam", "wolf.double-slam"),
     "the hop wolf.back-slam -> wolf.double-slam is not on a route of that row"),
    ("authors-list:Wolf_Combo#answer", ("wolf.double-slam", "wolf.back-slam"), "an answer backs entities, not a relation"),
    ("authors-list:Wolf_Burn#answer", "wolf.bite", "that row's answer does not name wolf.bite"),
])
def test_a_citation_its_row_does_not_back_is_named_with_the_reason(setup, source, fact, reason):
    index = index_of(*setup)
    assert reason in index.problem(source, fact)


def test_backed_citations_pass(setup):
    index = index_of(*setup)
    assert index.problem("authors-list:Wolf_Combo#route", ("wolf.double-slam", "wolf.back-slam")) is None
    assert index.problem("authors-list:Wolf_Burn#answer", "effect.fireblight") is None
    assert parse_citation("authors-list:Wolf_Pure Text1#route") == ("Wolf_Pure Text1", "route")


def repo_cited_sources(src):
    wolf = copy.deepcopy(TINY_WOLF)
    entities = {e["id"]: e for e in wolf["entities"]}
    entities["wolf.double-slam"]["sources"] = [PAGE, REPO]
    entities["wolf.spark"]["sources"] = [REPO]
    for relation in wolf["relations"]:
        if (relation["head"], relation["tail"]) in {("wolf.double-slam", "wolf.back-slam"),
                                                    ("wolf.back-slam", "wolf.double-slam")}:
            relation["sources"] = [REPO]
    write_json(src / "monsters" / "wolf.json", wolf)
    return src / "monsters" / "wolf.json"


def test_conversion_replaces_the_repository_url_where_rows_back_the_fact(setup, capsys):
    src, xlsx = setup
    path = repo_cited_sources(src)
    before = path.read_text("utf-8")
    assert main(["audit", str(src), "--cite-authors-list", str(xlsx)]) == 0
    assert "2 facts cited the repository and now cite 4 question-list rows; 2 repository URLs remain" \
        in capsys.readouterr().out
    assert path.read_text("utf-8") == before                     # a dry run writes nothing
    assert main(["audit", str(src), "--cite-authors-list", str(xlsx), "--write"]) == 0
    after = path.read_text("utf-8")
    doc = json.loads(after)
    entities = {e["id"]: e for e in doc["entities"]}
    assert entities["wolf.double-slam"]["sources"] == [PAGE, "authors-list:Wolf_Double Slam#route",
                                                       "authors-list:Wolf_Combo#route",
                                                       "authors-list:Wolf_Double Slam#answer"]
    assert entities["wolf.spark"]["sources"] == [REPO]          # no row shows it: the URL stays
    hops = {(r["head"], r["tail"]): r.get("sources") for r in doc["relations"]}
    assert hops["wolf.double-slam", "wolf.back-slam"] == ["authors-list:Wolf_Combo#route"]
    assert hops["wolf.back-slam", "wolf.double-slam"] == [REPO]
    changed = set(before.splitlines()) ^ set(after.splitlines())
    assert changed and all("authors-list:" in line or REPO in line for line in changed)   # only sources lines
    assert not citation_problems(graph_from_sources(src), index_of(src, xlsx))


def test_audit_checks_every_citation_against_its_row(setup, tmp_path, capsys):
    src, xlsx = setup
    repo_cited_sources(src)
    convert = convert_repo_citations(src, index_of(src, xlsx))
    assert convert.facts_converted == 2 and convert.row_citations == 4 and convert.repo_urls_left == 2
    wolf = copy.deepcopy(TINY_WOLF)
    for relation in wolf["relations"]:
        if relation["type"] == "mostly_weak_to":
            relation["sources"] = ["authors-list:Wolf_Combo#route"]       # no route of that row reaches Ice
    write_json(src / "monsters" / "wolf.json", wolf)
    tables = write_tables(tmp_path / "tables")
    assert main(["audit", str(src), "--tables", str(tables), "--json", "--question-list", str(xlsx)]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert findings["unbacked_authors_list_citations"] == [
        "wolf|mostly_weak_to|element.ice:sources: authors-list:Wolf_Combo#route: "
        "the hop wolf -> element.ice is not on a route of that row"]
    main(["audit", str(src), "--tables", str(tables)])
    assert "Authors'-list citations: not checked" in capsys.readouterr().out


def test_a_bad_question_list_is_a_clear_error(setup, tmp_path, capsys):
    src, _ = setup
    bad = write_question_list(tmp_path / "bad.xlsx", [row("Wolf_X", "Wolf>Bite", "Bite", monster="Nobody")])
    assert main(["audit", str(src), "--cite-authors-list", str(bad), "--write"]) == 2
    err = capsys.readouterr().err
    assert "bad.xlsx:row 2: unknown monster 'Nobody'" in err and "Traceback" not in err
    assert main(["audit", str(src), "--write"]) == 2
    assert "--write only applies with --cite-authors-list" in capsys.readouterr().err
