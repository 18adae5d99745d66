"""Write one self-contained HTML report of one or more runs: a sortable leaderboard (Acc., Pre.,
Rec., Top., grounded accuracy, Sim. with 95% intervals; calls and seconds per query; charts by
sub-task and hop count) and a browser of every query (filter by sub-task, hops, run, right or
wrong, runs that disagree, or text; open one to see the question as the model saw it, the
scene, the ground-truth paths against each run's paths, the subgraph they touch, the answers and
verdicts, and every agent call with its prompt and reply).

Each RUN is a run folder (from 'mhmmkg run') or a submission file. The file needs no server and
no network: open it from disk. Filters and the open query live in the link, so a link can point
at one query or one selection:
  report.html#q=zinogre-002
  report.html#subtask=IV&wrong          (wrong in some run; add run=0 for the first run only)

Examples:
  mhmmkg report runs/demo/know runs/demo/perceptive --out report.html
  mhmmkg report runs/a/submission.jsonl runs/b --dataset mh-mmkg --out compare.html
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mhmmkg.atomic import atomic_write_text
from mhmmkg.errors import UserError
from mhmmkg.outputs import add_force_argument, claim_output_file

from .validate_cli import add_dataset_argument



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", type=Path, help="run folders or submission files")
    add_dataset_argument(parser)
    parser.add_argument("--out", required=True, type=Path, metavar="FILE.html", help="the report to write")
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    add_force_argument(parser)


def check_output(out: Path, runs: list[Path], dataset: str, force: bool = False) -> None:
    """The report may replace only a report this command wrote (or any file, ``force``), never
    lands on its inputs nor inside a run folder."""
    from .html_report.runs import input_files

    if out.suffix.lower() not in (".html", ".htm"):
        raise UserError(f"{out}: the report must end in .html")
    claim_output_file(out, "report", inputs=[*runs, *set().union(*(input_files(r) for r in runs)), dataset],
                      force=force)


def write_report(runs: list[Path], dataset: str, out: Path, *, quiet: bool = True, force: bool = False) -> Path:
    from mhmmkg.loading import load_graph, load_queries

    from .evaluator import Evaluator
    from .html_report.page import render_report
    from .html_report.runs import labels_for, load_run

    check_output(out, runs, dataset, force)
    graph, queries = load_graph(dataset), load_queries(dataset, with_images=True)
    evaluator = Evaluator(dataset, graph=graph, queries=queries, quiet=True)
    views = []
    for path, label in zip(runs, labels_for(runs)):
        if not quiet:
            print(f"mhmmkg report: scoring {path}", file=sys.stderr)
        views.append(load_run(path, evaluator, label))
    html = render_report(graph, queries, views, dataset=str(dataset), judge=evaluator.judge.name)
    try:
        atomic_write_text(out, html)
    except OSError as exc:
        raise UserError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    return out


def run(args: argparse.Namespace) -> int:
    out = write_report(args.runs, args.dataset, args.out, quiet=args.quiet, force=args.force)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, {len(args.runs)} run(s))")
    return 0
