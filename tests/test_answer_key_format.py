"""The answer key and name origin fields: checked by the schema and the cross-file rules, carried
into the built dataset and read back by the loaders."""
from __future__ import annotations

import json

import datasets
import pytest

from conftest import write_json
from mhmmkg import load_graph, load_queries
from mhmmkg.builders.build import build_dataset
from mhmmkg.errors import InvalidInput
from mhmmkg.model import AnswerKey
from mhmmkg.sources import load_sources

KEYS = {
    "wolf-001": {"kind": "text", "nuggets": [["Thunder Wolf", "Thunder Wolf Wyvern"]], "rivals": ["Rath"]},
    "wolf-002": {"kind": "entity", "entities": ["wolf.double-slam"]},
    "wolf-004": {"kind": "yes_no", "polarity": "yes", "nuggets": [["enraged", "angry"]]},
    "wolf-006": {"kind": "entities", "entities": ["wolf.double-slam", "dark-wolf.double-slam"]},
}


def with_keys(src, keys):
    path = src / "queries" / "wolf.json"
    doc = json.loads(path.read_text())
    for q in doc["queries"]:
        if q["id"] in keys:
            q["key"] = keys[q["id"]]
    write_json(path, doc)


def test_keys_and_name_origin_travel_into_the_dataset_and_back(tiny_sources, tmp_path):
    with_keys(tiny_sources, KEYS)
    monster = json.loads((tiny_sources / "monsters" / "wolf.json").read_text())
    monster["entities"][2]["name_origin"] = "game"
    write_json(tiny_sources / "monsters" / "wolf.json", monster)
    out = tmp_path / "built"
    build_dataset(tiny_sources, out, quiet=True)

    by_id = {q.id: q for q in load_queries(out)}
    assert by_id["wolf-002"].key == AnswerKey(kind="entity", entities=("wolf.double-slam",))
    assert by_id["wolf-001"].key.nuggets == (("Thunder Wolf", "Thunder Wolf Wyvern"),)
    assert by_id["wolf-004"].key.polarity == "yes"
    assert by_id["wolf-003"].key is None
    assert {q.id: q.key for q in load_queries(tiny_sources)} == {i: q.key for i, q in by_id.items()}
    assert load_graph(out).entity("wolf.double-slam").name_origin == "game"
    assert load_graph(out).entity("wolf.bite").name_origin is None

    rows = datasets.load_dataset(str(out), "queries", split="test", cache_dir=str(tmp_path / "cache"))
    row = {r["id"]: r for r in rows}["wolf-006"]
    assert row["key"]["kind"] == "entities"
    assert row["key"]["entities"] == ["wolf.double-slam", "dark-wolf.double-slam"]


@pytest.mark.parametrize("key, where", [
    ({"kind": "entity", "entities": ["wolf.nosuch"]}, "/key/entities/0"),
    ({"kind": "entity", "entities": ["wolf.bite", "wolf.double-slam"]}, "/key"),
    ({"kind": "entities", "entities": ["wolf.bite"]}, "/key"),
    ({"kind": "yes_no", "nuggets": [["x"]]}, "/key"),
    ({"kind": "entity", "entities": ["wolf.bite"], "polarity": "yes"}, "/key"),
    ({"kind": "text"}, "/key"),
    ({"kind": "text", "nuggets": [[]]}, "/key/nuggets/0"),
    ({"kind": "maybe", "entities": ["wolf.bite"]}, "/key/kind"),
])
def test_a_malformed_key_is_reported_with_its_place(tiny_sources, key, where):
    with_keys(tiny_sources, {"wolf-002": key})
    with pytest.raises(InvalidInput) as caught:
        load_sources(tiny_sources)
    pointers = [p.pointer for p in caught.value.problems]
    assert any(p.startswith("/queries/1" + where) for p in pointers), pointers
