"""Draw a monster's subgraph (SVG or PNG): entity types as colours, relation phrases and
conditions on the edges. Needs matplotlib: pip install 'mhmmkg[draw]'.

Example:
  mhmmkg draw zinogre --out zinogre.svg
  mhmmkg draw "Stygian Zinogre" --out stygian.png --dataset data
"""
from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

import networkx as nx

from .atomic import atomic_path
from .errors import UserError
from .graph import KnowledgeGraph
from .model import ENTITY_TYPES, ROMAN
from .outputs import check_output_file

TYPE_COLOURS = {
    "monster": "#d62728",
    "attack_action": "#1f77b4",
    "attack_phase": "#9467bd",
    "element": "#2ca02c",
    "weapon": "#8c564b",
    "prop": "#ff7f0e",
    "attack_effect": "#e377c2",
}
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


def edge_label(relation) -> str:
    label = relation.label if not relation.condition else f"{relation.label}\n({relation.condition})"
    return "\n".join(textwrap.wrap(label, 28, break_long_words=False, replace_whitespace=False)) if len(label) > 28 else label


#: rings from the centre out: the monster, what frames its moves, the moves, what moves leave behind
RINGS = (("monster_root",), ("attack_phase", "monster", "element", "weapon", "prop"), ("attack_action",), ("attack_effect",))


def layout(sub: KnowledgeGraph, graph: nx.DiGraph, root: str) -> dict:
    """Concentric rings by entity role; each ring in the order of a walk from the monster, so
    combos between neighbouring moves stay short. Deterministic."""
    order = {n: i for i, n in enumerate(nx.dfs_preorder_nodes(graph, root))}
    ring_of = {t: k for k, types in enumerate(RINGS) for t in types}
    shells: list[list[str]] = [[] for _ in RINGS]
    for node in graph.nodes:
        kind = "monster_root" if node == root else sub.entity(node).type
        shells[ring_of[kind]].append(node)
    shells = [sorted(s, key=lambda n: (order.get(n, len(order)), n)) for s in shells if s]
    return nx.shell_layout(graph, nlist=shells, scale=1.0)


def draw_monster(kg: KnowledgeGraph, monster: str, out: str | Path) -> Path:
    """The monster's own entities and the entities its relations reach, laid out and saved."""
    out = Path(out)
    check_picture_path(out)
    plt = _pyplot()
    sub = kg.subgraph(resolve_monster(kg, monster))
    graph = nx.DiGraph()
    labels: dict[tuple[str, str], list[str]] = {}
    for r in sub.relations:
        graph.add_edge(r.head, r.tail)
        labels.setdefault((r.head, r.tail), []).append(edge_label(r))
    graph.add_nodes_from(e.id for e in sub.entities)
    n = graph.number_of_nodes()
    size = max(10.0, 2.2 * n ** 0.5 * 2)
    pos = layout(sub, graph, resolve_monster(kg, monster))
    fig, ax = plt.subplots(figsize=(size, size * 0.8))
    colours = [TYPE_COLOURS[sub.entity(i).type] for i in graph.nodes]
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=colours, node_size=900, alpha=0.9)
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, arrowsize=14, edge_color="#777777",
                           node_size=900, connectionstyle="arc3,rad=0.08")
    names = {i: "\n".join(textwrap.wrap(sub.entity(i).name, 16)) for i in graph.nodes}
    nx.draw_networkx_labels(graph, pos, labels=names, ax=ax, font_size=8)
    nx.draw_networkx_edge_labels(graph, pos, ax=ax, font_size=6, alpha=0.8,
                                 edge_labels={k: "\n".join(v) for k, v in labels.items()},
                                 connectionstyle="arc3,rad=0.08")
    used = [t for t in ENTITY_TYPES if any(e.type == t for e in sub.entities)]
    handles = [plt.Line2D([], [], marker="o", linestyle="", color=TYPE_COLOURS[t], markersize=10,
                          label=t.replace("_", " ")) for t in used]
    ax.legend(handles=handles, loc="upper left", fontsize=9, frameon=False)
    ax.set_title(f"{sub.entity(resolve_monster(kg, monster)).name}: {len(sub)} entities, {len(sub.relations)} relations")
    ax.axis("off")
    _save(fig, out, plt)
    return out


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


def _save(fig, out: Path, plt) -> None:
    fig.tight_layout()
    try:
        with atomic_path(out) as tmp:
            fig.savefig(tmp, dpi=110, format=out.suffix.lower().lstrip("."))
    finally:
        plt.close(fig)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("monster", help="monster id or name, e.g. zinogre or 'Stygian Zinogre'")
    parser.add_argument("--out", required=True, help="picture to write: FILE.svg or FILE.png")
    parser.add_argument("--dataset", default="mh-mmkg",
                        help="built dataset folder, Hub repo id, or sources folder (default: mh-mmkg)")


def run(args: argparse.Namespace) -> int:
    from .loading import load_graph

    check_picture_path(Path(args.out))
    check_output_file(args.out, inputs=[args.dataset])
    out = draw_monster(load_graph(args.dataset), args.monster, args.out)
    print(f"wrote {out}")
    return 0
