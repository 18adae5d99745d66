"""The whole pipeline on the embedded default data, with no network and no key.

Builds the default dataset (when it is missing or older than its sources) and prints its
statistics, runs the offline baseline in the `know` and `perceptive` settings, evaluates both
with the exact judge, prints the benchmark table with the cost of each run, and writes an HTML
report of both runs (leaderboard and per-query browser) to runs/demo/report.html. Run folders go under --out (default runs/demo)
and are replaced on every demo.

Example:
  mhmmkg demo
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from .errors import UserError

SETTINGS = ("know", "perceptive")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--src", type=Path, default=Path("data"), metavar="DIR",
                        help="curated sources of the default dataset (default data)")
    parser.add_argument("--dataset", type=Path, default=Path("mh-mmkg"), metavar="DIR",
                        help="dataset folder to build and use (default mh-mmkg)")
    parser.add_argument("--out", type=Path, default=Path("runs/demo"), metavar="DIR",
                        help="folder for the run folders (default runs/demo)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the dataset even when it looks current")
    parser.add_argument("--concurrency", type=int, default=4, metavar="N", help="queries in parallel (default 4)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def dataset_is_current(src: Path, dataset: Path) -> bool:
    """True when the dataset folder has a manifest newer than every file of the sources."""
    manifest = dataset / "manifest.json"
    if not manifest.is_file():
        return False
    built = manifest.stat().st_mtime
    return all(p.stat().st_mtime <= built for p in src.rglob("*") if p.is_file())


def ensure_dataset(src: Path, dataset: Path, *, rebuild: bool, quiet: bool) -> None:
    if not rebuild and dataset_is_current(src, dataset):
        return
    if not (src / "shared.json").is_file():
        raise UserError(f"{src}: no curated sources here (shared.json missing) to build {dataset} from")
    from .builders.build import build_dataset

    if not quiet:
        print(f"mhmmkg demo: building {dataset} from {src}", file=sys.stderr)
    build_dataset(src, dataset, quiet=quiet)


def fresh_run_folder(path: Path) -> Path:
    """Remove a previous demo run in ``path``; refuse to touch a folder that is not a run folder."""
    if path.exists():
        if not (path / "manifest.json").is_file():
            if any(path.iterdir()):
                raise UserError(f"{path}: exists and is not a run folder; choose another --out")
        else:
            shutil.rmtree(path)
    return path


def run_offline(setting: str, dataset: Path, out: Path, concurrency: int, quiet: bool):
    from .baseline.runner import RunOptions, execute

    options = RunOptions(setting=setting, out=fresh_run_folder(out / setting), model="offline",
                         dataset=str(dataset), concurrency=concurrency, quiet=quiet)
    return execute(options)


def evaluate(submission: Path, dataset: Path) -> dict:
    from .eval.evaluator import Evaluator

    return Evaluator(dataset, quiet=True).eval(submission)


def print_statistics(dataset: Path) -> None:
    from .loading import load_graph, load_queries
    from .stats import compute_stats, format_stats

    print(f"== {dataset}")
    print(format_stats(compute_stats(load_graph(dataset), load_queries(dataset))))
    print()


def format_table(rows: list[tuple[str, dict, dict]]) -> str:
    def pct(value):
        return "   -" if value is None else f"{100 * value:5.1f}"

    lines = [f"{'setting':<12} {'n':>4} {'Acc.':>6} {'Pre.':>6} {'Rec.':>6} {'Top.':>6} "
             f"{'calls/q':>8} {'retrieval s/q':>14}"]
    for setting, result, summary in rows:
        lines.append(f"{setting:<12} {result['n']:>4} {pct(result['acc']):>6} {pct(result['precision']):>6} "
                     f"{pct(result['recall']):>6} {pct(result['top']):>6} {summary['mean_agent_calls']:>8.2f} "
                     f"{summary['mean_retrieval_time']:>14.4f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from .eval.report import format_result

    ensure_dataset(args.src, args.dataset, rebuild=args.rebuild, quiet=args.quiet)
    print_statistics(args.dataset)
    rows = []
    for setting in SETTINGS:
        if not args.quiet:
            print(f"mhmmkg demo: offline baseline, setting {setting}", file=sys.stderr)
        outcome = run_offline(setting, args.dataset, args.out, args.concurrency, args.quiet)
        result = evaluate(outcome.submission, args.dataset)
        print(f"== {setting} (offline model, exact judge): {outcome.submission}")
        print(format_result(result))
        print()
        rows.append((setting, result, outcome.summary))
    print("MH benchmark, offline baseline (scores in %; calls and retrieval time per query)")
    print(format_table(rows))
    report = write_demo_report(args)
    print(f"\nReport (leaderboard and per-query browser; open it in a browser): {report}")
    return 0


def write_demo_report(args: argparse.Namespace) -> Path:
    from .eval.report_cli import write_report

    return write_report([args.out / s for s in SETTINGS], str(args.dataset), args.out / "report.html", quiet=args.quiet)
