"""Answer keys where people see the dataset: `mhmmkg info`, the dataset card and `render_key`."""
from __future__ import annotations

import json

import pytest

from conftest import build_keyed_dataset
from mhmmkg import load_graph
from mhmmkg.cli import main
from mhmmkg.model import AnswerKey
from mhmmkg.render import render_key

KEYS = {"wolf-002": {"kind": "entity", "entities": ["wolf.double-slam"]},
        "wolf-005": {"kind": "entity", "entities": ["wolf.spark"], "origin": "derived"},
        "wolf-004": {"kind": "text", "nuggets": [["enraged", "angry"]], "rivals": ["charged"]}}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    return build_keyed_dataset(tmp_path_factory.mktemp("keys"), KEYS)


def test_info_counts_queries_per_key_kind(keyed, capsys):
    assert main(["info", str(keyed), "--json"]) == 0
    keys = json.loads(capsys.readouterr().out)["answer_keys"]
    assert keys == {"with_key": 3, "without_key": 3, "by_kind": {"entity": 2, "entities": 0, "yes_no": 0, "text": 1},
                    "derived": 1}
    assert main(["info", str(keyed)]) == 0
    assert ("answer keys: 3 queries have one (entity 2, entities 0, yes_no 0, text 1; 1 derived by the importer), "
            "3 have none") in capsys.readouterr().out


def test_the_card_says_what_the_key_is_and_counts_them(keyed):
    card = (keyed / "README.md").read_text("utf-8")
    assert "The answer key (`key`, beside the reference text `answer`)" in card
    assert "answer keys: 3 queries have one" in card


def test_render_key_in_words(keyed):
    kg = load_graph(keyed)
    assert render_key(AnswerKey("yes_no", ("element.ice",), "no", (("stygian",),)), kg) == (
        "The answer is No. It must name: Ice Element (element; also called Ice). It must state: 'stygian'.")
    assert render_key(AnswerKey("text", nuggets=(("enraged", "angry"),), rivals=("charged",)), kg) == (
        "It must state: 'enraged' or 'angry'. Naming any of these is wrong: 'charged'.")
    assert render_key(AnswerKey("entities", ("prop.flash-pod", "wolf.bite")), kg).startswith(
        "The answer is all of: Flash Pod (prop); Bite (attack action);")
    assert render_key(None, kg) is None
