"""Pictures people can read: columns that follow the graph's meaning, boxes that never overlap,
relations and conditions on hover rather than printed on every edge."""
from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mhmmkg.graph import KnowledgeGraph
from mhmmkg.layout import layered_layout, path_columns, semantic_columns
from mhmmkg.monster_layout import monster_picture, monster_svg, picture_labels
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
    for band in picture.bands:
        inside = [b for b in picture.layout.boxes.values() if band.y <= b.y and b.y + b.h <= band.y + band.h
                  and band.x <= b.x and b.x + b.w <= band.x + band.w]
        per_column = {}
        for box in inside:
            per_column[box.x] = per_column.get(box.x, 0) + 1
        assert max(per_column.values(), default=0) <= 6, (band.label, per_column)


def on_route(points, steps: int = 24):
    """Points along a route (a chain of cubic segments)."""
    for i in range(1, len(points), 3):
        p0, c1, c2, p1 = points[i - 1], *points[i:i + 3]
        for k in range(steps + 1):
            t = k / steps
            yield tuple((1 - t) ** 3 * a + 3 * (1 - t) ** 2 * t * b + 3 * (1 - t) * t * t * c + t ** 3 * d
                        for a, b, c, d in zip(p0, c1, c2, p1))


def test_no_edge_runs_behind_a_box_and_moves_sit_in_their_phase(default_kg):
    for monster in ("zinogre", "stygian-zinogre", max(default_kg.monsters(), key=lambda m: len(default_kg.subgraph(m.id))).id):
        picture = monster_picture(default_kg, monster)
        boxes = picture.layout.boxes
        for (a, b), route in picture.routes.items():
            for x, y in on_route(route):
                hit = [n for n, box in boxes.items() if n not in (a, b)
                       and box.x + 1 < x < box.x + box.w - 1 and box.y + 1 < y < box.y + box.h - 1]
                assert not hit, (monster, a, b, hit)
        sub = default_kg.subgraph(monster)
        phases = {band.label: band for band in picture.bands}
        for r in sub.relations:
            if r.type == "has_attack_action" and sub.entity(r.head).type == "attack_phase":
                band, box = phases[picture_labels(sub)[r.head]], boxes[r.tail]
                placed = band.y <= box.y and box.y + box.h <= band.y + band.h
                assert placed or any(line.startswith("also in") for line in box.lines), (monster, r.head, r.tail)
                assert (r.head, r.tail) not in picture.edges, "a phase's moves are grouped, not linked"


def test_weakness_and_resistance_differ_and_every_edge_has_an_arrowhead(default_kg):
    picture = monster_picture(default_kg, "zinogre")
    by_type = {r.type: picture.edges[(r.head, r.tail)][1] for r in default_kg.subgraph("zinogre").relations
               if (r.head, r.tail) in picture.edges}
    assert by_type["resistant_to"].colour != by_type["weak_to"].colour and by_type["resistant_to"].dashed
    svg = ET.fromstring(monster_svg(default_kg, "zinogre"))
    drawn = [p for p in svg.iter(f"{SVG}path") if p.get("stroke") not in (None, "transparent")]
    markers = {m.get("id"): m.find(f"{SVG}path").get("fill") for m in svg.iter(f"{SVG}marker")}
    assert drawn and all(markers[p.get("marker-end")[5:-1]] == p.get("stroke") for p in drawn)
    assert svg.get("width") == "100%" and svg.get("viewBox")


def test_shared_names_are_told_apart(default_kg):
    labels = picture_labels(default_kg.subgraph("zinogre"))
    assert labels["zinogre.roar"] == "Roar (move)" and labels["effect.roar"] == "Roar (effect)"
    both = KnowledgeGraph([*default_kg.subgraph("zinogre").entities, *default_kg.subgraph("stygian-zinogre").entities], [])
    labels = picture_labels(both)
    assert labels["zinogre.super-charged-phase"] == "Super Charged Phase (Zinogre)"
    assert labels["stygian-zinogre.super-charged-phase"] == "Super Charged Phase (Stygian Zinogre)"


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


def test_drawing_one_monster_reads_only_its_part_and_draws_the_same(tiny_sources, tmp_path):
    from mhmmkg.builders.build import build_dataset
    from mhmmkg.draw import monster_graph
    from mhmmkg.loading import load_graph

    built = tmp_path / "built"
    build_dataset(tiny_sources, built, quiet=True)
    whole = load_graph(built)
    part, monster = monster_graph(built, "Thunder Wolf")
    assert monster == "wolf" and len(part) < len(whole)
    assert {e.id for e in part.entities} == {e.id for e in whole.subgraph("wolf").entities}
    assert monster_svg(part, monster) == monster_svg(whole, monster)
