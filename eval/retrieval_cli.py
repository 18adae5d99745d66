"""Score a ranking of KG entities per benchmark query: retrieval alone, without any reader model.

The benchmark as a retrieval task: the corpus is one document per KG entity, the queries are the
benchmark's questions with their scene descriptions, and the relevance judgements are the entities
on each query's ground-truth paths (grade 2 where a path ends, 1 on the way; the topic monster only
for questions about the monster itself). `mhmmkg export --format beir` writes the three files in
the BEIR layout for tools that read it.

The run is a TREC run file (QUERY_ID Q0 ENTITY_ID RANK SCORE TAG per line) or a JSON object
{query_id: {entity_id: score}}. Measures come from ir-measures (trec_eval): R@k (recall of the
judged entities in the top k), nDCG@k (graded), RR (reciprocal rank of the first judged entity; its
mean is MRR), each the mean over every benchmark query (a query the run leaves out scores 0), with
seeded bootstrap 95% intervals over queries.

Examples:
  mhmmkg rank --method bm25 --out bm25.trec                  # a baseline run
  mhmmkg evaluate-retrieval bm25.trec
  mhmmkg evaluate-retrieval my-dense.json --measures R@10 nDCG@10 RR --json scores.json

Needs the retrieval extra: pip install 'mhmmkg[retrieval]'.
"""
from __future__ import annotations

import argparse

from mhmmkg.files.atomic import atomic_write_json
from mhmmkg.integrations import require
from mhmmkg.files.outputs import add_force_argument, claim_output_file

from .retrieval import DEFAULT_MEASURES, RetrievalEvaluator, format_retrieval
from .validate_cli import add_dataset_argument


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="TREC run file or JSON {query_id: {entity_id: score}}")
    add_dataset_argument(parser)
    parser.add_argument("--measures", nargs="+", default=list(DEFAULT_MEASURES), metavar="M",
                        help=f"R@k, P@k, nDCG@k or RR (default: {' '.join(DEFAULT_MEASURES)})")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="bootstrap resamples for the 95%% intervals (0: none; default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--json", metavar="OUT", help="also write the result (with per-query values) as JSON")
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    require("ir_measures", "retrieval")
    if args.json:
        claim_output_file(args.json, "retrieval-scores", inputs=[args.run, args.dataset], flag="--json", force=args.force)
    evaluator = RetrievalEvaluator(args.dataset, measures=args.measures, resamples=max(0, args.bootstrap),
                                   seed=args.seed)
    result = evaluator.eval(args.run)
    print(format_retrieval(result))
    if args.json:
        atomic_write_json(args.json, result)
    return 0
