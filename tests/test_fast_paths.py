"""The fast paths of issue 23 give exactly what the slow paths they replace gave."""
from __future__ import annotations

import json

import pytest

from mhmmkg import jsontext


def _slow_outcome(text: str, control_characters: bool):
    """What loads_strict answered before its prefilter: the walk over every node."""
    value = json.loads(text)
    try:
        jsontext._check_value(value, (), control_characters)
    except jsontext.JSONTextError as exc:
        return ("error", exc.reason, exc.pointer)
    return ("ok", value)


def _fast_outcome(text: str, control_characters: bool):
    try:
        return ("ok", jsontext.loads_strict(text, control_characters=control_characters))
    except jsontext.JSONTextError as exc:
        return ("error", exc.reason, exc.pointer)


def _nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


TEXTS = [
    '{"a": "plain", "b": [1, 2, {"c": "d"}]}',
    '{"a": "\\ud800"}', '{"a": ["x", "\\uDBFF"]}', '{"\\udc00": 1}', '"\\ud83d\\ude00"',
    '{"a": "\\u0001"}', '{"a": "\\b"}', '{"a": "x\\fy"}', '{"a": "\\u007F"}', '{"a": "\\uFFFE"}',
    '{"a": "\\uffff"}', '{"a": "\\u001f"}', '{"a": "tab\\tnew\\nline\\r"}', '{"a": "\\u0009"}',
    '{"a": "\x7f"}', '{"a": "\ufffe"}', '{"k\x7f": 1}', '{"a": "\\\\b"}', '{"a": "\\\\ud800"}',
    '{"a": "\\/"}', '"\\u00e9t\\u00e9"', '[]', '{}', '3', '"\\u0000"',
    _nested(64), _nested(65), _nested(64, "[]"), _nested(63, '{"a": []}'), _nested(63, '{"a": [1]}'),
    _nested(64, '{}'), _nested(64, '{"a": 1}'), _nested(65, '"\\ud800"'),
    json.dumps({"deep": json.loads(_nested(70)), "bad": "\ud800"}),
]


@pytest.mark.parametrize("control_characters", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_loads_strict_prefilter_answers_as_the_full_walk(text, control_characters):
    assert _fast_outcome(text, control_characters) == _slow_outcome(text, control_characters)


def test_prefilter_lets_clean_text_skip_the_walk(monkeypatch):
    calls = []
    monkeypatch.setattr(jsontext, "_check_value", lambda *a: calls.append(a))
    jsontext.loads_strict('{"a": ["b", {"c": "d\\te"}]}', control_characters=False)
    assert calls == []
    jsontext.loads_strict('{"a": "\\ud800"}')
    assert len(calls) == 1


# --- GraphML: the stream writes the bytes networkx wrote ----------------------------------------

def _networkx_graphml(kg, path):
    import networkx as nx

    from mhmmkg.exports import to_networkx

    nx.write_graphml(to_networkx(kg), path)
    return path.read_bytes()


def _streamed_graphml(kg, path):
    from mhmmkg.exports import write_graphml

    write_graphml(kg, path)
    return path.read_bytes()


def _awkward_graph():
    from mhmmkg.graph import KnowledgeGraph
    from mhmmkg.model import Entity, Relation

    entities = [
        Entity("m", 'Rath & "Co" <x>', "monster", aliases=("a|b", "c\td"), text="line\nbreak\r\n& <tag>",
               sources=("s1", "s2"), unverified=True, name_origin="game"),
        Entity("m.x", "X", "attack_action", monster="m", caption="", text=None),
        Entity("lonely", "Lonely", "element"),
    ]
    relations = [
        Relation("m|has|m.x", "m", "m.x", "has_attack_action", "has", condition="", info="i & j"),
        Relation("m|causes|ghost", "m", "ghost", "causes", "causes", condition="when \"angry\""),
        Relation("m|also|m.x", "m", "m.x", "has_attack_action", "also"),
        Relation("m.x|to|m", "m.x", "m", "related_to", "to", sources=("s",), unverified=True),
        Relation("m|has|lonely", "m", "lonely", "related_to", "has"),
    ]
    return KnowledgeGraph(entities, relations)


def test_streamed_graphml_is_byte_identical_to_networkx_on_awkward_values(tmp_path):
    kg = _awkward_graph()
    assert _streamed_graphml(kg, tmp_path / "new.graphml") == _networkx_graphml(kg, tmp_path / "old.graphml")


def test_streamed_graphml_is_byte_identical_to_networkx_on_the_built_kg_and_an_empty_one(tmp_path, tiny_dataset):
    from mhmmkg import load_graph
    from mhmmkg.graph import KnowledgeGraph

    for name, kg in (("tiny", load_graph(tiny_dataset)), ("data", load_graph("data")), ("empty", KnowledgeGraph([], []))):
        new = _streamed_graphml(kg, tmp_path / f"{name}-new.graphml")
        assert new == _networkx_graphml(kg, tmp_path / f"{name}-old.graphml"), name
