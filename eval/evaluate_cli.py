"""Score a submission on the MH benchmark.

Prints the paper's table row (Acc., Pre., Rec.) with Top. (topic entity accuracy) and grounded
accuracy (answer accepted, recall 1 and path precision at least 1/5), per sub-task (I..VI) and
per hop count, each with its number of queries n, and seeded bootstrap 95% intervals. Sim. (caption similarity) is shown when
the submission holds generated captions. The submission is validated first (the same checks as
'mhmmkg validate'); an invalid one is refused.

Judges: 'exact' (default, offline, deterministic: by the query's answer key, or normalised
matching that accepts entity aliases for a query without one; the rules are below),
'exact-nokey' (the text rules for every query, as before answer keys) or 'openai' (a chat model behind any OpenAI-compatible endpoint answers Yes/No; its
verdicts are cached in a SQLite file; unparseable verdicts are counted as wrong and reported).
The judge endpoint gets only the key --judge-api-key-env names ($OPENAI_API_KEY only on the
default OpenAI endpoint). --json and --plot may not name an input (the submission, its
metadata, the compared run or the dataset).

--protocol ours (default), paper or authors sets every scoring choice at once; each option
given on its own (--missing, --path-matching, --judge-verdict) wins over it:
  ours     one-to-one path matching by entity, missing predictions count as wrong, the judge's
           reply is read by its first word, our question text for the judge
  paper    as ours (supplement 2.2 matches paths one to one), the authors' question text for the judge
  authors  the authors' evaluation.py: a ground-truth route counts when any predicted route has the
           same entity names (--question-list gives their spelling, misspellings included); only
           an exact "Yes" from an LLM judge counts (an empty answer is judged too); missing
           predictions are skipped; a path through entities or edges the KG lacks matches nothing
           (the submission is not refused); a File the question list repeats is scored once (first
           row's truth, last row's prediction); the routes of vanilla, vanilla_plus and know are
           not read. --official is --protocol authors. Add --judge openai --judge-model
           gpt-4o-2024-11-20 for their judge model.
A result file of the authors' code (a JSON object keyed by File) is recognised: convert it
first with `mhmmkg import-official-results`.

When the submission lies in a run folder, the run's efficiency from its summary.json (calls per
query, seconds per call, retrieval seconds per query; mean and std) is shown too.

Examples:
  mhmmkg evaluate runs/perceptive.jsonl --json scores.json
  mhmmkg evaluate gpt4o-perceptive.jsonl --dataset mh-mmkg-official --protocol authors \\
      --question-list MH-MMKG/questions_mh/question_list.xlsx
  mhmmkg evaluate runs/a.jsonl --compare runs/b.jsonl
  mhmmkg evaluate runs/a.jsonl --judge openai --judge-model gpt-4o-mini
  mhmmkg evaluate runs/a.jsonl --judge openai --judge-model gpt-4o --judge-prompts official-prompts.json
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from mhmmkg.files.atomic import atomic_write_json
from mhmmkg.llm import DEFAULT_BASE_URL, DEFAULT_KEY_VARIABLE
from mhmmkg.errors import UserError
from mhmmkg.files.outputs import add_force_argument, claim_output_file
from mhmmkg.benchmark.protocols import EVALUATE_CHOICES, add_protocol_argument, resolve
from mhmmkg.registry import Registry, guarded
from mhmmkg.files.submission_file import meta_path

from .evaluator import EXACT_JUDGES, MATCHINGS, MISSING_MODES, Evaluator, with_efficiency
from .judges import VERDICT_PARSERS
from .key_judge import RULES_HELP
from .metrics import MAX_RESAMPLES
from .report import format_result
from mhmmkg.collector import fewer_collections, leave_to_exit
from .validate_cli import add_dataset_argument, load_benchmark

def default_judge_cache() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "mhmmkg" / "judge.sqlite"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = RULES_HELP
    parser.add_argument("submission", metavar="SUB.jsonl", help="the submission file (JSON Lines)")
    add_dataset_argument(parser)
    parser.add_argument("--judge", type=JUDGES.check, metavar=JUDGES.metavar(), default="exact",
                        help="who decides whether an answer is correct (default: exact; exact-nokey: the "
                             "text rules only, ignoring answer keys, as before keys existed; MODULE:FUNCTION "
                             "or FILE.py:FUNCTION: a judge of your own, see docs/architecture.md)")
    add_protocol_argument(parser)
    parser.add_argument("--official", action="store_true", help="the same as --protocol authors")
    parser.add_argument("--missing", choices=MISSING_MODES,
                        help="queries without a prediction: 'zero' counts them as wrong with P = R = 0 "
                             "(protocols ours, paper); 'skip' leaves them out, as the authors' script does "
                             "(protocol authors)")
    parser.add_argument("--path-matching", choices=MATCHINGS,
                        help="one-to-one: each predicted path matches at most one ground-truth path, by entity "
                             "(protocols ours, paper); any: a ground-truth path counts when any predicted path "
                             "equals it; names: 'any' on the routes' entity names as strings (protocol authors)")
    parser.add_argument("--question-list", type=Path, metavar="XLSX",
                        help="with --path-matching names: the authors' question_list.xlsx the dataset was imported "
                             "from; its routes, spelt as written, are the ground truth (default: the KG's names)")
    parser.add_argument("--json", metavar="OUT", type=Path,
                        help="also write the full result (scores, intervals, per-query verdicts) as JSON")
    parser.add_argument("--plot", metavar="FILE", type=Path,
                        help="also draw accuracy per sub-task as a bar chart (FILE.png or FILE.svg; "
                             "with --compare both runs; needs the [draw] extra)")
    parser.add_argument("--compare", metavar="OTHER.jsonl",
                        help="a second submission: adds a paired bootstrap of the differences (this - other)")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help=f"bootstrap resamples for the intervals (default: 1000; 0 turns them off; "
                             f"at most {MAX_RESAMPLES:,})")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_force_argument(parser)
    add_llm_judge_arguments(parser)


def add_llm_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the LLM judge (--judge openai), shared with `mhmmkg judge-agreement`."""
    llm = parser.add_argument_group("LLM judge (--judge openai)")
    llm.add_argument("--judge-verdict", choices=tuple(VERDICT_PARSERS),
                     help="how the judge's reply is read: first-word: a reply starting with yes/no (default; protocols "
                          "ours, paper); exact-yes: only the reply 'Yes' counts and empty answers are judged too (authors)")
    llm.add_argument("--judge-model", metavar="NAME", help="model name at the endpoint (required with --judge openai)")
    llm.add_argument("--judge-base-url", metavar="URL",
                     help=f"API root of an OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or {DEFAULT_BASE_URL})")
    llm.add_argument("--judge-api-key-env", metavar="VAR",
                     help="environment variable holding the API key for the judge endpoint. Without it, "
                          f"only the default endpoint {DEFAULT_BASE_URL} gets $OPENAI_API_KEY (when set); "
                          "an endpoint you name gets no key unless you name its variable here")
    llm.add_argument("--judge-cache", metavar="FILE", type=Path,
                     help=f"SQLite cache of verdicts (default: {default_judge_cache()})")
    llm.add_argument("--judge-prompts", metavar="FILE", type=Path,
                     help="prompt-set file whose 'judge' (and 'caption_judge') prompt the judge gets instead of "
                          "ours, e.g. the authors' judge from `mhmmkg import-official-prompts`")
    llm.add_argument("--judge-workers", type=int, default=4, metavar="N",
                     help="concurrent judge requests (default: 4)")


def judge_api_key(variable: str | None, base_url: str) -> str | None:
    """The key for the judge endpoint: from the variable the user named; without one, OPENAI_API_KEY
    goes to the default OpenAI endpoint only, never to an endpoint the user gave."""
    from mhmmkg.llm.chat import endpoint_key

    return endpoint_key(variable, "--judge-api-key-env", base_url, default_variable=DEFAULT_KEY_VARIABLE)


def _exact_judge(args: argparse.Namespace) -> str:
    """The exact judges are built by the Evaluator (they need the graph): their name stands for them."""
    return args.judge


def _llm_judge(args: argparse.Namespace):
    """An LLMJudge on a cached OpenAI-compatible backend."""
    if not args.judge_model:
        raise UserError("--judge openai needs --judge-model NAME")
    from mhmmkg.llm.chat import endpoint
    from mhmmkg.llm.prompt_sets import load_prompt_set, require_agents

    from .judges import LLMJudge

    prompts = None
    if args.judge_prompts:
        prompts = load_prompt_set(args.judge_prompts)
        require_agents(prompts, ["judge"], f"--judge-prompts {args.judge_prompts}")
    base_url = args.judge_base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    backend = endpoint(base_url, args.judge_model, api_key=judge_api_key(args.judge_api_key_env, base_url),
                       cache=args.judge_cache or default_judge_cache())
    return LLMJudge(backend, prompts=prompts, verdict=args.judge_verdict or "first-word")


#: name -> factory(args) of the judge; ``--judge MODULE:FUNCTION`` names a FUNCTION() that returns a
#: judge of one's own (an object with ``name`` and ``judge(Judgement) -> Verdict``, see eval/judges.py)
JUDGES = Registry("judge", "--judge", {**{name: _exact_judge for name in EXACT_JUDGES}, "openai": _llm_judge},
                  plugins=True)


def make_judge(args: argparse.Namespace):
    """The judge the arguments ask for: 'exact', an LLMJudge, or the user's own (MODULE:FUNCTION)."""
    if args.judge != "openai" and args.judge_prompts:
        raise UserError("--judge-prompts needs --judge openai (the exact judge uses no prompt)")
    if args.judge not in JUDGES:
        return PluginJudge(args.judge)
    return JUDGES[args.judge](args)


class PluginJudge:
    """The user's judge (``--judge MODULE:FUNCTION``), whose errors become one clear message."""

    def __init__(self, spec: str):
        where = f"--judge {spec}"
        judge = guarded(JUDGES.resolve(spec), where, "judge")()
        self.name = judge.name
        self.judge = guarded(judge.judge, where, "judge")
        self.close = getattr(judge, "close", lambda: None)


def resolve_protocol(args: argparse.Namespace) -> None:
    """--official is --protocol authors; then the protocol fills the scoring options not given."""
    if args.official:
        if args.protocol not in (None, "authors"):
            raise UserError(f"--official is --protocol authors; it contradicts --protocol {args.protocol}")
        args.protocol = "authors"
    filled = resolve(args, EVALUATE_CHOICES)
    for dest, known in (("path_matching", MATCHINGS), ("judge_verdict", VERDICT_PARSERS), ("missing", MISSING_MODES)):
        if dest in filled and filled[dest] not in known:        # a scoring policy of one's own
            raise UserError(f"--protocol {args.protocol}: --{dest.replace('_', '-')} {filled[dest]!r} is not one of "
                            f"{', '.join(known)}")
    if args.question_list and args.path_matching != "names":
        raise UserError("--question-list gives the route names for --path-matching names (protocol authors); "
                        f"it has no use with --path-matching {args.path_matching}")


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    from mhmmkg.official.results.authors_files import question_list_routes, refuse_authors_result  # on top of eval

    resolve_protocol(args)
    for submission in (args.submission, args.compare):
        if submission:
            refuse_authors_result(submission, args.dataset)
    graph, queries = load_benchmark(args.dataset)
    truth_names = question_list_routes(args.question_list, queries) if args.question_list else None
    judge = make_judge(args)
    evaluator = Evaluator(args.dataset, graph=graph, queries=queries, judge=judge, missing=args.missing,
                          protocol=args.protocol, matching=args.path_matching, truth_names=truth_names,
                          resamples=args.bootstrap, seed=args.seed, quiet=args.quiet or args.judge in EXACT_JUDGES,
                          judge_workers=args.judge_workers if args.judge not in EXACT_JUDGES else 1)
    checked = None
    try:
        if args.compare:
            return evaluator.compare(args.submission, args.compare)
        # what ``evaluator.eval(args.submission)`` does, with the checked predictions held, to leave them to the OS too
        checked = evaluator.check(args.submission)
        return with_efficiency(evaluator.eval(checked), args.submission, checked)
    finally:
        getattr(judge, "close", lambda: None)()
        # plain data; a judge of one's own is freed as before, in case it does something then
        leave_to_exit(graph, queries, *((evaluator, judge, checked) if args.judge in EXACT_JUDGES else ()))


def write_json(result: dict[str, Any], path: Path) -> None:
    try:
        atomic_write_json(path, result)
    except OSError as exc:
        raise UserError(f"{path}: cannot write the JSON result: {exc.strerror or exc}") from None


def write_outputs(result: dict[str, Any], args: argparse.Namespace) -> None:
    """Every file output of the verb; all are drawn from the same result dict."""
    if args.json:
        write_json(result, args.json)
    if args.plot:
        from mhmmkg.kg.draw import plot_subtask_scores

        runs = {str(args.submission): result}
        other = result.get("compare", {}).get("other_result")
        if other:
            runs[str(args.compare)] = other
        plot_subtask_scores(runs, args.plot)


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse bad numbers and outputs that would land on an input, before any work."""
    if not 0 <= args.bootstrap <= MAX_RESAMPLES:
        raise UserError(f"--bootstrap {args.bootstrap}: expected 0 (no intervals) to {MAX_RESAMPLES:,}")
    if args.judge_workers < 1:
        raise UserError("--judge-workers must be at least 1")
    inputs = [args.dataset, args.submission, meta_path(args.submission)]
    if args.compare:
        inputs += [args.compare, meta_path(args.compare)]
    for flag, path, kind in (("--json", args.json, "evaluation"), ("--plot", args.plot, "picture")):
        if path is not None:
            claim_output_file(path, kind, inputs=inputs, flag=flag, force=args.force)
    if args.json is not None and args.plot is not None and args.json.resolve() == args.plot.resolve():
        raise UserError(f"--json and --plot name the same file {args.json}")


def run(args: argparse.Namespace) -> int:
    # the offline judges make no cyclic garbage (off: the same peak memory, 0.13 s less at 100x);
    # an LLM judge's HTTP clients and retries may, so the collector still runs, rarely
    with fewer_collections(off=args.judge in EXACT_JUDGES):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    check_arguments(args)
    if args.plot:
        from mhmmkg.kg.draw import check_picture_path

        check_picture_path(args.plot)
    result = evaluate(args)
    other = result.get("compare", {}).get("other_result", {})
    for warning in result["warnings"] + other.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    print(format_result(result))
    write_outputs(result, args)
    if args.judge in EXACT_JUDGES:
        leave_to_exit(result)       # its per-query rows: plain data, as the evaluator's
    return 0
