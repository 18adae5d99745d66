"""Whole-process time, peak memory and output size of ``mhmmkg report`` (two runs) and ``mhmmkg
draw`` (one monster) as the KG grows (synthetic copies of data/, as bench_scale.py makes them;
``--generator random``: the random KG of synthetic_random.py, drawing its monster 0).

    .venv/bin/python bench/bench_report.py                               # 1x and 10x
    .venv/bin/python bench/bench_report.py --scales 1 10 100
    .venv/bin/python bench/bench_report.py --baseline main --candidate HEAD   # old and new, interleaved

The two runs are two submissions of ``bench_scale.write_submission`` (seeds 0 and 1: some answers
right, some wrong, some paths partial or missing). With --baseline, the two versions' pages are
compared byte for byte, their time stamps aside. The goals (issue 23): a report of 2 runs at
100x in at most 5 s and 400 MiB, its HTML linear in queries x runs; drawing one monster at most
twice its time at 1x (it should read only what it needs).
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import claim_work_folder, install_revision, install_working_tree, measure, write_submission  # noqa: E402
import generators  # noqa: E402

VERBS = ("build", "report", "draw")


def commands(work: Path, scale: int, version: str, monster: str = "zinogre") -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "mhmmkg"]
    src, built = work / f"src-{scale}x", work / f"built-{scale}x"
    subs = [str(work / f"sub-{scale}x-{seed}.jsonl") for seed in (0, 1)]
    return {
        "build": [*cli, "build", "--src", str(src), "--out", str(built), "--quiet"],
        "report": [*cli, "report", *subs, "--dataset", str(built), "--out", str(work / f"report-{scale}x-{version}.html"),
                   "--quiet"],
        "draw": [*cli, "draw", monster, "--dataset", str(built), "--out", str(work / f"{monster}-{version}.svg")],
    }


def bench(work: Path, scale: int, runs: int, envs: dict[str, dict[str, str]],
          generator: str = "clones") -> dict[str, dict[str, tuple]]:
    counts = generators.generate(generator, work / f"src-{scale}x", scale)
    monster = generators.drawn_monster(generator)
    for seed in (0, 1):
        write_submission(work / f"src-{scale}x", work / f"sub-{scale}x-{seed}.jsonl", seed=seed)
    print(f"{scale}x: {counts['monsters']} monsters, {counts['relations']} relations, {counts['queries']} queries",
          flush=True)
    first = next(iter(envs))
    measure(commands(work, scale, first, monster)["build"], env=envs[first], cwd=work)
    results: dict[str, dict[str, tuple]] = {version: {} for version in envs}
    for verb in VERBS[1:]:
        times: dict[str, list] = {version: [] for version in envs}
        for version in envs:
            measure(commands(work, scale, version, monster)[verb], env=envs[version], cwd=work)   # warm-up
        for _ in range(runs):
            for version in envs:
                times[version].append(measure(commands(work, scale, version, monster)[verb], env=envs[version], cwd=work))
        for version in envs:
            wall = statistics.median(t for t, _, _ in times[version])
            cpu = statistics.median(c for _, c, _ in times[version])
            peak = max(m for _, _, m in times[version])
            size = (work / f"report-{scale}x-{version}.html").stat().st_size / 2**20 if verb == "report" else 0.0
            results[version][verb] = (wall, cpu, peak, size)
            extra = f"  html {size:6.1f} MiB" if verb == "report" else ""
            print(f"  {version:<4} {verb:<7} median {wall:7.2f} s  cpu {cpu:7.2f} s  peak {peak:6.0f} MiB{extra}",
                  flush=True)
        if verb == "report" and "old" in envs:
            print(f"  the new page is {same_page(work, scale)} the old one (its time stamp aside)", flush=True)
    return results


#: the minute the page was made, the one part of it that may differ between two versions
GENERATED = re.compile(rb"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")


def same_page(work: Path, scale: int) -> str:
    old, new = (GENERATED.sub(b"", (work / f"report-{scale}x-{v}.html").read_bytes()) for v in ("old", "new"))
    return "byte-identical to" if old == new else "DIFFERENT from"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10], metavar="N", help="KG copies (default 1 10)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per command (default 3)")
    parser.add_argument("--work", type=Path, help="working folder to keep, new or empty, or one an earlier bench "
                                                  "run made (default: a temporary one)")
    parser.add_argument("--baseline", metavar="REV", help="also measure this git revision (e.g. main), interleaved")
    parser.add_argument("--candidate", metavar="REV", help="with --baseline: the revision to compare (default: this tree)")
    parser.add_argument("--generator", choices=generators.NAMES, default="clones", help=generators.HELP)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = claim_work_folder((args.work or Path(scratch)).resolve())
        import os

        site = install_revision(args.candidate, work, "new") if args.candidate else install_working_tree(work, "new")
        envs = {"new": {**os.environ, "PYTHONPATH": str(site)} if site else dict(os.environ)}
        if args.baseline:
            envs = {"old": {**os.environ, "PYTHONPATH": str(install_revision(args.baseline, work, "old"))}, **envs}
        table = {scale: bench(work, scale, args.runs, envs, args.generator) for scale in args.scales}
    print()
    for version in envs:
        for scale in args.scales:
            wall, cpu, peak, size = table[scale][version]["report"]
            draw = table[scale][version]["draw"]
            print(f"{version:<4} {scale:>4}x  report {wall:6.2f} s (cpu {cpu:6.2f}) {peak:6.0f} MiB html {size:6.1f} MiB"
                  f"   draw {draw[0]:5.2f} s (cpu {draw[1]:5.2f}) {draw[2]:5.0f} MiB")
    if len(args.scales) > 1:
        a, b = args.scales[-2], args.scales[-1]
        for version in envs:
            growth = table[b][version]["report"][3] / table[a][version]["report"][3]
            print(f"{version}: html growth {a}x -> {b}x: {growth:.1f}x for {b / a:.0f}x the queries; "
                  f"draw at {b}x / at {args.scales[0]}x: "
                  f"{table[b][version]['draw'][0] / table[args.scales[0]][version]['draw'][0]:.2f}")


if __name__ == "__main__":
    main()
