"""Pictures people can read: columns that follow the graph's meaning, boxes that never overlap,
relations and conditions on hover rather than printed on every edge."""
from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mhmmkg.graph import KnowledgeGraph
from mhmmkg.layout import layered_layout, monster_picture, monster_svg, path_columns, semantic_columns
from mhmmkg.sources import load_sources

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"


def overlapping(boxes) -> list[tuple[str, str]]:
    return [(a.id, b.id) for a, b in itertools.combinations(boxes, 2)
            if a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h]


@pytest.fixture(scope="module")
def default_kg() -> KnowledgeGraph:
    sources = load_sources(ROOT / "data")
    return KnowledgeGraph(sources.entities.values(), sources.relations)


def test_columns_follow_the_meaning_of_the_tiny_wolf(tiny_sources):
    sources = load_sources(tiny_sources)
    sub = KnowledgeGraph(sources.entities.values(), sources.relations).subgraph("wolf")
    columns = semantic_columns(sub, "wolf")
    assert columns["wolf"] == 0
    assert columns["wolf.charged-phase"] == 1 and columns["element.ice"] == 1 and columns["prop.flash-pod"] == 1
    # the Double Slam opens combos that the Bite follows: the Bite sits right of it (or in a later column)
    assert 2 <= columns["wolf.double-slam"] <= columns["wolf.bite"]
    assert columns["wolf.spark"] == max(columns.values())


def test_the_largest_monster_has_no_overlapping_boxes_and_balanced_columns(default_kg):
    largest = max(default_kg.monsters(), key=lambda m: len(default_kg.subgraph(m.id))).id
    picture = monster_picture(default_kg, largest)
    assert overlapping(list(picture.layout.boxes.values())) == []
    per_column = {}
    for node, column in picture.layout.columns.items():
        per_column[column] = per_column.get(column, 0) + (default_kg.entity(node).type == "attack_action")
    assert max(per_column.values()) <= 8, per_column


def test_conditions_are_on_hover_not_printed(tiny_sources):
    sources = load_sources(tiny_sources)
    svg = monster_svg(KnowledgeGraph(sources.entities.values(), sources.relations), "wolf")
    root = ET.fromstring(svg)
    printed = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    hovers = [t.text for t in root.iter(f"{SVG}title")]
    assert "if the hunter is behind it" not in printed
    assert "Double Slam continues with Back Slam (if the hunter is behind it)" in hovers


def test_layout_of_query_paths_puts_each_hop_in_its_column():
    paths = [["m", "m.phase", "m.slam"], ["m", "m.slam", "m.spark"]]
    columns = path_columns(paths)
    assert columns == {"m": 0, "m.phase": 1, "m.slam": 1, "m.spark": 2}
    layout = layered_layout(columns, [("m", "m.phase"), ("m.phase", "m.slam"), ("m", "m.slam"), ("m.slam", "m.spark")],
                            label=str.upper, kind=lambda n: "attack_action")
    assert overlapping(list(layout.boxes.values())) == []
    xs = {n: b.x for n, b in layout.boxes.items()}
    assert xs["m"] < xs["m.phase"] < xs["m.spark"]
