"""Measure how well a judge agrees with people on a labelled set of replies.

Each label is a reply to a benchmark query with a person's verdict (is it a correct answer?).
The judge decides every reply as `mhmmkg evaluate` would (the question as the model saw it,
the reference, the answer key, the scene as context), and the command prints, overall, per
sub-task (I..VI) and per kind of reply: n, agreement (share of replies where judge and person
agree), Cohen's kappa (agreement corrected for chance) and the confusion matrix (judge yes/no x
person yes/no). The old rules (exact-nokey: the text rules, answer keys ignored) are always
measured beside the judge you choose, so before and after are one command.

Labels: JSON Lines, one object per line: {"query_id", "reply", "verdict": true|false (the
person's), "kind" (e.g. "run:bm25", "hand:hedge"), "note" (optional)}. Default: the set
shipped with the package (mhmmkg/eval/agreement/labels.jsonl). An LLM judge counts an
unreadable verdict as "no", as `evaluate` does.

Examples:
  mhmmkg judge-agreement
  mhmmkg judge-agreement --show-disagreements
  mhmmkg judge-agreement --labels my-labels.jsonl --dataset mh-mmkg --json agreement.json
  mhmmkg judge-agreement --judge openai --judge-model gpt-4o --judge-base-url http://127.0.0.1:8000/v1
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mhmmkg.errors import UserError
from mhmmkg.files.outputs import add_force_argument, claim_output_file

from .agreement import default_labels, judge_agreement, read_labels
from .evaluate_cli import JUDGES, add_llm_judge_arguments, make_judge, write_json
from .evaluator import EXACT_JUDGES, answer_judgement
from .judges import ExactJudge, judge_all
from .key_judge import RULES_HELP
from .validate_cli import add_dataset_argument, load_benchmark

BEFORE = "exact-nokey"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = RULES_HELP
    parser.add_argument("--labels", metavar="FILE", type=Path,
                        help="the labelled replies (JSON Lines; default: the set shipped with the package)")
    add_dataset_argument(parser)
    parser.add_argument("--judge", choices=JUDGES, default="exact",
                        help="the judge to measure (default: exact); exact-nokey, the old rules, is measured beside it")
    parser.add_argument("--show-disagreements", action="store_true",
                        help="list every reply the judge and the person disagree on (query id, reply, person, judge, rule)")
    parser.add_argument("--json", metavar="OUT", type=Path, help="also write every figure and disagreement as JSON")
    add_force_argument(parser)
    add_llm_judge_arguments(parser)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    chosen = make_judge(args)      # checks the judge's options before any work
    graph, queries = load_benchmark(args.dataset)
    by_id = {q.id: q for q in queries}
    labels_path = args.labels or default_labels()
    labels = read_labels(labels_path, set(by_id))
    items = [answer_judgement(by_id[label.query_id], label.reply, graph) for label in labels]
    judges = [args.judge] if args.judge == BEFORE else [args.judge, BEFORE]
    results = {}
    for name in judges:
        judge = ExactJudge(graph, use_keys=name == "exact") if name in EXACT_JUDGES else chosen
        try:
            workers = 1 if name in EXACT_JUDGES else args.judge_workers
            verdicts = judge_all(judge, items, workers=workers)
        finally:
            getattr(judge, "close", lambda: None)()
        results[judge.name if name == "openai" else name] = judge_agreement(labels, verdicts, by_id)
    keyed = sum(by_id[label.query_id].key is not None for label in labels)
    return {"labels": str(labels_path), "dataset": str(args.dataset), "n": len(labels), "keyed": keyed,
            "judges": results}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _kappa(value: float | None) -> str:
    return "-" if value is None else f"{value + 0.0:.3f}".replace("-0.000", "0.000")


def _row(label: str, figures: dict[str, Any]) -> str:
    c = figures["confusion"]
    return (f"{label:<26}{figures['n']:>5}{_pct(figures['agreement']):>8}{_kappa(figures['kappa']):>8}"
            f"{c['yes_yes']:>7}{c['yes_no']:>7}{c['no_yes']:>7}{c['no_no']:>7}")


def format_agreement(result: dict[str, Any], *, show_disagreements: bool = False) -> str:
    header = f"{'':<26}{'n':>5}{'agree%':>8}{'kappa':>8}{'J+P+':>7}{'J+P-':>7}{'J-P+':>7}{'J-P-':>7}"
    lines = [f"Agreement with people: {result['n']} labelled replies ({result['labels']}) on {result['dataset']}; "
             f"{result['keyed']} of them on queries with an answer key",
             "J = judge, P = person, + = correct, - = wrong; kappa = Cohen's kappa", ""]
    for name, figures in result["judges"].items():
        title = f"{name} (old rules: answer keys ignored)" if name == BEFORE else name
        lines += [f"judge {title}", header, _row("all", figures)]
        lines += [_row(f"  query {g}", f) for g, f in figures["by_key"].items()]
        lines += [_row(f"  sub-task {g}", f) for g, f in figures["by_subtask"].items()]
        lines += [_row(f"  {g}", f) for g, f in figures["by_kind"].items()]
        if figures["unparseable"]:
            lines.append(f"  {figures['unparseable']} verdict(s) could not be read as Yes/No (counted as no)")
        lines.append("")
    first_name, first = next(iter(result["judges"].items()))
    lines.append(f"{len(first['disagreements'])} disagreement(s) for judge {first_name}"
                 + ("" if show_disagreements else " (--show-disagreements lists them)"))
    if show_disagreements:
        for d in first["disagreements"]:
            person = "right" if d["person"] else "wrong"
            judged = {True: "right", False: "wrong", None: "unreadable"}[d["judge"]]
            lines.append(f"  {d['query_id']:<22} person {person:<5} judge {judged:<10} rule {d['rule']:<22} {d['reply']!r}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.judge_workers < 1:
        raise UserError("--judge-workers must be at least 1")
    if args.json is not None:
        inputs = [args.dataset, args.labels or default_labels()]
        claim_output_file(args.json, "agreement", inputs=inputs, flag="--json", force=args.force)
    result = measure(args)
    print(format_agreement(result, show_disagreements=args.show_disagreements))
    if args.json:
        write_json(result, args.json)
    return 0
