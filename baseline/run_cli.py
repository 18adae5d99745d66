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
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.protocols import RUN_CHOICES, add_protocol_argument, resolve

from .backends import AGENT_GROUPS, AGENTS, BACKENDS
from .runner import RunOptions, execute, format_summary
from .search import STRATEGIES
from .settings import QUESTION_STYLES, REPLY_READINGS, SETTINGS, QuestionOptions, SearchOptions


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The chat model options, shared with ``mhmmkg caption``."""
    group = parser.add_argument_group("model")
    group.add_argument("--model", type=BACKENDS.check, metavar=BACKENDS.metavar(), default="offline",
                       help="offline: the built-in deterministic model (default); openai: an OpenAI-compatible endpoint; "
                            "MODULE:FUNCTION or FILE.py:FUNCTION: FUNCTION(options) returns a backend of your own "
                            "(see docs/architecture.md)")
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
    group.add_argument("--seed", type=int, default=0, metavar="N", help="seed passed to the endpoint, and of the --sample draw (default 0)")
    agent_names = ", ".join(AGENTS + tuple(AGENT_GROUPS))
    group.add_argument("--agent-model", action="append", default=[], metavar="AGENT=NAME",
                       help=f"give one agent its own model (repeatable; NAME 'offline' is the built-in model); "
                            f"AGENT is one of {agent_names} (searcher = topic, expansion and validation)")
    group.add_argument("--agent-base-url", action="append", default=[], metavar="AGENT=URL",
                       help="give one agent its own endpoint (repeatable); it then gets no key but its own "
                            "--agent-api-key-env")
    group.add_argument("--agent-api-key-env", action="append", default=[], metavar="AGENT=VAR",
                       help="environment variable holding the key for one agent's endpoint (repeatable)")
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
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N queries (in id order: the first monsters)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="a seeded sample of N queries spread over sub-tasks (equal shares) and monsters (as even "
                             "as that allows); --seed S chooses the sample. Recorded in the manifest's 'selection'")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in RUNDIR (same configuration): finished queries are kept")
    add_model_arguments(parser)
    add_protocol_argument(parser)
    group = parser.add_argument_group("search (defaults: those of --protocol)")
    group.add_argument("--search", type=STRATEGIES.check, metavar=STRATEGIES.metavar(), default=None,
                       help="bfs: ours, breadth-first (protocol ours); dfs: ours, depth-first; paper: the paper's "
                            "section 4.1 (protocol paper); official: the authors' search (protocol authors); "
                            "MODULE:FUNCTION or FILE.py:FUNCTION: a strategy of your own (see docs/architecture.md)")
    group.add_argument("--alpha", type=int, default=None, metavar="N",
                       help="bfs: complete paths given to the summarizer, shortest first; dfs/paper: the first "
                            "this many found; official: stop once this many paths are found, all go to the "
                            "summarizer (5 in every protocol)")
    group.add_argument("--max-depth", type=int, default=None, metavar="N",
                       help="bfs/dfs only (ours): hops from the topic entity (protocol ours: 4; paper, authors: "
                            "no limit)")
    group.add_argument("--path-budget", type=int, default=None, metavar="N",
                       help="bfs/dfs only (ours): stop after this many complete paths (protocol ours: 10; paper, "
                            "authors: no limit)")
    group.add_argument("--prompts", type=Path, metavar="FILE",
                       help="prompt-set file (default: our prompts); e.g. made by `mhmmkg import-official-prompts`")
    group.add_argument("--replies", choices=REPLY_READINGS, default=None,
                       help="lenient: read agents' replies forgivingly (protocols ours, paper); exact: as the "
                            "authors' code reads replies in their prompts' shapes (protocol authors): the topic "
                            "must be a monster's name exactly, picked names exact KG keys ('Zinogre Back Slam'), "
                            "the topic entity complete only on the reply 'Yes'")
    group.add_argument("--topic-shortlist", type=int, default=0, metavar="N",
                       help="show the topic agent at most N monsters, those the question, auxiliary information "
                            "or scene names (all of them when none is named); for real models on a large KG. "
                            "A deviation from the paper, which lists every monster (default 0: every monster)")
    group.add_argument("--retriever", metavar="MODULE:FUNCTION",
                       help="replace the agents' topic selection and search with your retriever: a function "
                            "retrieve(query, graph) -> entity-id paths from the topic monster (MODULE:FUNCTION "
                            "or FILE.py:FUNCTION; e.g. mhmmkg.baseline.retrievers.bm25:retrieve); the summarizer, "
                            "run folder and submission stay")
    group.add_argument("--captions", type=Path, metavar="FILE",
                       help="unaided_offline: KG captions made by `mhmmkg caption` (default: made in the run)")
    group = parser.add_argument_group("question text (the paper's Table 12)")
    group.add_argument("--question-style", choices=QUESTION_STYLES, default=None,
                       help="open: our cleaned text (protocol ours); official: the authors' exact string (protocols "
                            "paper and authors), and with --no-name the auxiliary information still names the "
                            "monster, as their code does")
    group.add_argument("--no-name", action="store_true",
                       help="withhold the monster's name: 'the monster' (text-only queries keep the name)")
    group.add_argument("--no-extra", action="store_true", help="leave out the auxiliary information")


def pairs(values: list[str], flag: str) -> dict[str, str]:
    """``["A=x", "B=y"]`` -> ``{"A": "x", "B": "y"}``; a malformed or repeated AGENT is a user error."""
    out: dict[str, str] = {}
    for value in values:
        agent, sep, setting = value.partition("=")
        if not sep or not agent.strip() or not setting.strip():
            raise UserError(f"{flag} {value!r}: expected AGENT=VALUE")
        if agent.strip() in out:
            raise UserError(f"{flag}: agent {agent.strip()!r} given twice")
        out[agent.strip()] = setting.strip()
    return out


def options_from(args: argparse.Namespace) -> RunOptions:
    for name in ("alpha", "max_depth", "path_budget"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} must be at least 1")
    resolve(args, RUN_CHOICES)
    if args.topic_shortlist < 0:
        raise UserError("--topic-shortlist must be 0 (every monster) or more")
    return RunOptions(
        prompts=args.prompts, agent_models=pairs(args.agent_model, "--agent-model"),
        agent_base_urls=pairs(args.agent_base_url, "--agent-base-url"),
        agent_api_key_envs=pairs(args.agent_api_key_env, "--agent-api-key-env"),
        setting=args.setting, out=args.out, model=args.model, model_name=args.model_name, base_url=args.base_url,
        api_key_env=args.api_key_env, dataset=args.dataset,
        search=SearchOptions(order=args.search, alpha=args.alpha, max_depth=args.max_depth,
                             path_budget=args.path_budget),
        question=QuestionOptions(style=args.question_style, use_name=not args.no_name, use_extra=not args.no_extra),
        temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed, concurrency=args.concurrency,
        limit=args.limit, sample=args.sample, resume=args.resume, quiet=args.quiet, cache=args.cache, no_cache=args.no_cache,
        timeout=args.timeout, max_retries=args.max_retries, captions=args.captions,
        topic_shortlist=args.topic_shortlist, retriever=args.retriever, protocol=args.protocol,
        replies=args.replies,
    )


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
