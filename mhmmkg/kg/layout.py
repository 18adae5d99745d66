"""Readable pictures of KG subgraphs: a layered layout and its SVG.

Entities sit in columns that follow the graph's meaning (the monster, then its phases and what
frames its fight, then its attack actions in combo order, then what the moves leave behind), or
for a query, the hop at which a path reaches them. Rows are ordered to keep edges short (a few
barycentre sweeps), boxes are sized to their label, so nothing overlaps. Edges carry no text: the
relation, its condition and its note show when the pointer rests on them (an SVG ``<title>``).
Pure Python and deterministic, so the same graph always gives the same picture.
"""
from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape

from .graph import KnowledgeGraph
from .model import Relation

TYPE_COLOURS = {
    "attack_phase": "#8e44ad",
    "monster": "#c0392b",
    "attack_action": "#2e6da4",
    "element": "#27ae60",
    "weapon": "#8c564b",
    "prop": "#e67e22",
    "attack_effect": "#c2185b",
}
#: edge colour by what the relation means
RELATION_FAMILIES = {
    "structure": (("has_attack_action", "has_attack_phase", "has_attack_variant"), "#9aa5b1"),
    "combo": (("continues_with",), "#2e6da4"),
    "phase change": (("changes_phase_to", "turns_to"), "#8e44ad"),
    "weakness": (("mostly_weak_to", "weak_to"), "#27ae60"),
    "resistance": (("resistant_to",), "#5d6d7e"),
    "materials": (("provides_materials_for",), "#8c564b"),
    "counter": (("can_be_stopped_by",), "#e67e22"),
    "effect": (("generates", "causes"), "#c2185b"),
    "monster link": (("mated_pair_with", "has_subspecies", "subspecies_of"), "#c0392b"),
}
FAMILY_OF = {t: name for name, (types, _) in RELATION_FAMILIES.items() for t in types}
COLOUR_OF_FAMILY = {name: colour for name, (_, colour) in RELATION_FAMILIES.items()}

CHAR_WIDTH, LINE_HEIGHT, PAD_X, PAD_Y = 6.6, 14, 8, 6
COLUMN_GAP, ROW_GAP, MARGIN, LOOP_ROOM = 64, 10, 16, 56
WRAP = 22


@dataclass(frozen=True)
class Box:
    id: str
    lines: tuple[str, ...]
    type: str
    x: float
    y: float
    w: float
    h: float

    @property
    def mid_y(self) -> float:
        return self.y + self.h / 2


@dataclass(frozen=True)
class Layout:
    boxes: dict[str, Box]
    columns: dict[str, int]
    width: float
    height: float


def semantic_columns(sub: KnowledgeGraph, root: str) -> dict[str, int]:
    """Columns by role: monster 0; phases and the monster's context (other monsters, elements,
    weapons, props) 1; attack actions from 2 on, in combo order (openers left, the moves that
    follow them to the right), about six to a column and at most four columns; effects last."""
    attacks = {e.id for e in sub.entities if e.type == "attack_action"}
    combo = defaultdict(list)
    for r in sub.relations:
        if r.head in attacks and r.tail in attacks and r.type in ("continues_with", "has_attack_variant"):
            combo[r.head].append(r.tail)
    order = _walk_order(sub, root)
    depth = _combo_depth(attacks, combo, order)
    in_combo_order = sorted(attacks, key=lambda a: (depth[a], order[a]))
    per_column = -(-len(attacks) // max(1, min(4, -(-len(attacks) // 6))))
    layer = {a: i // per_column for i, a in enumerate(in_combo_order)}
    last_attack = 2 + max(layer.values(), default=0)
    columns = {}
    for e in sub.entities:
        if e.id == root:
            columns[e.id] = 0
        elif e.type == "attack_action":
            columns[e.id] = 2 + layer[e.id]
        elif e.type == "attack_effect":
            columns[e.id] = last_attack + 1
        else:
            columns[e.id] = 1
    return columns


def _walk_order(sub: KnowledgeGraph, root: str) -> dict[str, int]:
    """Breadth-first discovery order from the root (then by id), the tie-break everywhere."""
    order, frontier = {root: 0}, [root]
    while frontier:
        nxt = []
        for node in frontier:
            for n in sorted((nb.entity.id for nb in sub.neighbours(node)), key=str):
                if n not in order:
                    order[n] = len(order)
                    nxt.append(n)
        frontier = nxt
    for e in sorted(sub.entities, key=lambda e: e.id):
        order.setdefault(e.id, len(order))
    return order


def _combo_depth(attacks: set[str], combo: dict[str, list[str]], order: dict[str, int]) -> dict[str, int]:
    """Longest chain of moves each attack follows in combos, loops broken where a walk meets itself."""
    acyclic: dict[str, list[str]] = defaultdict(list)
    state: dict[str, int] = {}

    def visit(node: str) -> None:
        state[node] = 1
        for nxt in sorted(combo.get(node, ()), key=order.get):
            if state.get(nxt) == 1:
                continue
            acyclic[node].append(nxt)
            if nxt not in state:
                visit(nxt)
        state[node] = 2

    for node in sorted(attacks, key=order.get):
        if node not in state:
            visit(node)
    predecessors: dict[str, list[str]] = defaultdict(list)
    for head, tails in acyclic.items():
        for tail in tails:
            predecessors[tail].append(head)
    depth: dict[str, int] = {}
    for node in _topological(attacks, acyclic, order):
        depth[node] = max((depth[p] + 1 for p in predecessors[node]), default=0)
    return depth


def _topological(nodes: set[str], edges: dict[str, list[str]], order: dict[str, int]) -> list[str]:
    indegree = {n: 0 for n in nodes}
    for targets in edges.values():
        for t in targets:
            indegree[t] += 1
    ready = sorted((n for n, d in indegree.items() if d == 0), key=order.get)
    out = []
    while ready:
        node = ready.pop(0)
        out.append(node)
        for t in edges.get(node, ()):
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
                ready.sort(key=order.get)
    return out


def path_columns(paths: Iterable[Sequence[str]]) -> dict[str, int]:
    """Columns for a query: the earliest hop at which any path reaches each entity."""
    columns: dict[str, int] = {}
    for path in paths:
        for hop, node in enumerate(path):
            columns[node] = min(columns.get(node, hop), hop)
    return columns


def layered_layout(columns: dict[str, int], edges: Iterable[tuple[str, str]], label: Callable[[str], str],
                   kind: Callable[[str], str], band: Callable[[str], int] = lambda n: 0, sweeps: int = 4) -> Layout:
    """Boxes in their columns, rows ordered by ``band`` (groups kept together, top to bottom),
    then by the barycentre of their neighbours."""
    edges = [(a, b) for a, b in edges if a in columns and b in columns and a != b]
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    n_columns = max(columns.values(), default=-1) + 1
    rows: list[list[str]] = [sorted((n for n, c in columns.items() if c == k), key=lambda n: (band(n), kind(n), n))
                             for k in range(n_columns)]
    for sweep in range(sweeps):
        order = range(1, n_columns) if sweep % 2 == 0 else range(n_columns - 2, -1, -1)
        for k in order:
            position = {n: i for col in rows for i, n in enumerate(col)}
            side = k - 1 if sweep % 2 == 0 else k + 1

            def barycentre(node: str, k=k, side=side, position=position) -> float:
                near = [position[m] for m in neighbours[node] if columns[m] == side]
                return sum(near) / len(near) if near else position[node]

            rows[k] = sorted(rows[k], key=lambda n: (band(n), barycentre(n), kind(n), n))
    return _place(rows, columns, label, kind)


def _place(rows: list[list[str]], columns: dict[str, int], label, kind) -> Layout:
    lines = {n: tuple(textwrap.wrap(label(n), WRAP, break_long_words=True)) or ("?",) for col in rows for n in col}
    size = {n: (max(len(s) for s in ls) * CHAR_WIDTH + 2 * PAD_X, len(ls) * LINE_HEIGHT + 2 * PAD_Y)
            for n, ls in lines.items()}
    heights = [sum(size[n][1] for n in col) + ROW_GAP * max(len(col) - 1, 0) for col in rows]
    total_height = max(heights, default=0) + 2 * MARGIN
    boxes, x = {}, MARGIN
    for col, height in zip(rows, heights):
        width = max((size[n][0] for n in col), default=0)
        y = (total_height - height) / 2
        for n in col:
            w, h = size[n]
            boxes[n] = Box(n, lines[n], kind(n), x + (width - w) / 2, y, w, h)
            y += h + ROW_GAP
        x += width + COLUMN_GAP
    return Layout(boxes, columns, x - COLUMN_GAP + MARGIN + LOOP_ROOM, total_height)


Point = tuple[float, float]


def edge_curve(a: Box, b: Box) -> tuple[Point, Point, Point, Point]:
    """The cubic curve (start, two control points, end) from the right of ``a`` to the left of
    ``b``; backward and same-column edges loop round the right-hand side, so they never cut
    through boxes of the column."""
    if b.x > a.x + a.w:
        x1, y1, x2, y2 = a.x + a.w, a.mid_y, b.x, b.mid_y
        bend = max((x2 - x1) / 2, 20)
        return (x1, y1), (x1 + bend, y1), (x2 - bend, y2), (x2, y2)
    x1, y1, x2, y2 = a.x + a.w, a.mid_y, b.x + b.w, b.mid_y
    reach = max(x1, x2) + 24 + min(abs(y2 - y1) / 6, 30)
    return (x1, y1), (reach, y1), (reach, y2), (x2, y2)


def edge_path(a: Box, b: Box) -> str:
    """:func:`edge_curve` as SVG path data."""
    (x1, y1), (c1x, c1y), (c2x, c2y), (x2, y2) = edge_curve(a, b)
    return f"M{x1:.1f},{y1:.1f} C{c1x:.1f},{c1y:.1f} {c2x:.1f},{c2y:.1f} {x2:.1f},{y2:.1f}"


def relation_title(relations: Sequence[Relation], name: Callable[[str], str]) -> str:
    parts = []
    for r in relations:
        text = f"{name(r.head)} {r.label} {name(r.tail)}"
        if r.condition:
            text += f" ({r.condition})"
        if r.info:
            text += f". {r.info}"
        parts.append(text)
    return "\n".join(parts)


@dataclass(frozen=True)
class EdgeStyle:
    colour: str
    dashed: bool = False
    width: float = 1.4
    css_class: str = ""
    opacity: float = 0.85


def render_svg(layout: Layout, edges: dict[tuple[str, str], tuple[str, EdgeStyle]], *, title: str = "",
               legend: Sequence[tuple[str, str, str]] = (), node_class: Callable[[str], str] | None = None,
               routes: dict[tuple[str, str], list[Point]] | None = None, bands: Sequence = ()) -> str:
    """The layout as a standalone SVG that scales to its container (a viewBox, width 100%, at
    most its natural width). ``edges`` maps (head, tail) to (hover text, style); ``routes``
    gives an edge's own path (``monster_layout``), else it is :func:`edge_curve`; ``bands`` are
    drawn behind everything; ``legend`` rows are (kind 'node', 'edge' or 'band', colour, text)."""
    legend_height = 18 * ((len(legend) + 3) // 4) + (8 if legend else 0)
    top = 24 if title else 0
    width, height = max(layout.width, 480), layout.height + top + legend_height
    colours = sorted({style.colour for _, style in edges.values()})
    markers = "".join(f'<marker id="arrow-{i}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
                      f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
                      for i, c in enumerate(colours))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="kg" viewBox="0 0 {width:.0f} {height:.0f}" '
           f'width="100%" style="max-width:{width:.0f}px;height:auto" font-family="system-ui, sans-serif" font-size="11">',
           f'<defs>{markers}</defs>']
    if title:
        out.append(f'<text x="{MARGIN}" y="17" font-size="14" font-weight="600">{escape(title)}</text>')
    out.append(f'<g transform="translate(0,{top})">')
    for band in bands:
        out.append(f'<g class="band"><rect x="{band.x:.1f}" y="{band.y:.1f}" width="{band.w:.1f}" height="{band.h:.1f}" rx="8" '
                   f'fill="{band.colour}" fill-opacity="0.05" stroke="{band.colour}" stroke-opacity="0.45" '
                   f'stroke-dasharray="6 4"/>'
                   + (f'<text x="{band.x + 10:.1f}" y="{band.y + 18:.1f}" fill="#5f6b78" font-style="italic">{escape(band.label)}</text>'
                      if band.titled else "") + '</g>')
    for (a, b), (hover, style) in sorted(edges.items()):
        if a not in layout.boxes or b not in layout.boxes:
            continue
        d = route_path(routes[(a, b)]) if routes and (a, b) in routes else edge_path(layout.boxes[a], layout.boxes[b])
        dash = ' stroke-dasharray="5 4"' if style.dashed else ""
        cls = f' class="{style.css_class}"' if style.css_class else ""
        out.append(f'<g{cls}><title>{escape(hover)}</title>'
                   f'<path d="{d}" fill="none" stroke="transparent" stroke-width="9"/>'
                   f'<path d="{d}" fill="none" stroke="{style.colour}" stroke-width="{style.width}"{dash} '
                   f'marker-end="url(#arrow-{colours.index(style.colour)})" opacity="{style.opacity}"/></g>')
    for box in sorted(layout.boxes.values(), key=lambda b: b.id):
        colour = TYPE_COLOURS.get(box.type, "#555")
        cls = f' class="{node_class(box.id)}"' if node_class else ""
        out.append(f'<g{cls} data-id="{escape(box.id)}"><title>{escape(box.id)} ({box.type.replace("_", " ")})</title>'
                   f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}" height="{box.h:.1f}" rx="5" fill="#fff"/>'
                   f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}" height="{box.h:.1f}" rx="5" '
                   f'fill="{colour}" fill-opacity="0.12" stroke="{colour}" stroke-width="1.4"/>')
        for i, line in enumerate(box.lines):
            y = box.y + PAD_Y + (i + 0.8) * LINE_HEIGHT
            out.append(f'<text x="{box.x + box.w / 2:.1f}" y="{y:.1f}" text-anchor="middle">{escape(line)}</text>')
        out.append("</g>")
    out.append("</g>")
    y0 = top + layout.height + 8
    for i, (kind, colour, text) in enumerate(legend):
        x, y = MARGIN + (i % 4) * 170, y0 + 18 * (i // 4)
        if kind == "node":
            mark = f'<rect x="{x}" y="{y - 9}" width="12" height="10" rx="2" fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>'
        elif kind == "band":
            mark = (f'<rect x="{x}" y="{y - 10}" width="14" height="12" rx="3" fill="{colour}" fill-opacity="0.05" '
                    f'stroke="{colour}" stroke-dasharray="3 2"/>')
        else:
            dash = ' stroke-dasharray="4 3"' if text == "resistance" else ""  # as family_style draws it
            mark = f'<line x1="{x}" y1="{y - 4}" x2="{x + 14}" y2="{y - 4}" stroke="{colour}" stroke-width="2"{dash}/>'
        out.append(f'{mark}<text x="{x + 18}" y="{y}">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def route_path(points: Sequence[Point]) -> str:
    """A chain of cubic segments (start, then control, control, end per segment) as SVG path data."""
    head = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    return head + "".join(" C" + " ".join(f"{x:.1f},{y:.1f}" for x, y in points[i:i + 3]) for i in range(1, len(points), 3))


def family_style(family: str) -> EdgeStyle:
    """Structure edges (who has which move or phase) recede; what a player reads stands out."""
    if family == "structure":
        return EdgeStyle(COLOUR_OF_FAMILY[family], width=1.0, opacity=0.45)
    return EdgeStyle(COLOUR_OF_FAMILY[family], width=1.6, dashed=family == "resistance")
