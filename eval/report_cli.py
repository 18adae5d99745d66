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

Runs are named by what sets them apart (model, setting, protocol, search or retriever, prompt
set, alpha); the paper's Table 3 rows for the same settings stand beside them, marked as
reported. --csv and --latex also write the leaderboard as a table.

Examples:
  mhmmkg report runs/demo/know runs/demo/perceptive --out report.html
  mhmmkg report runs/a runs/b --out report.html --csv board.csv --latex board.tex
  mhmmkg report runs/a/submission.jsonl runs/b --dataset mh-mmkg --out compare.html
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mhmmkg.collector import fewer_collections
from mhmmkg.files.atomic import atomic_path, atomic_write_text
from mhmmkg.errors import UserError
from mhmmkg.files.outputs import add_force_argument, claim_output_file

from .validate_cli import add_dataset_argument



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", type=Path, help="run folders or submission files")
    add_dataset_argument(parser)
    parser.add_argument("--out", required=True, type=Path, metavar="FILE.html", help="the report to write")
    parser.add_argument("--csv", type=Path, metavar="FILE.csv", help="also write the leaderboard as CSV")
    parser.add_argument("--latex", type=Path, metavar="FILE.tex", help="also write the leaderboard as a LaTeX tabular")
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


def check_tables(tables: dict[str, Path | None], out: Path, runs: list[Path], dataset: str, force: bool) -> None:
    """The leaderboard's CSV and LaTeX files: each where any output may go, none on another."""
    from mhmmkg.files.outputs import claim_output_file

    from .html_report.runs import input_files

    inputs = [*runs, *set().union(*(input_files(r) for r in runs)), dataset]
    taken = {out.resolve(): "--out"}
    for flag, path in tables.items():
        if path is None:
            continue
        if path.resolve() in taken:
            raise UserError(f"{flag} {path}: is also the {taken[path.resolve()]} file; give each output its own name")
        claim_output_file(path, "table", inputs=inputs, flag=flag, force=force)
        taken[path.resolve()] = flag


@fewer_collections()
def write_report(runs: list[Path], dataset: str, out: Path, *, quiet: bool = True, csv: Path | None = None,
                 latex: Path | None = None, force: bool = False) -> Path:
    from mhmmkg.dataset.loading import load_graph, load_queries

    from .evaluator import Evaluator
    from .html_report.page import report_pieces
    from .html_report.runs import differing_labels, labels_for, load_run

    check_output(out, runs, dataset, force)
    check_tables({"--csv": csv, "--latex": latex}, out, runs, dataset, force)
    graph = load_graph(dataset)
    release_read_buffers()
    queries = load_queries(dataset)
    if any(q.has_media for q in queries):      # decoding images costs; only when some query has them
        queries = load_queries(dataset, with_images=True)
    release_read_buffers()
    evaluator = Evaluator(dataset, graph=graph, queries=queries, quiet=True)
    views = []
    for path, label in zip(runs, labels_for(runs)):
        if not quiet:
            print(f"mhmmkg report: scoring {path}", file=sys.stderr)
        views.append(load_run(path, evaluator, label))
    for view, label in zip(views, differing_labels([v.settings for v in views], [v.name for v in views])):
        view.label = label
    judge = evaluator.judge.name
    release_scoring(evaluator)
    pieces = report_pieces(graph, queries, views, dataset=str(dataset), judge=judge, evaluator=evaluator)
    first = next(pieces)        # all but the packed queries, which are written as they are made
    if csv or latex:        # the small files first: a full disk is then met before the page is replaced
        write_tables(views, csv, latex)
    try:
        with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
            f.write(first)
            f.writelines(pieces)
    except OSError as exc:
        raise UserError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    return out


def release_scoring(evaluator) -> None:
    """Once the runs are scored the page needs of the evaluator only its paired bootstrap: the
    judge's indexes and the submission checker (tens of MiB at scale) go before the page is made,
    and the graph's relations the page names reuse their memory."""
    evaluator.judge = evaluator.checker = None


def release_read_buffers() -> None:
    """pyarrow keeps the memory of the tables it has read for its next reads; the report reads no
    more Parquet after the graph and the queries, so that memory (tens of MiB at scale) goes back."""
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None:
        pyarrow.default_memory_pool().release_unused()


def write_tables(views, csv: Path | None, latex: Path | None) -> None:
    from .html_report.reported import reported_for
    from .html_report.tables import leaderboard_rows, to_csv, to_latex

    rows = leaderboard_rows(views, reported_for({v.settings["setting"] for v in views}))
    for path, text in ((csv, to_csv), (latex, to_latex)):
        if path is None:
            continue
        try:
            atomic_write_text(path, text(rows))
        except OSError as exc:
            raise UserError(f"{path}: cannot write the leaderboard: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    out = write_report(args.runs, args.dataset, args.out, quiet=args.quiet, csv=args.csv, latex=args.latex,
                       force=args.force)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, {len(args.runs)} run(s))")
    for table in (args.csv, args.latex):
        if table is not None:
            print(f"wrote {table}")
    return 0
