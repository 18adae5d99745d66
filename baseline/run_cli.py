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
OpenAI-compatible endpoint (--base-url, --model-name, --api-key-env). Any agent can have its own
model and endpoint (--agent-model perceiver=NAME, the paper's Table 14). Replies are cached in
SQLite, so an identical second run makes no calls. A run killed midway continues with --resume.

Protocol: --protocol ours (default), paper (the paper's section 4.1 search and question text)
or authors (the authors' released code) sets the search, alpha, limits and question style in
one go; each option given on its own wins over the protocol. The protocol is recorded in the
run manifest.

Search: --search bfs (ours, default: breadth-first, global visited set, --max-depth and
--path-budget, the --alpha shortest paths to the summarizer), dfs (the same, depth-first; the
first --alpha paths it completes go to the summarizer), paper (the paper's equations 6-10: no
limits, runs until nothing is open, every root-to-leaf walk of the retrieved subgraph is
submitted, the first --alpha go to the summarizer) or official (the authors' search: stops once
--alpha paths are found, no depth limit; every found path goes to the summarizer). Prompts: ours
by default, or a prompt-set file (--prompts, e.g. made by `mhmmkg import-official-prompts`).

Examples:
  mhmmkg run --setting perceptive --model offline --out runs/offline-perceptive
  mhmmkg run --setting know --model openai --base-url http://127.0.0.1:8000/v1 \\
      --model-name Qwen2.5-VL-7B --out runs/qwen-know --concurrency 16
  mhmmkg run --setting perceptive --model openai --model-name gpt-4o --api-key-env OPENAI_API_KEY \\
      --protocol authors --prompts official-prompts.json --out runs/gpt4o-authors-protocol
  mhmmkg run --setting perceptive --protocol paper --search dfs --alpha 3 --out runs/paper-dfs3
"""
from __future__ import annotations

import argparse
import sys

from mhmmkg.errors import UserError
from mhmmkg.benchmark.protocols import RUN_CHOICES, resolve

from .options import COMMON, MODEL, PROTOCOL, QUESTION, RUN, SEARCH, SELECTION, add_flags, values_from
from .options import pairs  # noqa: F401  (its old home)
from .runner import RunOptions, execute, format_summary

def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The chat model options, shared with ``mhmmkg caption``."""
    add_flags(parser.add_argument_group("model"), MODEL)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    add_flags(parser, COMMON)


def configure(parser: argparse.ArgumentParser) -> None:
    """The flags, group by group, as ``RunOptions`` declares them (``baseline/options.py``)."""
    add_flags(parser, RUN)
    add_common_arguments(parser)
    add_flags(parser, SELECTION)
    add_model_arguments(parser)
    add_flags(parser, PROTOCOL)
    add_flags(parser.add_argument_group("search (defaults: those of --protocol)"), SEARCH)
    add_flags(parser.add_argument_group("question text (the paper's Table 12)"), QUESTION)


def options_from(args: argparse.Namespace) -> RunOptions:
    for name in ("alpha", "max_depth", "path_budget"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} must be at least 1")
    resolve(args, RUN_CHOICES)
    if args.topic_shortlist < 0:
        raise UserError("--topic-shortlist must be 0 (every monster) or more")
    return RunOptions(**values_from(args, (RUN, COMMON, SELECTION, MODEL, PROTOCOL, SEARCH, QUESTION)))


def run(args: argparse.Namespace) -> int:
    options = options_from(args)
    if options.protocol != "ours" and options.prompts is None and options.model == "openai" and not args.quiet:
        print(f"mhmmkg run: note: --protocol {options.protocol} with our prompts; for the authors' prompts give "
              f"--prompts FILE made by `mhmmkg import-official-prompts`", file=sys.stderr)
    outcome = execute(options)
    if not args.quiet:
        print(f"mhmmkg run: {args.setting} with {args.model}: {outcome.new_queries} queries answered now, "
              f"{outcome.summary['queries']} in total", file=sys.stderr)
        print(format_summary(outcome.summary), file=sys.stderr)
    print(outcome.submission)
    return 0
