"""The whole pipeline on the embedded default data, with no network and no key.

Builds the default dataset (when it is missing or older than its sources) and prints its
statistics, runs the offline baseline in the `know` and `perceptive` settings, evaluates both
with the exact judge, prints the benchmark table with the cost of each run, and writes an HTML
report of both runs (leaderboard and per-query browser) beside them. Run folders and the report go
under --out (default runs/demo), which every demo replaces as a whole; a folder that an earlier
demo did not make (no demo manifest.json) is refused and left untouched.

Example:
  mhmmkg demo
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import UserError
from .benchmark.settings import SETTINGS as DECLARED

#: every setting that reads the KG and needs no media: what the offline model runs on any dataset
SETTINGS = tuple(name for name, s in DECLARED.items()
                 if s.retrieval != "none" and not s.query_media and not s.needs_kg_media)
REPORT = "report.html"


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


def run_offline(setting: str, dataset: Path, out: Path, concurrency: int, quiet: bool):
    from .baseline.runner import RunOptions, execute

    options = RunOptions(setting=setting, out=out / setting, model="offline",
                         dataset=str(dataset), concurrency=concurrency, quiet=quiet)
    return execute(options)


def run_settings(args: argparse.Namespace) -> dict:
    """Every setting's run folder, made in a staged folder that then replaces --out as a whole."""
    from .files.atomic import staged_folder
    from .files.outputs import write_output_manifest

    summaries = {}
    with staged_folder(args.out) as staging:
        for setting in SETTINGS:
            if not args.quiet:
                print(f"mhmmkg demo: offline baseline, setting {setting}", file=sys.stderr)
            summaries[setting] = run_offline(setting, args.dataset, staging, args.concurrency, args.quiet).summary
        write_demo_report(staging, args)
        write_output_manifest(staging, "demo")
    return summaries


def evaluate(submission: Path, dataset: Path) -> dict:
    from .eval.evaluator import Evaluator

    return Evaluator(dataset, quiet=True).eval(submission)


def print_statistics(dataset: Path) -> None:
    from .dataset.loading import load_graph, load_queries
    from .kg.stats import compute_stats, format_stats

    print(f"== {dataset}")
    print(format_stats(compute_stats(load_graph(dataset), load_queries(dataset))))
    print()


def format_table(rows: list[tuple[str, dict, dict]]) -> str:
    """Scores and the efficiency figures (mean ± std, as the paper's Table 13) of each run."""
    from .benchmark.efficiency import FIGURES, format_spread

    def pct(value):
        return "   -" if value is None else f"{100 * value:5.1f}"

    heads = {"calls_per_query": "calls/q", "seconds_per_query": "s/q", "seconds_per_call": "s/call",
             "retrieval_seconds_per_query": "retrieval s/q"}
    lines = [f"{'setting':<12} {'n':>4} {'Acc.':>6} {'Pre.':>6} {'Rec.':>6} {'Top.':>6} "
             + " ".join(f"{heads[key]:>17}" for key in FIGURES)]
    for setting, result, summary in rows:
        figures = " ".join(f"{format_spread(summary.get(key), '', digits):>17}"
                           for key, (_, _, digits) in FIGURES.items())
        lines.append(f"{setting:<12} {result['n']:>4} {pct(result['acc']):>6} {pct(result['precision']):>6} "
                     f"{pct(result['recall']):>6} {pct(result['top']):>6} {figures}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from .benchmark.efficiency import SECONDS_PER_QUERY_DEFINITION
    from .eval.report import format_result

    from .files.outputs import claim_output_folder

    claim_output_folder(args.dataset, "dataset", inputs=[args.src], flag="--dataset")
    claim_output_folder(args.out, "demo", inputs=[args.src, args.dataset])
    ensure_dataset(args.src, args.dataset, rebuild=args.rebuild, quiet=args.quiet)
    print_statistics(args.dataset)
    summaries = run_settings(args)
    rows = []
    for setting in SETTINGS:
        submission = args.out / setting / "submission.jsonl"
        result = evaluate(submission, args.dataset)
        print(f"== {setting} (offline model, exact judge): {submission}")
        print(format_result(result))
        print()
        rows.append((setting, result, summaries[setting]))
    print("MH benchmark, offline baseline (scores in %; calls per query, seconds per query, seconds per call and "
          "retrieval seconds per query as mean ± std)")
    print(format_table(rows))
    print(SECONDS_PER_QUERY_DEFINITION)
    print(f"\nReport (leaderboard and per-query browser; open it in a browser): {args.out / REPORT}")
    return 0


def write_demo_report(folder: Path, args: argparse.Namespace) -> Path:
    from .eval.report_cli import write_report

    return write_report([folder / s for s in SETTINGS], str(args.dataset), folder / REPORT, quiet=args.quiet)
