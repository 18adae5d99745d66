"""The report's charts, as inline SVG: grouped bar charts of a metric by sub-task or hop count,
one colour per run (the colour the whole page gives that run). A query's subgraph is drawn in
the browser (report.js), from at most DRAWN_PATHS predicted paths per run."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape

#: run colours kept clear of the green and red that mean right and wrong
RUN_COLOURS = ("#2e6da4", "#e67e22", "#8e44ad", "#16a085", "#8c564b", "#d63384", "#7a8b00", "#5d6d7e")
#: predicted paths per run drawn in a query's picture; the rest are listed, not drawn
DRAWN_PATHS = 10


def run_colour(i: int) -> str:
    return RUN_COLOURS[i % len(RUN_COLOURS)]


def bar_chart(title: str, groups: Sequence[str], runs: Sequence[str], values: Sequence[Sequence[float | None]],
              counts: Sequence[int]) -> str:
    """Bars of one metric (0..1) for each group, one bar per run; ``values[run][group]``."""
    width, height, left, bottom, top = 400, 190, 34, 36, 24
    plot_w, plot_h = width - left - 10, height - top - bottom
    slot = plot_w / max(len(groups), 1)
    bar = min(22.0, (slot - 6) / max(len(runs), 1))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" font-family="system-ui, sans-serif" font-size="12" role="img" aria-label="{escape(title)}">',
           f'<text x="{left}" y="15" font-weight="600" font-size="13">{escape(title)}</text>']
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
                       f'fill="{run_colour(r)}"><title>{escape(run)}, {escape(group)}: '
                       f'{100 * value:.1f}</title></rect>')
        out.append(f'<text x="{left + (g + 0.5) * slot:.1f}" y="{height - bottom + 14}" text-anchor="middle">'
                   f'{escape(group)}</text><text x="{left + (g + 0.5) * slot:.1f}" y="{height - bottom + 28}" '
                   f'text-anchor="middle" fill="#888">n={counts[g]}</text>')
    out.append("</svg>")
    return "".join(out)


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
