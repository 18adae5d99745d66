"""Statistics of a dataset, as a paper reports them: entities, edges and edge kinds, queries and
the size and depth of their ground-truth knowledge per sub-task, and attribute coverage.

Knowledge size and depth per sub-task come in two definitions. Ours: distinct entities on a
query's ground-truth paths, and the hops of its longest path. The paper's (supplement Table 2,
which the authors' question list reproduces exactly): the same entity count, and depth as the
mean length of a query's paths counted in entities, so a query answered by the topic monster
alone has depth 1. Both are means over the sub-task's queries.

A build stores these statistics in its manifest.json. For a built folder whose every file still
has the SHA-256 the manifest lists, and whose statistics were stored by the same mhmmkg code,
they are printed from there at once; otherwise (an edited file, a sources folder, a Hub id, an
older build) they are computed from the data."""
from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from itertools import chain
from operator import attrgetter

from .graph import KnowledgeGraph
from .model import ENTITY_TYPES, KEY_KINDS, RELATION_TYPES, ROMAN, SUBTASKS, Query
from ..curation.provenance import provenance_figures, rests_on
from ..lexical.shortcut import MEASURES, recognition_shortcut


def compute_stats(kg: KnowledgeGraph, queries: list[Query]) -> dict:
    entities = kg.entities
    relations = kg.relations
    by_type = Counter(map(attrgetter("type"), entities))
    by_relation = Counter(map(attrgetter("type"), relations))
    kinds = set(map(attrgetter("type", "condition"), relations))
    of_subtask = defaultdict(list)
    for q in queries:
        of_subtask[q.subtask].append(q)
    subtasks = {}
    for n, name in SUBTASKS.items():
        mine = of_subtask.get(n, [])
        sizes = list(map(knowledge_entities, mine))
        subtasks[ROMAN[n]] = {
            "name": name,
            "queries": len(mine),
            "avg_entities": round(_int_mean(sizes), 2) if mine else None,
            "avg_depth": round(_int_mean([q.hops for q in mine]), 2) if mine else None,
            "paper_avg_entities": round(_int_mean(sizes), 3) if mine else None,
            "paper_avg_depth": round(_mean_by_value([paper_depth(q) for q in mine]), 3) if mine else None,
        }
    actions = [e for e in entities if e.type == "attack_action"]
    total = max(len(entities), 1)
    return {
        "entities": len(entities),
        "entities_by_type": {t: by_type.get(t, 0) for t in ENTITY_TYPES},
        "relations": len(relations),
        "relations_by_type": {t: by_relation.get(t, 0) for t in RELATION_TYPES},
        "relation_types_used": sum(1 for t in RELATION_TYPES if by_relation.get(t)),
        "edge_kinds": len(kinds),
        "monsters": len(kg.monsters()),
        "queries": len(queries),
        "queries_with_media": sum(map(attrgetter("has_media"), queries)),
        "answer_keys": key_stats(queries),
        "by_subtask": subtasks,
        "coverage": {
            "caption": round(sum(map(bool, map(attrgetter("caption"), entities))) / total, 3),
            "text": round(sum(map(bool, map(attrgetter("text"), entities))) / total, 3),
            "media": round(sum(map(attrgetter("has_media"), entities)) / total, 3),
            "attack_actions_with_caption": round(sum(bool(e.caption) for e in actions) / max(len(actions), 1), 3),
        },
        "provenance": provenance_figures(kg, queries),
        "recognition_shortcut": shortcut_figures(kg, queries),
    }


def knowledge_entities(query: Query) -> int:
    """Distinct entities on a query's ground-truth paths (ours and the paper's Number_avg)."""
    return len(set(chain.from_iterable(query.paths)))


def paper_depth(query: Query) -> float:
    """The paper's depth of a query (supplement Table 2): the mean length of its paths in entities."""
    return _int_mean(list(map(len, query.paths))) if query.paths else 0.0


def _int_mean(values: list[int]) -> int | float:
    """``statistics.mean`` of whole numbers, without its exact fractions: an int when the mean is
    whole, else the quotient correctly rounded (as ``int / int`` is)."""
    total, n = sum(values), len(values)
    return total // n if total % n == 0 else total / n


def _mean_by_value(values: list[int | float]) -> int | float:
    """``statistics.mean(values)``: the same exact sum, each distinct value (a query's depth
    takes few) turned into a fraction once and multiplied by its count, and the same result
    (an int when the values are whole numbers with a whole mean, else the float nearest it)."""
    from fractions import Fraction

    counts = Counter((type(v), v) for v in values)
    exact = sum(Fraction(v) * count for (_, v), count in counts.items()) / len(values)
    if exact.denominator == 1 and all(kind is int for kind, _ in counts):
        return int(exact)
    return float(exact)


def key_stats(queries: list[Query]) -> dict:
    """How many queries have an answer key, per kind, and how many of the keys were derived by the importer."""
    keys = [q.key for q in queries if q.key is not None]
    kinds = Counter(k.kind for k in keys)
    return {"with_key": len(keys), "without_key": len(queries) - len(keys),
            "by_kind": {kind: kinds.get(kind, 0) for kind in KEY_KINDS},
            "derived": sum(k.origin == "derived" for k in keys)}


def rests_on_unverified(kg: KnowledgeGraph, query: Query) -> bool:
    """True when a ground-truth path of the query passes an unverified entity, or a hop whose
    every relation is unverified."""
    return rests_on(kg, query, lambda fact: fact.unverified)


def shortcut_figures(kg: KnowledgeGraph, queries: list[Query]) -> dict:
    return recognition_shortcut(kg, queries).figures()


def format_stats(stats: dict) -> str:
    lines = [f"Knowledge graph: {stats['entities']} entities, {stats['relations']} relations, "
             f"{stats['edge_kinds']} edge kinds (type + condition), {stats['monsters']} monsters"]
    lines.append("  entities:  " + ", ".join(f"{t} {n}" for t, n in stats["entities_by_type"].items()))
    used = {t: n for t, n in stats["relations_by_type"].items() if n}
    lines.append(f"  relations ({stats['relation_types_used']} base types used): "
                 + ", ".join(f"{t} {n}" for t, n in used.items()))
    cov = stats["coverage"]
    lines.append(f"  coverage:  caption {cov['caption']:.0%}, text {cov['text']:.0%}, media {cov['media']:.0%} "
                 f"(attack actions with caption {cov['attack_actions_with_caption']:.0%})")
    lines += format_provenance(stats["provenance"])
    lines.append(f"Benchmark: {stats['queries']} queries ({stats['queries_with_media']} with media)")
    keys = stats["answer_keys"]
    lines.append(f"  answer keys: {keys['with_key']} queries have one ("
                 + ", ".join(f"{kind} {n}" for kind, n in keys["by_kind"].items())
                 + f"; {keys['derived']} derived by the importer), {keys['without_key']} have none "
                 "(judged by the text rules)")
    shortcut = stats["recognition_shortcut"]
    if shortcut["measured"]:
        lines.append(f"  recognition shortcut ({shortcut['measured']} sub-task II queries; the perception text "
                     f"ranked against the monster's attack captions; lower means the scene must be perceived): "
                     + format_shortcut(shortcut))
    lines.append(f"  {'':<28} {'':>4}   {'ours':<16}   {'the paper (suppl. Table 2)'}")
    lines.append(f"  {'sub-task':<28} {'n':>4}   {'entities':>8} {'depth':>7}   {'entities':>8} {'depth':>7}")
    for roman, s in stats["by_subtask"].items():
        cells = [f"{s[key]:.{digits}f}" if s.get(key) is not None else "-" for key, digits in
                 (("avg_entities", 2), ("avg_depth", 2), ("paper_avg_entities", 3), ("paper_avg_depth", 3))]
        lines.append(f"  {s['name']:<28} {s['queries']:>4}   {cells[0]:>8} {cells[1]:>7}   {cells[2]:>8} {cells[3]:>7}")
    lines.append("  ours: distinct entities on the ground-truth paths, depth in hops of the longest path; "
                 "the paper: the same entities, depth as the mean path length in entities")
    return "\n".join(lines)


MEASURE_NAMES = {"bm25": "BM25", "char_tfidf": "char n-gram TF-IDF"}


def format_shortcut(figures: dict) -> str:
    """``BM25 top-1 31.2%, top-3 55.0%; char n-gram TF-IDF top-1 ...`` from ``ShortcutResult.figures``."""
    return "; ".join(f"{MEASURE_NAMES[m]} top-1 {figures[f'{m}_top1']:.1%}, top-3 {figures[f'{m}_top3']:.1%}"
                     for m in MEASURES)


def format_provenance(prov: dict) -> list[str]:
    kinds = prov["by_kind"]
    lines = [f"  provenance ({prov['facts']} facts): independently sourced (game table or page) "
             f"{prov['independently_sourced']:.1%}; with a game table {kinds['table']:.1%}, an authors'-list row "
             f"{kinds['authors_list']:.1%}, a page {kinds['page']:.1%}; only the authors' list "
             f"{prov['authors_list_only']:.1%}; bare repository URL {prov['repository_url']}"]
    lines.append(f"    unverified: {prov['unverified']['entities']} entities, {prov['unverified']['relations']} "
                 f"relations; queries resting on an unverified fact {prov['queries_on_unverified']}, "
                 f"on a fact only the authors' list sources {prov['queries_on_authors_list_only']}")
    lines.append("    independently sourced: " + ", ".join(
        f"{t} {s:.0%}" for t, s in {**prov["entities_independently_sourced"],
                                    **prov["relations_independently_sourced"]}.items()))
    if prov["name_origin"]:
        lines.append("    name origin (game/descriptive/unset): " + ", ".join(
            f"{t} {c['game']}/{c['descriptive']}/{c['unset']}" for t, c in prov["name_origin"].items()))
    return lines


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", nargs="?", default="mh-mmkg",
                        help="built dataset folder, Hub repo id, or curated sources folder (default: mh-mmkg)")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")


def stats_code_hash() -> str | None:
    """SHA-256 of every module of the core package (``mhmmkg/``), None when one cannot be read.

    Statistics a build stored are used only when the core code is byte for byte the code that
    stored them: the statistics reach into the graph, loading, provenance, the lexical measures
    and whatever those import, so no hand-kept list of files could be trusted to stay complete."""
    import hashlib
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    try:
        for path in sorted(package.rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def stats_record(stats: dict) -> dict | None:
    """What a build stores in its manifest (``write_manifest(stats=...)``) for ``stored_stats``."""
    code = stats_code_hash()
    return {"code": code, "figures": stats} if code else None


def stored_stats(source) -> dict | None:
    """The statistics the build of ``source`` stored in its manifest, or None (compute them).

    They are used only for a built folder whose every file the manifest lists has the listed
    SHA-256 (``verified_files``: the files hashed again, no Parquet file or card unlisted, the
    fingerprint that of the listing) and only when the statistics code is the build's; an edited
    file, a sources folder or a Hub id get statistics computed from what is loaded."""
    from pathlib import Path

    from ..dataset.manifest import read_manifest, verified_files
    from ..errors import UserError

    folder = Path(source)
    try:
        if not folder.is_dir() or (folder / "shared.json").is_file() or not (folder / "README.md").is_file():
            return None
        manifest = read_manifest(folder)
        record = manifest.get("stats") if isinstance(manifest, dict) else None
        if not isinstance(record, dict) or not isinstance(record.get("figures"), dict):
            return None
        verified_files(folder)
    except (UserError, OSError, ValueError):
        return None
    if record.get("code") != stats_code_hash():
        return None
    return record["figures"]


def run(args: argparse.Namespace) -> int:
    from ..dataset.loading import load_graph, load_queries

    stats = stored_stats(args.dataset)
    if stats is None:
        stats = compute_stats(load_graph(args.dataset), load_queries(args.dataset))
    print(json.dumps(stats, indent=2) if args.json else format_stats(stats))
    return 0
