"""A monster's picture as a player reads it: its moves grouped inside the phase they belong to.

Columns: the monster; its phases and what frames its fight (other monsters, elements, weapons,
props); its attack actions in combo order (openers left, the moves that follow to the right);
what the moves leave behind. Each phase is a band across the move columns holding its moves, so
the phase-to-move relation is shown by place, not by a fan of edges (a move of two phases sits
in the first and says "also in" the other). Edges never run behind a box (boxes sit at the left
of their column): an edge between neighbouring columns is a curve through the gap between them; any other edge runs down the gap
beside its column to a free lane between bands, along it, and up the gap beside its target.
Names that two entities of the picture share are told apart by kind ("Roar (move)", "Roar
(effect)") or by monster.
"""
from __future__ import annotations

import textwrap
from collections import defaultdict
from dataclasses import dataclass, field

from .graph import KnowledgeGraph
from .layout import (CHAR_WIDTH, COLOUR_OF_FAMILY, FAMILY_OF, LINE_HEIGHT, MARGIN, PAD_X, PAD_Y, RELATION_FAMILIES,
                     TYPE_COLOURS, WRAP, Box, EdgeStyle, Layout, Point, _combo_depth, _walk_order, family_style,
                     relation_title, render_svg)
from .model import Relation

KIND_WORDS = {"attack_action": "move", "attack_effect": "effect", "attack_phase": "phase", "monster": "monster",
              "element": "element", "weapon": "weapon", "prop": "prop"}
#: legend words for relation families whose name is also an entity kind
EDGE_WORDS = {"effect": "causes effect", "combo": "combo (continues with)", "counter": "stopped by"}
#: move columns inside a band, and moves stacked in one column of a band before another opens
MOVE_COLUMNS, PER_COLUMN = 4, 5
COLUMN_GAP, ROW_GAP, BAND_GAP, BAND_PAD = 70, 10, 30, 10
#: the band of moves no phase lists
ANY_PHASE = "any phase"


@dataclass(frozen=True)
class Band:
    """A phase's band: a rectangle holding the phase's box and its moves."""

    label: str
    colour: str
    x: float
    y: float
    w: float
    h: float
    #: print the label in the band (a band without a phase box of its own)
    titled: bool = False


@dataclass(frozen=True)
class MonsterPicture:
    layout: Layout
    edges: dict[tuple[str, str], tuple[str, EdgeStyle]]
    legend: list[tuple[str, str, str]]
    title: str
    bands: list[Band] = field(default_factory=list)
    #: each edge as a chain of cubic segments: start, then (control, control, end) per segment
    routes: dict[tuple[str, str], list[Point]] = field(default_factory=dict)


def picture_labels(sub: KnowledgeGraph) -> dict[str, str]:
    """Each entity's name; where two entities share one, the kind or the monster tells them apart."""
    by_name: dict[str, list] = defaultdict(list)
    for e in sub.entities:
        by_name[e.name.casefold()].append(e)
    labels = {}
    for same in by_name.values():
        kinds = [e.type for e in same]
        for e in same:
            if len(same) == 1:
                labels[e.id] = e.name
            elif kinds.count(e.type) == 1:
                labels[e.id] = f"{e.name} ({KIND_WORDS.get(e.type, e.type)})"
            else:
                owner = sub.entity(e.monster).name if e.monster and e.monster in sub else (e.monster or "shared")
                labels[e.id] = f"{e.name} ({owner})"
    return labels


def _box_size(lines: tuple[str, ...]) -> tuple[float, float]:
    return max(len(s) for s in lines) * CHAR_WIDTH + 2 * PAD_X, len(lines) * LINE_HEIGHT + 2 * PAD_Y


def monster_picture(kg: KnowledgeGraph, monster: str) -> MonsterPicture:
    sub = kg.subgraph(monster)
    name = picture_labels(sub)
    kind = {e.id: e.type for e in sub.entities}
    order = _walk_order(sub, monster)
    phases = sorted((e.id for e in sub.entities if e.type == "attack_phase"), key=order.get)
    moves = {e.id for e in sub.entities if e.type == "attack_action"}
    in_phases: dict[str, list[str]] = defaultdict(list)
    for r in sub.relations:
        if r.type == "has_attack_action" and r.head in phases and r.tail in moves:
            in_phases[r.tail].append(r.head)
    for lists in in_phases.values():
        lists.sort(key=phases.index)
    band_of = {m: in_phases[m][0] if in_phases[m] else ANY_PHASE for m in moves}
    combo = defaultdict(list)
    for r in sub.relations:
        if r.head in moves and r.tail in moves and r.type in ("continues_with", "has_attack_variant"):
            combo[r.head].append(r.tail)
    depth = _combo_depth(moves, combo, order)

    lines = {}
    for e in sub.entities:
        text = textwrap.wrap(name[e.id], WRAP, break_long_words=True) or ["?"]
        if e.id in moves and len(in_phases[e.id]) > 1:
            text += textwrap.wrap("also in " + ", ".join(name[p] for p in in_phases[e.id][1:]), WRAP + 4)
        lines[e.id] = tuple(text)
    size = {n: _box_size(ls) for n, ls in lines.items()}

    # moves of each band in grid cells (column by combo depth, at most PER_COLUMN to a column)
    band_names = [*phases, *([ANY_PHASE] if any(b == ANY_PHASE for b in band_of.values()) else [])]
    cells: dict[str, list[list[str]]] = {}
    for band in band_names:
        members = sorted((m for m in moves if band_of[m] == band), key=lambda m: (depth[m], order[m]))
        levels = sorted({depth[m] for m in members})
        columns: list[list[str]] = [[] for _ in range(MOVE_COLUMNS)]
        for m in members:
            k = min(levels.index(depth[m]) * MOVE_COLUMNS // max(len(levels), 1), MOVE_COLUMNS - 1) \
                if len(levels) > MOVE_COLUMNS else levels.index(depth[m])
            while len(columns[k]) >= PER_COLUMN and k < MOVE_COLUMNS - 1:
                k += 1
            columns[k].append(m)
        cells[band] = columns
    used_columns = max((i + 1 for cols in cells.values() for i, c in enumerate(cols) if c), default=0)
    context = sorted((e.id for e in sub.entities if e.id != monster and e.type not in ("attack_phase", "attack_action",
                                                                                    "attack_effect")),
                     key=lambda n: (list(TYPE_COLOURS).index(kind[n]) if kind[n] in TYPE_COLOURS else 99, order[n]))
    effects = sorted((e.id for e in sub.entities if e.type == "attack_effect"), key=order.get)

    # x of each column: 0 monster, 1 phases and context, 2.. moves, then effects
    widths = [size[monster][0], max((size[n][0] for n in [*phases, *context]), default=60)]
    widths += [max((size[m][0] for cols in cells.values() for m in cols[i]), default=60) for i in range(used_columns)]
    widths.append(max((size[n][0] for n in effects), default=0))
    lefts, x = [], MARGIN
    for w in widths:
        lefts.append(x)
        x += w + COLUMN_GAP
    boxes: dict[str, Box] = {}
    columns_of: dict[str, int] = {}

    def put(node: str, column: int, y: float) -> float:
        w, h = size[node]
        boxes[node] = Box(node, lines[node], kind[node], lefts[column], y, w, h)
        columns_of[node] = column
        return y + h

    y = MARGIN
    for n in context:
        y = put(n, 1, y) + ROW_GAP
    context_bottom = y - ROW_GAP
    bands: list[Band] = []
    band_right = lefts[1 + used_columns] - COLUMN_GAP / 2 if used_columns else lefts[2] - COLUMN_GAP / 2
    lanes = [MARGIN / 2, context_bottom + BAND_GAP / 2]
    y = context_bottom + BAND_GAP
    for band in band_names:
        top = y
        inner = top + BAND_PAD
        if band != ANY_PHASE:
            bottom = put(band, 1, inner)
        else:
            bottom = inner + LINE_HEIGHT
        for i, column in enumerate(cells[band]):
            cy = inner
            for m in column:
                cy = put(m, 2 + i, cy) + ROW_GAP
            bottom = max(bottom, cy - ROW_GAP)
        colour = TYPE_COLOURS["attack_phase"] if band != ANY_PHASE else "#9aa5b1"
        label = name[band] if band != ANY_PHASE else "moves of any phase"
        bands.append(Band(label, colour, lefts[1] - BAND_PAD, top, band_right - lefts[1] + BAND_PAD, bottom + BAND_PAD - top,
                          titled=band == ANY_PHASE))
        y = bottom + BAND_PAD + BAND_GAP
        lanes.append(y - BAND_GAP / 2)
    height = max(y - BAND_GAP + MARGIN, context_bottom + MARGIN)
    put(monster, 0, (height - size[monster][1]) / 2)
    _place_effects(effects, sub, boxes, size, lines, kind, lefts[-1], widths[-1], columns_of, len(lefts) - 1, height)
    height = max(height, max((b.y + b.h for b in boxes.values()), default=0) + MARGIN)
    lanes.append(height - MARGIN / 2)
    layout = Layout(boxes, columns_of, lefts[-1] + widths[-1] + MARGIN + 30, height)

    by_pair: dict[tuple[str, str], list[Relation]] = defaultdict(list)
    for r in sub.relations:
        grouped = r.type == "has_attack_action" and r.tail in moves and (
            r.head == band_of[r.tail] or (r.head == monster and band_of[r.tail] == ANY_PHASE) or r.head in in_phases[r.tail])
        if not grouped:
            by_pair[(r.head, r.tail)].append(r)
    full = lambda n: sub.entity(n).name  # noqa: E731
    edges = {pair: (relation_title(rels, full), family_style(FAMILY_OF[rels[0].type])) for pair, rels in by_pair.items()}
    routes = Router(layout, lefts, widths, lanes).routes(sorted(edges))
    used_types = sorted({e.type for e in sub.entities}, key=list(TYPE_COLOURS).index)
    used_families = [f for f in RELATION_FAMILIES if any(FAMILY_OF[rels[0].type] == f for rels in by_pair.values())]
    legend = [("node", TYPE_COLOURS[t], KIND_WORDS.get(t, t.replace("_", " "))) for t in used_types]
    legend += [("edge", COLOUR_OF_FAMILY[f], EDGE_WORDS.get(f, f)) for f in used_families]
    legend.append(("band", TYPE_COLOURS["attack_phase"], "a phase and its moves"))
    title = f"{sub.entity(monster).name}: {len(sub)} entities, {len(sub.relations)} relations"
    return MonsterPicture(layout, edges, legend, title, bands, routes)


def _place_effects(effects, sub, boxes, size, lines, kind, left, width, columns_of, column, height) -> None:
    """Effects in the last column, each as near as it can be to the middle of the moves that cause it."""
    def wanted(n: str) -> float:
        sources = [boxes[r.head].mid_y for r in sub.relations if r.tail == n and r.head in boxes]
        return sum(sources) / len(sources) if sources else height / 2

    y = MARGIN
    for n in sorted(effects, key=wanted):
        w, h = size[n]
        top = max(y, wanted(n) - h / 2)
        boxes[n] = Box(n, lines[n], kind[n], left, top, w, h)
        columns_of[n] = column
        y = top + h + ROW_GAP


class Router:
    """Edge routes that keep off boxes (see the module's docstring). Parallel runs in one gap or
    lane are spread a few units apart so they stay distinguishable."""

    STEP, SPREAD = 4, 7

    def __init__(self, layout: Layout, lefts: list[float], widths: list[float], lanes: list[float]):
        self.layout, self.lefts, self.widths, self.lanes = layout, lefts, widths, sorted(lanes)
        self.used: dict[tuple, int] = defaultdict(int)

    def _offset(self, key: tuple) -> float:
        k = self.used[key]
        self.used[key] += 1
        return ((k % self.SPREAD) - self.SPREAD // 2) * self.STEP

    def routes(self, pairs) -> dict[tuple[str, str], list[Point]]:
        return {pair: self.route(*pair) for pair in pairs if pair[0] in self.layout.boxes and pair[1] in self.layout.boxes}

    def route(self, head: str, tail: str) -> list[Point]:
        a, b = self.layout.boxes[head], self.layout.boxes[tail]
        ca, cb = self.layout.columns[head], self.layout.columns[tail]
        start = (a.x + a.w, a.mid_y)
        if cb == ca + 1:     # straight out of the column, then a curve through the gap
            edge = (self.lefts[ca] + self.widths[ca], a.mid_y)
            end = (b.x, b.mid_y)
            bend = (end[0] - edge[0]) / 2
            return [start, start, edge, edge, (edge[0] + bend, edge[1]), (end[0] - bend, end[1]), end]
        gap_a = self.lefts[ca] + self.widths[ca] + COLUMN_GAP / 2 + self._offset(("gap", ca))
        if ca == cb:
            return _polyline([start, (gap_a, start[1]), (gap_a, b.mid_y), (b.x + b.w, b.mid_y)])
        lane = min(self.lanes, key=lambda y: abs(y - a.mid_y) + abs(y - b.mid_y)) + self._offset(("lane", ca, cb))
        if cb > ca:
            gap_b = self.lefts[cb] - COLUMN_GAP / 2 + self._offset(("gap", cb - 1))
            end = (b.x, b.mid_y)
        else:
            gap_b = self.lefts[cb] + self.widths[cb] + COLUMN_GAP / 2 + self._offset(("gap", cb))
            end = (b.x + b.w, b.mid_y)
        return _polyline([start, (gap_a, start[1]), (gap_a, lane), (gap_b, lane), (gap_b, end[1]), end])


def _polyline(points: list[Point], radius: float = 8.0) -> list[Point]:
    """Straight runs with rounded corners, as a chain of cubic segments."""
    out = [points[0]]
    current = points[0]
    for i in range(1, len(points)):
        corner, nxt = points[i], points[i + 1] if i + 1 < len(points) else None
        if nxt is None:
            out += [current, corner, corner]
            break
        r_in = min(radius, _length(current, corner) / 2)
        r_out = min(radius, _length(corner, nxt) / 2)
        before = _towards(corner, current, r_in)
        after = _towards(corner, nxt, r_out)
        out += [current, before, before]
        out += [corner, corner, after]
        current = after
    return out


def _length(p: Point, q: Point) -> float:
    return ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5


def _towards(p: Point, q: Point, distance: float) -> Point:
    length = _length(p, q) or 1.0
    return (p[0] + (q[0] - p[0]) * distance / length, p[1] + (q[1] - p[1]) * distance / length)


def monster_svg(kg: KnowledgeGraph, monster: str) -> str:
    picture = monster_picture(kg, monster)
    return render_svg(picture.layout, picture.edges, title=picture.title + " (hover an edge for its relation and condition)",
                      legend=picture.legend, routes=picture.routes, bands=picture.bands)
