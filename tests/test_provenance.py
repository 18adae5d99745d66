"""Provenance of facts: ``sources`` and ``unverified`` travel from the curated JSON into both KG
configs and the graph API, are counted by ``info``, and are checked by the schema."""
from __future__ import annotations

import copy
import json

import datasets
import pytest

from conftest import TINY_WOLF, write_json, write_tiny_sources
from mhmmkg.builders.build import build_dataset
from mhmmkg.loading import load_graph
from mhmmkg.schemas import schema_problems
from mhmmkg.sources import graph_from_sources, load_sources
from mhmmkg.stats import compute_stats

TABLE = "mhworlddata:monster_weaknesses.csv"
PAGE = "https://example.org/wolf-guide"
ROW = "authors-list:Wolf_Spark#answer"
REPOSITORY = "https://github.com/wbw520/MH-MMKG"


def sourced_wolf() -> dict:
    wolf = copy.deepcopy(TINY_WOLF)
    entities = {e["id"]: e for e in wolf["entities"]}
    entities["wolf"]["sources"] = [PAGE]
    entities["wolf.back-slam"]["unverified"] = True
    entities["wolf.spark"]["sources"] = [ROW]
    entities["wolf.spark"]["name_origin"] = "descriptive"
    entities["wolf.bite"]["name_origin"] = "game"
    for relation in wolf["relations"]:
        if relation["type"] == "mostly_weak_to":
            relation["sources"] = [TABLE]
        if relation["type"] == "has_attack_phase":
            relation["sources"] = [REPOSITORY]
        if (relation["head"], relation["tail"]) == ("wolf", "wolf.bite"):
            relation["unverified"] = True
    return wolf


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("provenance")
    src = write_tiny_sources(root / "src")
    write_json(src / "monsters" / "wolf.json", sourced_wolf())
    out = root / "mh-mmkg"
    build_dataset(src, out, quiet=True)
    return src, out


def test_sources_and_unverified_reach_both_kg_configs(built):
    _, out = built
    attributes = datasets.load_dataset(str(out), "attributes", split="kg").to_pandas().set_index("id")
    graph = datasets.load_dataset(str(out), "graph", split="kg").to_pandas().set_index("id")
    assert list(attributes.loc["wolf", "sources"]) == [PAGE]
    assert list(attributes.loc["wolf.bite", "sources"]) == []
    assert attributes["unverified"].to_dict() == {i: i == "wolf.back-slam" for i in attributes.index}
    assert list(graph.loc["wolf|mostly_weak_to|element.ice", "sources"]) == [TABLE]
    assert graph["unverified"].sum() == 1 and graph.loc["wolf|has_attack_action|wolf.bite", "unverified"]


def test_graph_api_keeps_provenance_from_a_build_and_from_sources(built):
    src, out = built
    for kg in (load_graph(out), graph_from_sources(src)):
        assert kg.entity("wolf").sources == (PAGE,)
        assert kg.entity("wolf.back-slam").unverified and not kg.entity("wolf").unverified
        weakness = [r for r in kg.relations if r.type == "mostly_weak_to"]
        assert [r.sources for r in weakness] == [(TABLE,)]


def test_info_counts_sourced_and_unverified_facts(built):
    src, _ = built
    sources = load_sources(src)
    provenance = compute_stats(graph_from_sources(src), sources.queries)["provenance"]
    facts = len(sources.entities) + len(sources.relations)
    assert provenance["facts"] == facts
    assert provenance["with_source"] == round(3 / facts, 3)   # the bare repository URL is no source
    assert provenance["by_kind"] == {"table": round(1 / facts, 3), "authors_list": round(1 / facts, 3),
                                     "page": round(1 / facts, 3)}
    assert provenance["independently_sourced"] == round(2 / facts, 3)
    assert provenance["authors_list_only"] == round(2 / facts, 3)   # the row, and the repository URL
    assert provenance["repository_url"] == 1
    assert provenance["relations_independently_sourced"]["mostly_weak_to"] == 1.0
    assert provenance["relations_independently_sourced"]["has_attack_phase"] == 0.0
    assert provenance["entities_independently_sourced"]["monster"] == 0.5
    assert provenance["entities_independently_sourced"]["attack_effect"] == 0.0
    assert provenance["unverified"] == {"entities": 1, "relations": 1}
    assert provenance["queries_on_unverified"] == 2   # wolf-003 and wolf-004 reach the unverified Back Slam
    # every query through the phase hop or the Spark Trail: wolf-002, -003, -005, -006
    assert provenance["queries_on_authors_list_only"] == 4
    assert provenance["name_origin"] == {"attack_action": {"game": 1, "descriptive": 0, "unset": 3},
                                         "attack_phase": {"game": 0, "descriptive": 0, "unset": 1},
                                         "attack_effect": {"game": 0, "descriptive": 1, "unset": 1}}


def test_card_reports_provenance(built):
    _, out = built
    card = (out / "README.md").read_text("utf-8")
    assert "unverified: 1 entities, 1 relations" in card
    assert "share independently sourced (a game table or a public page): 7.7%" in card
    assert "row of the authors' question list 3.8%" in card
    assert "name origin: attack_action game 1, descriptive 0, unset 3;" in card


@pytest.mark.parametrize("field, value, reason", [
    ("sources", [], "should be non-empty"),
    ("sources", ["a", "a"], "non-unique"),
    ("sources", [""], "should be non-empty"),
    ("unverified", "yes", "is not of type 'boolean'"),
])
def test_schema_refuses_malformed_provenance(field, value, reason):
    wolf = copy.deepcopy(TINY_WOLF)
    wolf["entities"][0][field] = value
    problems = schema_problems("monster", json.loads(json.dumps(wolf)), "wolf.json")
    assert problems and problems[0].pointer.startswith(f"/entities/0/{field}")
    assert reason in problems[0].reason
