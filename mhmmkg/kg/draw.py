"""Draw a monster's subgraph: the monster; its phases, each a band holding its moves; what frames
its fight (linked monsters, weaknesses, resistances, weapons, props); its attack actions in combo
order; the effects they leave. Entity kinds and relation kinds are colours, every edge has an
arrowhead and none runs behind a box. In the SVG, an edge shows its relation, condition and note
when the pointer rests on it. SVG needs nothing more; PNG
needs matplotlib (pip install 'mhmmkg[draw]'). From a built folder only the monster's part of
the KG is read.

Example:
  mhmmkg draw zinogre --out zinogre.svg
  mhmmkg draw "Stygian Zinogre" --out stygian.png --dataset data
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..files.atomic import atomic_path
from ..errors import UserError
from .graph import KnowledgeGraph
from .layout import MARGIN, TYPE_COLOURS
from .model import ROMAN, Entity, Relation
from .monster_layout import MonsterPicture, monster_picture, monster_svg
from ..files.outputs import GENERATOR, add_force_argument, claim_output_file

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


#: the fields a picture shows (and finding a monster by name reads): a built folder's other
#: columns (texts, captions, sources: half the bytes at scale) are not read
ENTITY_COLUMNS = ["id", "name", "type", "monster", "aliases"]
RELATION_COLUMNS = ["id", "head", "tail", "type", "label", "condition", "info"]


def monster_graph(dataset: str | Path, name_or_id: str) -> tuple[KnowledgeGraph, str]:
    """What one monster's picture needs and the monster's id: from a built folder, only the
    monsters (to resolve the name), the monster's own entities, its relations and their tails,
    filtered in Arrow before any Python object is made, with the fields ENTITY_COLUMNS and
    RELATION_COLUMNS name (the others left empty); from anything else, the whole KG."""
    from ..dataset import loading

    files = None
    if loading._kind(dataset) == "folder":
        files = [loading._data_files(Path(dataset), config, "kg") for config in ("attributes", "graph")]
    if not files or None in files:
        kg = loading.load_graph(dataset)
        return kg, resolve_monster(kg, name_or_id)
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def read(paths: list[Path], columns: list[str]):
        tables = []
        for path in paths:
            with pq.ParquetFile(path) as parquet:
                tables.append(parquet.read(columns=columns))
        return pa.concat_tables(tables)

    try:
        attributes, graph = read(files[0], ENTITY_COLUMNS), read(files[1], RELATION_COLUMNS)
    except (OSError, pa.ArrowException):
        kg = loading.load_graph(dataset)      # says which file is broken and why
        return kg, resolve_monster(kg, name_or_id)
    # Arrow values only: a Python value given to pyarrow (a scalar, a list) makes it import pandas
    types, ids = attributes["type"], attributes["id"]
    kinds = types.to_pylist()
    if "monster" not in kinds:
        kg = loading.load_graph(dataset)
        return kg, resolve_monster(kg, name_or_id)
    monsters = attributes.filter(pc.equal(types, types[kinds.index("monster")]))
    monster = resolve_monster(KnowledgeGraph(_entities(monsters), []), name_or_id)
    own = ids[ids.to_pylist().index(monster)]
    owned = attributes.filter(pc.or_kleene(pc.equal(ids, own), pc.equal(attributes["monster"], own)))["id"]
    relations = graph.filter(pc.is_in(graph["head"], value_set=owned))
    needed = pa.concat_arrays([owned.combine_chunks(), relations["tail"].combine_chunks()]).unique()
    entities = attributes.filter(pc.is_in(attributes["id"], value_set=needed))
    return KnowledgeGraph(_entities(entities), _relations(relations)), monster


def _entities(table) -> list[Entity]:
    return [Entity(id=r["id"], name=r["name"], type=r["type"], monster=r["monster"], aliases=tuple(r["aliases"] or ()))
            for r in table.to_pylist()]


def _relations(table) -> list[Relation]:
    return [Relation(id=r["id"], head=r["head"], tail=r["tail"], type=r["type"], label=r["label"], condition=r["condition"],
                     info=r["info"]) for r in table.to_pylist()]


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


def _draw_png(picture: MonsterPicture, out: Path) -> None:
    """The same picture through matplotlib, for places that show no SVG: bands, routed edges
    with arrowheads, boxes over nothing, legend."""
    from matplotlib.patches import FancyBboxPatch, PathPatch, Polygon
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
    for band in picture.bands:
        ax.add_patch(FancyBboxPatch((band.x, band.y + top), band.w, band.h, boxstyle="round,pad=0,rounding_size=8",
                                    facecolor=band.colour + "0d", edgecolor=band.colour + "80", linewidth=1.0,
                                    linestyle=(0, (5, 3))))
        if band.titled:
            ax.text(band.x + 10, band.y + top + 18, band.label, fontsize=8, color="#5f6b78", style="italic")
    for pair, (_, style) in sorted(picture.edges.items()):
        points = [(x, y + top) for x, y in picture.routes[pair]]
        codes = [CurvePath.MOVETO] + [CurvePath.CURVE4] * (len(points) - 1)
        ax.add_patch(PathPatch(CurvePath(points, codes), fill=False, edgecolor=style.colour, linewidth=style.width * 0.8,
                               alpha=style.opacity, linestyle="--" if style.dashed else "-"))
        before = next(p for p in reversed(points) if p != points[-1])
        ax.add_patch(Polygon(arrowhead(before, points[-1]), closed=True, facecolor=style.colour, edgecolor="none",
                             alpha=min(1.0, style.opacity + 0.2)))
    for box in layout.boxes.values():
        colour = TYPE_COLOURS.get(box.type, "#555555")
        ax.add_patch(FancyBboxPatch((box.x, box.y + top), box.w, box.h, boxstyle="round,pad=0,rounding_size=5",
                                    facecolor="white", edgecolor="none"))
        ax.add_patch(FancyBboxPatch((box.x, box.y + top), box.w, box.h, boxstyle="round,pad=0,rounding_size=5",
                                    facecolor=colour + "20", edgecolor=colour, linewidth=1.2))
        ax.text(box.x + box.w / 2, box.y + top + box.h / 2, "\n".join(box.lines), ha="center", va="center", fontsize=8)
    y0 = top + layout.height + 14
    for i, (kind, colour, text) in enumerate(picture.legend):
        x, y = MARGIN + (i % 4) * 170, y0 + 18 * (i // 4)
        if kind == "edge":
            ax.plot([x, x + 14], [y - 4, y - 4], color=colour, linewidth=2, linestyle="--" if text == "resistance" else "-")
        else:
            ax.plot([x + 6], [y - 4], marker="s", color=colour, markersize=8, markeredgewidth=1,
                    markerfacecolor=colour + ("40" if kind == "node" else "10"))
        ax.text(x + 18, y, text, fontsize=8, va="bottom")
    _save(fig, out, plt, tight=False)


def arrowhead(before: tuple[float, float], tip: tuple[float, float], length: float = 7.0, half: float = 3.5):
    """A triangle ending at ``tip``, pointing the way the edge arrives (from ``before``)."""
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    norm = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / norm, dy / norm
    base = (tip[0] - ux * length, tip[1] - uy * length)
    return [tip, (base[0] - uy * half, base[1] + ux * half), (base[0] + uy * half, base[1] - ux * half)]


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
    check_picture_path(Path(args.out))
    claim_output_file(args.out, "picture", inputs=[args.dataset], force=args.force)
    kg, monster = monster_graph(args.dataset, args.monster)
    out = draw_monster(kg, monster, args.out)
    print(f"wrote {out}")
    return 0
