"""Draw a monster's subgraph: the monster, its phases and context, its attack actions in combo
order, and the effects they leave, in columns; entity types and relation kinds as colours. In
the SVG, an edge shows its relation, condition and note when the pointer rests on it. SVG needs
nothing more; PNG needs matplotlib (pip install 'mhmmkg[draw]').

Example:
  mhmmkg draw zinogre --out zinogre.svg
  mhmmkg draw "Stygian Zinogre" --out stygian.png --dataset data
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .atomic import atomic_path
from .errors import UserError
from .graph import KnowledgeGraph
from .layout import MARGIN, TYPE_COLOURS, Picture, edge_curve, monster_picture, monster_svg
from .model import ROMAN
from .outputs import GENERATOR, add_force_argument, claim_output_file

FORMATS = (".svg", ".png")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise UserError("drawing needs matplotlib: pip install 'mhmmkg[draw]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_picture_path(out: Path) -> None:
    if out.suffix.lower() not in FORMATS:
        raise UserError(f"{out}: the picture must end in {' or '.join(FORMATS)}")


def resolve_monster(kg: KnowledgeGraph, name_or_id: str) -> str:
    if name_or_id in kg and kg.entity(name_or_id).type == "monster":
        return name_or_id
    found = [e for e in kg.find(name_or_id) if e.type == "monster"]
    if not found:
        known = ", ".join(sorted(e.id for e in kg.monsters()))
        raise UserError(f"no monster {name_or_id!r} in the KG (known: {known})")
    return found[0].id


def draw_monster(kg: KnowledgeGraph, monster: str, out: str | Path) -> Path:
    """The monster's own entities and the entities its relations reach, laid out by meaning
    (see :mod:`mhmmkg.layout`) and saved as SVG (relations and conditions on hover) or PNG."""
    out = Path(out)
    check_picture_path(out)
    monster = resolve_monster(kg, monster)
    if out.suffix.lower() == ".svg":
        with atomic_path(out) as tmp:
            tmp.write_text(monster_svg(kg, monster) + "\n", encoding="utf-8")
        return out
    _draw_png(monster_picture(kg, monster), out)
    return out


def _draw_png(picture: Picture, out: Path) -> None:
    """The same picture through matplotlib, for places that show no SVG."""
    from matplotlib.patches import FancyBboxPatch, PathPatch
    from matplotlib.path import Path as CurvePath

    plt = _pyplot()
    layout, top = picture.layout, 30
    legend_rows = (len(picture.legend) + 3) // 4
    height = layout.height + top + 18 * legend_rows + 10
    fig = plt.figure(figsize=(layout.width / 100, height / 100), dpi=150)  # one layout unit = 1.5 pixels
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    ax.text(MARGIN, 20, picture.title, fontsize=11, fontweight="bold")
    for (a, b), (_, style) in sorted(picture.edges.items()):
        points = [(x, y + top) for x, y in edge_curve(layout.boxes[a], layout.boxes[b])]
        curve = CurvePath(points, [CurvePath.MOVETO, CurvePath.CURVE4, CurvePath.CURVE4, CurvePath.CURVE4])
        ax.add_patch(PathPatch(curve, fill=False, edgecolor=style.colour, linewidth=style.width * 0.8,
                               alpha=style.opacity, linestyle="--" if style.dashed else "-"))
    for box in layout.boxes.values():
        colour = TYPE_COLOURS.get(box.type, "#555555")
        ax.add_patch(FancyBboxPatch((box.x, box.y + top), box.w, box.h, boxstyle="round,pad=0,rounding_size=5",
                                    facecolor=colour + "20", edgecolor=colour, linewidth=1.2))
        ax.text(box.x + box.w / 2, box.y + top + box.h / 2, "\n".join(box.lines), ha="center", va="center", fontsize=8)
    y0 = top + layout.height + 14
    for i, (kind, colour, text) in enumerate(picture.legend):
        x, y = MARGIN + (i % 4) * 150, y0 + 18 * (i // 4)
        marker = "s" if kind == "node" else "_"
        ax.plot([x + 6], [y - 4], marker=marker, color=colour, markersize=8, markeredgewidth=2)
        ax.text(x + 18, y, text, fontsize=8, va="bottom")
    _save(fig, out, plt, tight=False)


def plot_subtask_scores(results: dict[str, dict], out: str | Path, metric: str = "acc") -> Path:
    """Bar chart of one metric per sub-task (I..VI) for one or more evaluation results.

    ``results`` maps a run name to the JSON result of ``mhmmkg evaluate`` (its ``by_subtask``).
    """
    out = Path(out)
    check_picture_path(out)
    plt = _pyplot()
    subtasks = list(ROMAN.values())
    width = 0.8 / max(len(results), 1)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, (name, result) in enumerate(results.items()):
        values = [(result["by_subtask"].get(s) or {}).get(metric) or 0.0 for s in subtasks]
        xs = [i + (k - (len(results) - 1) / 2) * width for i in range(len(subtasks))]
        ax.bar(xs, values, width, label=f"{name} (all: {result.get(metric, 0):.3f})")
    ax.set_xticks(range(len(subtasks)), subtasks)
    ax.set_xlabel("sub-task")
    ax.set_ylabel(metric)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title(f"{metric} per sub-task")
    _save(fig, out, plt)
    return out


def _save(fig, out: Path, plt, tight: bool = True) -> None:
    if tight:
        fig.tight_layout()
    try:
        with atomic_path(out) as tmp:
            fmt = out.suffix.lower().lstrip(".")
            fig.savefig(tmp, dpi=fig.dpi, format=fmt, metadata={"Software" if fmt == "png" else "Creator": GENERATOR})
    finally:
        plt.close(fig)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("monster", help="monster id or name, e.g. zinogre or 'Stygian Zinogre'")
    parser.add_argument("--out", required=True, help="picture to write: FILE.svg or FILE.png")
    parser.add_argument("--dataset", default="mh-mmkg",
                        help="built dataset folder, Hub repo id, or sources folder (default: mh-mmkg)")
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    from .loading import load_graph

    check_picture_path(Path(args.out))
    claim_output_file(args.out, "picture", inputs=[args.dataset], force=args.force)
    out = draw_monster(load_graph(args.dataset), args.monster, args.out)
    print(f"wrote {out}")
    return 0
