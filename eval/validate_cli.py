"""Check a submission file (JSON Lines, one prediction per query) against the benchmark.

Reports every problem in one pass, each with its line, query id, JSON pointer and reason:
unreadable or non-JSON lines, schema violations (schema/submission.schema.json), duplicate or
unknown query ids, unknown entity ids, path hops that are not edges of the KG in that
direction, topics that are not monsters, captions of unknown entities, and a malformed run
metadata side file (<name>.meta.json). Queries without a prediction are a warning (an error
with --complete). Exit code 0 when the submission is valid, 2 otherwise.

Example:
  mhmmkg validate runs/perceptive.jsonl --dataset mh-mmkg
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mhmmkg.errors import Problem

from mhmmkg.dataset.manifest import dataset_fingerprint

from .submission import InvalidSubmission, SubmissionChecker, meta_path

DEFAULT_DATASET = "mh-mmkg"


def add_dataset_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", default=DEFAULT_DATASET, metavar="DIR",
                        help="the benchmark: a built dataset folder, a Hub dataset id or a curated sources "
                             f"folder (default: {DEFAULT_DATASET})")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submission", metavar="SUB.jsonl", help="the submission file")
    add_dataset_argument(parser)
    parser.add_argument("--complete", action="store_true",
                        help="treat queries without a prediction as an error, not a warning")


def load_benchmark(dataset: str):
    from mhmmkg.dataset.loading import load_graph, load_queries

    return load_graph(dataset), load_queries(dataset)


def run(args: argparse.Namespace) -> int:
    from mhmmkg.collector import fewer_collections

    with fewer_collections(off=True):
        return _validate(args)


def _validate(args: argparse.Namespace) -> int:
    from mhmmkg.dataset.loading import load_graph, load_queries, load_query_ids

    graph, queries = load_graph(args.dataset), load_query_ids(args.dataset)
    fingerprint = dataset_fingerprint(args.dataset)      # a built folder's: no queries to make
    if fingerprint is None:         # sources or a Hub id: the content fingerprint a run records
        fingerprint = dataset_fingerprint(args.dataset, graph, load_queries(args.dataset))
    checked = SubmissionChecker.for_query_ids(graph, queries, fingerprint).check_file(args.submission)
    if args.complete and checked.missing:
        checked.problems.append(Problem(checked.source, "", f"{len(checked.missing)} benchmark queries have no "
                                                            f"prediction (--complete): {', '.join(checked.missing[:10])}"
                                                            f"{', ...' if len(checked.missing) > 10 else ''}"))
    if not checked.ok:
        raise InvalidSubmission(checked.problems, checked.warnings)
    for warning in checked.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if checked.missing:
        print("note: 'mhmmkg evaluate' counts queries without a prediction as wrong with P = R = 0 "
              "(or leaves them out with --missing skip)", file=sys.stderr)
    print(f"{checked.source}: valid: {len(checked.predictions)} prediction(s) for {len(queries)} benchmark queries"
          + (f"; run metadata from {meta_path(Path(args.submission))}" if checked.run_meta else ""))
    return 0
