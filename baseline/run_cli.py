"""Run the multi-agent baseline (perceiver, topic selection, expansion, validation, summarizer)
on the benchmark and write a run folder with a submission.

Settings (the paper's Table 2):
  vanilla          query media + question, no knowledge graph
  vanilla_plus     human scene description + question, no knowledge graph
  know             human description + the ground-truth knowledge paths (upper bound)
  perceptive       human description + the model searches the KG (human captions)
  unaided_offline  model describes the query media and, beforehand, the KG media
  unaided_online   model describes KG media while validating, knowing the query

Models: --model offline (deterministic, no network, no key) or --model openai with any
OpenAI-compatible endpoint (--base-url, --model-name, --api-key-env). Replies are cached in
SQLite, so an identical second run makes no calls. A run killed midway continues with --resume.

Examples:
  mhmmkg run --setting perceptive --model offline --out runs/offline-perceptive
  mhmmkg run --setting know --model openai --base-url http://127.0.0.1:8000/v1 \\
      --model-name Qwen2.5-VL-7B --out runs/qwen-know --concurrency 16
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mhmmkg.errors import UserError

from .runner import RunOptions, execute, format_summary
from .settings import SEARCH_ORDERS, SETTINGS, SearchOptions


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The chat model options, shared with ``mhmmkg caption``."""
    group = parser.add_argument_group("model")
    group.add_argument("--model", choices=("offline", "openai"), default="offline",
                       help="offline: the built-in deterministic model (default); openai: an OpenAI-compatible endpoint")
    group.add_argument("--base-url", metavar="URL", help="API root of the endpoint, e.g. http://127.0.0.1:8000/v1 "
                                          "(default https://api.openai.com/v1)")
    group.add_argument("--model-name", metavar="NAME", help="model name the endpoint serves (needed with --model openai)")
    group.add_argument("--api-key-env", metavar="VAR",
                       help="environment variable holding the API key; without it no Authorization header is sent")
    group.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="seconds to wait for one reply (default 60)")
    group.add_argument("--max-retries", type=int, default=6, metavar="N",
                       help="retries of a failed call: 429, 5xx, timeouts, broken replies (default 6)")
    group.add_argument("--temperature", type=float, default=0.0, metavar="T", help="sampling temperature (default 0)")
    group.add_argument("--max-tokens", type=int, metavar="N", help="cap on tokens per reply (default: the endpoint's)")
    group.add_argument("--seed", type=int, default=0, metavar="N", help="seed passed to the endpoint (default 0)")
    group.add_argument("--cache", type=Path, metavar="FILE",
                       help="SQLite reply cache (default $XDG_CACHE_HOME/mhmmkg/chat.sqlite or ~/.cache/...)")
    group.add_argument("--no-cache", action="store_true", help="do not read or write the reply cache")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", default="mh-mmkg", metavar="DIR",
                        help="built dataset folder, Hub dataset id or curated sources folder (default mh-mmkg)")
    parser.add_argument("--concurrency", type=int, default=4, metavar="N",
                        help="calls in flight at once; queries run in parallel, the steps of one query in order "
                             "(default 4)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--setting", required=True, choices=list(SETTINGS), help="experimental setting")
    parser.add_argument("--out", required=True, type=Path, metavar="RUNDIR", help="run folder to write")
    add_common_arguments(parser)
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N queries")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in RUNDIR (same configuration): finished queries are kept")
    add_model_arguments(parser)
    group = parser.add_argument_group("search")
    group.add_argument("--search", choices=SEARCH_ORDERS, default="bfs", help="breadth-first (default) or depth-first")
    group.add_argument("--alpha", type=int, default=5, metavar="N", help="complete paths given to the summarizer (default 5)")
    group.add_argument("--max-depth", type=int, default=4, metavar="N", help="hops from the topic entity (default 4)")
    group.add_argument("--path-budget", type=int, default=10, metavar="N", help="stop after this many complete paths (default 10)")
    group.add_argument("--retriever", metavar="MODULE:FUNCTION",
                       help="replace the agents' topic selection and search with your retriever: a function "
                            "retrieve(query, graph) -> entity-id paths from the topic monster (MODULE:FUNCTION "
                            "or FILE.py:FUNCTION; e.g. mhmmkg.baseline.retrievers.bm25:retrieve); the summarizer, "
                            "run folder and submission stay")
    group.add_argument("--captions", type=Path, metavar="FILE",
                       help="unaided_offline: KG captions made by `mhmmkg caption` (default: made in the run)")


def options_from(args: argparse.Namespace) -> RunOptions:
    for name in ("alpha", "max_depth", "path_budget"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} must be at least 1")
    return RunOptions(
        setting=args.setting, out=args.out, model=args.model, model_name=args.model_name, base_url=args.base_url,
        api_key_env=args.api_key_env, dataset=args.dataset,
        search=SearchOptions(order=args.search, alpha=args.alpha, max_depth=args.max_depth,
                             path_budget=args.path_budget),
        temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed, concurrency=args.concurrency,
        limit=args.limit, resume=args.resume, quiet=args.quiet, cache=args.cache, no_cache=args.no_cache,
        timeout=args.timeout, max_retries=args.max_retries, captions=args.captions, retriever=args.retriever,
    )


def run(args: argparse.Namespace) -> int:
    outcome = execute(options_from(args))
    if not args.quiet:
        print(f"mhmmkg run: {args.setting} with {args.model}: {outcome.new_queries} queries answered now, "
              f"{outcome.summary['queries']} in total", file=sys.stderr)
        print(format_summary(outcome.summary), file=sys.stderr)
    print(outcome.submission)
    return 0
