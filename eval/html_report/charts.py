"""The report's pictures, as inline SVG: grouped bar charts of a metric by sub-task or hop count,
and the subgraph a query's ground truth and the runs' predicted paths touch."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape

from mhmmkg.graph import KnowledgeGraph
from mhmmkg.layout import EdgeStyle, layered_layout, path_columns, relation_title, render_svg

RUN_COLOURS = ("#2e6da4", "#e67e22", "#27ae60", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#d35400")
FOUND, MISSED, EXTRA = "#27ae60", "#7f8c8d", "#e67e22"
#: predicted paths per run drawn in a query's picture; the rest are listed, not drawn
DRAWN_PATHS = 10


def bar_chart(title: str, groups: Sequence[str], runs: Sequence[str], values: Sequence[Sequence[float | None]],
              counts: Sequence[int]) -> str:
    """Bars of one metric (0..1) for each group, one bar per run; ``values[run][group]``."""
    width, height, left, bottom, top = 360, 170, 34, 34, 22
    plot_w, plot_h = width - left - 10, height - top - bottom
    slot = plot_w / max(len(groups), 1)
    bar = min(22.0, (slot - 6) / max(len(runs), 1))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" font-family="system-ui, sans-serif" font-size="10" role="img" aria-label="{escape(title)}">',
           f'<text x="{left}" y="14" font-weight="600" font-size="11">{escape(title)}</text>']
    for tick in (0, 0.5, 1):
        y = top + plot_h * (1 - tick)
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end">{int(tick * 100)}</text>')
    for g, group in enumerate(groups):
        x0 = left + g * slot + (slot - bar * len(runs)) / 2
        for r, run in enumerate(runs):
            value = values[r][g]
            if value is None:
                continue
            h = plot_h * value
            x, y = x0 + r * bar, top + plot_h - h
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" '
                       f'fill="{RUN_COLOURS[r % len(RUN_COLOURS)]}"><title>{escape(run)}, {escape(group)}: '
                       f'{100 * value:.1f}</title></rect>')
        out.append(f'<text x="{left + (g + 0.5) * slot:.1f}" y="{height - bottom + 13}" text-anchor="middle">'
                   f'{escape(group)}</text><text x="{left + (g + 0.5) * slot:.1f}" y="{height - bottom + 25}" '
                   f'text-anchor="middle" fill="#888">n={counts[g]}</text>')
    out.append("</svg>")
    return "".join(out)


def query_subgraph(kg: KnowledgeGraph, truth: Sequence[Sequence[str]], predicted: Sequence[Sequence[Sequence[str]]]) -> str:
    """Entities of the ground-truth paths and of each run's first predicted paths, one column per
    hop; an edge is green when ground truth and some run share it, grey dashed when only the
    ground truth has it (missed), orange when only a run has it (off the truth)."""
    drawn = [list(paths)[:DRAWN_PATHS] for paths in predicted]
    truth_hops = {(a, b) for p in truth for a, b in zip(p, p[1:])}
    run_hops = {(a, b) for paths in drawn for p in paths for a, b in zip(p, p[1:])}
    known = [p for p in [*truth, *(p for paths in drawn for p in paths)] if all(e in kg for e in p)]
    columns = path_columns(known)
    hops = {(a, b) for p in known for a, b in zip(p, p[1:])}
    name = lambda n: kg.entity(n).name  # noqa: E731
    edges: dict[tuple[str, str], tuple[str, EdgeStyle]] = {}
    for a, b in hops:
        hover = relation_title(kg.relations_between(a, b), name) or f"{name(a)} -> {name(b)} (no such relation)"
        if (a, b) in truth_hops and (a, b) in run_hops:
            style = EdgeStyle(FOUND, width=2.2, css_class="found")
        elif (a, b) in truth_hops:
            style = EdgeStyle(MISSED, dashed=True, width=1.8, css_class="missed")
        else:
            style = EdgeStyle(EXTRA, width=1.4, css_class="extra")
        edges[(a, b)] = (hover, style)
    truth_nodes = {e for p in truth for e in p}
    layout = layered_layout(columns, edges, name, lambda n: kg.entity(n).type)
    legend = [("edge", FOUND, "ground truth, retrieved"), ("edge", MISSED, "ground truth, missed"),
              ("edge", EXTRA, "retrieved, not ground truth")]
    return render_svg(layout, edges, legend=legend,
                      node_class=lambda n: "truth" if n in truth_nodes else "retrieved")


def group_values(results: Sequence[dict], key: str, groups: Sequence[str], metric: str = "acc"):
    values = [[(r[key].get(g) or {}).get(metric) for g in groups] for r in results]
    counts = [max(((r[key].get(g) or {}).get("n") or 0) for r in results) for g in groups]
    return values, counts


def hop_groups(results: Sequence[dict]) -> list[str]:
    found: dict[str, int] = defaultdict(int)
    for r in results:
        for hops in r["by_hops"]:
            found[hops] += 1
    return sorted(found, key=int)
