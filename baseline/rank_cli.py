"""Rank the KG's entities for every benchmark query: a baseline run for `mhmmkg evaluate-retrieval`.

`--method bm25` ranks the corpus of `mhmmkg export --format beir` (one document per entity: its
name, caption, context and relations) by Okapi BM25 (k1 1.5, b 0.75) against the query text
(the question as the model sees it, then the scene description), and keeps the `--depth` best
entities per query. Deterministic; no model.

The run is written as a TREC run file (QUERY_ID Q0 ENTITY_ID RANK SCORE TAG), or as JSON
{query_id: {entity_id: score}} when --out ends in .json.

Example:
  mhmmkg rank --method bm25 --out bm25.trec && mhmmkg evaluate-retrieval bm25.trec
"""
from __future__ import annotations

import argparse
from pathlib import Path

from mhmmkg.atomic import atomic_path, atomic_write_json
from mhmmkg.beir import query_text
from mhmmkg.outputs import add_force_argument, claim_output_file

METHODS = ("bm25",)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=METHODS, default="bm25", help="ranking method (default: bm25)")
    parser.add_argument("--dataset", default="mh-mmkg", metavar="DIR",
                        help="built dataset folder, Hub repo id or sources folder (default: mh-mmkg)")
    parser.add_argument("--depth", type=int, default=100, help="entities kept per query (default 100)")
    parser.add_argument("--out", required=True, help="run file to write (.json for JSON, else TREC)")
    add_force_argument(parser)


def bm25_run(dataset: str, depth: int) -> dict[str, dict[str, float]]:
    from mhmmkg.loading import load_graph, load_queries

    from .retrievers.bm25 import index

    kg = load_graph(dataset)
    entity_index = index(kg)
    run = {}
    for query in load_queries(dataset):
        run[query.id] = {e: round(score, 6) for e, score in entity_index.ranked(query_text(query, kg), depth)}
    return run


def write_trec(run: dict[str, dict[str, float]], out: Path, tag: str) -> None:
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for query_id, scores in run.items():
            for rank, (entity, score) in enumerate(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])), 1):
                f.write(f"{query_id} Q0 {entity} {rank} {score} {tag}\n")


def run(args: argparse.Namespace) -> int:
    from mhmmkg.errors import UserError

    if args.depth < 1:
        raise UserError(f"--depth {args.depth}: must be at least 1")
    out = claim_output_file(args.out, "ranking", inputs=[args.dataset], force=args.force)
    ranking = bm25_run(args.dataset, args.depth)
    if out.suffix == ".json":
        atomic_write_json(out, ranking)
    else:
        write_trec(ranking, out, tag=f"mhmmkg-{args.method}")
    print(f"wrote a {args.method} run of {len(ranking)} queries to {out}")
    return 0
