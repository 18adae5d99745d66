"""JSON Schemas of the curated sources: accept/reject, and agreement with the dataset features."""
from __future__ import annotations

import dataclasses

import pytest

from conftest import TINY_QUERIES, TINY_SHARED, TINY_WOLF
from mhmmkg.features import FEATURES
from mhmmkg.model import ENTITY_TYPES, RELATION_TYPES, Entity, Query, Relation
from mhmmkg.schemas import load_schema, schema_problems, validator

MEDIA_COLUMNS = {"has_media", "images", "keyframes", "keyframe_source", "video"}
#: columns the builder derives and the curator never writes
DERIVED = {
    "graph": {"id", "label", "head_name", "head_type", "tail_name", "tail_type", "monster"},
    "attributes": {"monster"} | MEDIA_COLUMNS,
    "queries": {"subtask_name", "hops"} | MEDIA_COLUMNS,
}


def props(schema: str, *path: str) -> set[str]:
    node = load_schema(schema)
    for key in path:
        node = node[key]
    return set(node["properties"])


@pytest.mark.parametrize("name", ["common", "monster", "shared", "queries"])
def test_schemas_are_valid_draft_2020_12(name):
    validator(name).check_schema(load_schema(name))
    assert load_schema(name)["$schema"].endswith("2020-12/schema")


def test_source_fields_and_dataset_columns_agree():
    entity = props("common", "$defs", "entity") - {"media"}
    relation = props("common", "$defs", "relation")
    query = props("queries", "properties", "queries", "items") - {"media"}
    assert entity | DERIVED["attributes"] == set(FEATURES["attributes"])
    assert relation | DERIVED["graph"] == set(FEATURES["graph"])
    assert query | DERIVED["queries"] == set(FEATURES["queries"])


def test_model_records_carry_the_dataset_columns():
    fields = lambda cls: {f.name for f in dataclasses.fields(cls)}
    assert fields(Entity) == set(FEATURES["attributes"]) - (MEDIA_COLUMNS - {"has_media"})
    assert fields(Relation) == set(FEATURES["graph"]) - {"head_name", "head_type", "tail_name", "tail_type", "monster"}
    assert fields(Query) - {"images"} == set(FEATURES["queries"]) - (MEDIA_COLUMNS - {"has_media"}) - {"subtask_name", "hops"}


def test_type_enums_match_the_model():
    common = load_schema("common")["$defs"]
    assert tuple(common["entity"]["properties"]["type"]["enum"]) == ENTITY_TYPES
    assert tuple(common["relation"]["properties"]["type"]["enum"]) == RELATION_TYPES


@pytest.mark.parametrize("schema, doc", [("shared", TINY_SHARED), ("monster", TINY_WOLF), ("queries", TINY_QUERIES)])
def test_good_documents_are_accepted(schema, doc):
    assert schema_problems(schema, doc, "f.json") == []


@pytest.mark.parametrize("schema, doc, pointer", [
    ("monster", {"monster": "wolf", "entities": [], "relations": []}, "/entities"),
    ("monster", {"monster": "Wolf!", "entities": [{"id": "w", "name": "W", "type": "monster"}], "relations": []}, "/monster"),
    ("monster", {**TINY_WOLF, "relatoins": []}, ""),
    ("shared", {"entities": [{"id": "element.fire", "name": "Fire", "type": "monster"}]}, "/entities/0/type"),
    ("queries", {"queries": [{**TINY_QUERIES["queries"][0], "paths": [[]]}]}, "/queries/0/paths/0"),
    ("queries", {"queries": [{**TINY_QUERIES["queries"][0], "perception": None, "media": {"video": "../x.mp4"}}]}, "/queries/0/media/video"),
])
def test_bad_documents_are_rejected_at_their_pointer(schema, doc, pointer):
    problems = schema_problems(schema, doc, "f.json")
    assert problems and any(p.pointer == pointer for p in problems), problems
