"""Statistics of a dataset, as a paper reports them: entities, edges and edge kinds, queries and
the size and depth of their ground-truth knowledge per sub-task, and attribute coverage."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from statistics import mean

from .graph import KnowledgeGraph
from .model import ENTITY_TYPES, KEY_KINDS, RELATION_TYPES, ROMAN, SUBTASKS, Query
from .shortcut import recognition_shortcut


def compute_stats(kg: KnowledgeGraph, queries: list[Query]) -> dict:
    entities = kg.entities
    relations = kg.relations
    by_type = Counter(e.type for e in entities)
    by_relation = Counter(r.type for r in relations)
    kinds = {(r.type, r.condition) for r in relations}
    subtasks = {}
    for n, name in SUBTASKS.items():
        mine = [q for q in queries if q.subtask == n]
        subtasks[ROMAN[n]] = {
            "name": name,
            "queries": len(mine),
            "avg_entities": round(mean(len({e for p in q.paths for e in p}) for q in mine), 2) if mine else None,
            "avg_depth": round(mean(q.hops for q in mine), 2) if mine else None,
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
        "queries_with_media": sum(q.has_media for q in queries),
        "answer_keys": key_stats(queries),
        "by_subtask": subtasks,
        "coverage": {
            "caption": round(sum(bool(e.caption) for e in entities) / total, 3),
            "text": round(sum(bool(e.text) for e in entities) / total, 3),
            "media": round(sum(e.has_media for e in entities) / total, 3),
            "attack_actions_with_caption": round(sum(bool(e.caption) for e in actions) / max(len(actions), 1), 3),
        },
        "provenance": {**provenance(entities, relations),
                       "queries_on_unverified": sum(rests_on_unverified(kg, q) for q in queries)},
        "recognition_shortcut": shortcut_figures(kg, queries),
    }


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
    for path in query.paths:
        if any(e in kg and kg.entity(e).unverified for e in path):
            return True
        for a, b in zip(path, path[1:]):
            relations = kg.relations_between(a, b)
            if relations and all(r.unverified for r in relations):
                return True
    return False


def shortcut_figures(kg: KnowledgeGraph, queries: list[Query]) -> dict:
    result = recognition_shortcut(kg, queries)
    return {"measured": len(result.measured), "bm25_first": result.share}


def provenance(entities, relations) -> dict:
    """How much of the KG is checked: the share of facts with a source, per type, and the unverified ones."""
    def shares(facts, kinds) -> dict:
        by_kind = {kind: [f for f in facts if f.type == kind] for kind in kinds}
        return {kind: round(sum(bool(f.sources) for f in mine) / len(mine), 3) for kind, mine in by_kind.items() if mine}

    facts = [*entities, *relations]
    return {
        "with_source": round(sum(bool(f.sources) for f in facts) / max(len(facts), 1), 3),
        "entities_with_source": shares(entities, ENTITY_TYPES),
        "relations_with_source": shares(relations, RELATION_TYPES),
        "unverified": {"entities": sum(e.unverified for e in entities),
                       "relations": sum(r.unverified for r in relations)},
    }


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
    prov = stats["provenance"]
    lines.append(f"  provenance: {prov['with_source']:.0%} of facts have a source; unverified: "
                 f"{prov['unverified']['entities']} entities, {prov['unverified']['relations']} relations; "
                 f"{prov['queries_on_unverified']} queries rest on an unverified fact")
    lines.append("    with a source: " + ", ".join(f"{t} {s:.0%}" for t, s in
                                               {**prov["entities_with_source"], **prov["relations_with_source"]}.items()))
    lines.append(f"Benchmark: {stats['queries']} queries ({stats['queries_with_media']} with media)")
    keys = stats["answer_keys"]
    lines.append(f"  answer keys: {keys['with_key']} queries have one ("
                 + ", ".join(f"{kind} {n}" for kind, n in keys["by_kind"].items())
                 + f"; {keys['derived']} derived by the importer), {keys['without_key']} have none "
                 "(judged by the text rules)")
    shortcut = stats["recognition_shortcut"]
    if shortcut["bm25_first"] is not None:
        lines.append(f"  recognition shortcut: BM25 of the perception text over the monster's attack captions "
                     f"ranks the answer first for {shortcut['bm25_first']:.1%} of {shortcut['measured']} "
                     f"sub-task II queries (lower means the scene must be perceived)")
    lines.append(f"  {'sub-task':<28} {'n':>4} {'entities':>9} {'depth':>6}")
    for roman, s in stats["by_subtask"].items():
        ent = f"{s['avg_entities']:.2f}" if s["avg_entities"] is not None else "-"
        dep = f"{s['avg_depth']:.2f}" if s["avg_depth"] is not None else "-"
        lines.append(f"  {s['name']:<28} {s['queries']:>4} {ent:>9} {dep:>6}")
    return "\n".join(lines)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", nargs="?", default="mh-mmkg",
                        help="built dataset folder, Hub repo id, or curated sources folder (default: mh-mmkg)")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")


def run(args: argparse.Namespace) -> int:
    from .loading import load_graph, load_queries

    stats = compute_stats(load_graph(args.dataset), load_queries(args.dataset))
    print(json.dumps(stats, indent=2) if args.json else format_stats(stats))
    return 0
