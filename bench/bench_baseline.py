"""Benchmark of the baseline: concurrency against an HTTP endpoint, client overhead, offline scores.

1. A full `perceptive` run of the open benchmark against the stub OpenAI-compatible server
   (tests/stub_server.py, in its own process, answering as the offline model) with a fixed
   latency per call (default 100 ms), at concurrency 1 and 16, no cache: wall time of each,
   their ratio (target >= 8x), agent calls per query, and a check that both runs made the same
   calls and gave the same submission.
2. Client overhead per call: (a) bare OpenAIChat round trips to the stub with zero latency;
   (b) in the concurrency-1 run, wall time per call minus the stub's latency.
3. The offline model on the open benchmark, `know`, `perceptive` (our search) and `perceptive`
   with `--search official` (the authors' search): Acc./Pre./Rec. (exact judge), agent calls
   and paths per query, and the run's wall time.

Figures are medians over --repeats runs (the concurrency-1 run, sleep-bound and about
calls x latency long, runs --repeats-serial times, default 1).

Usage:
  .venv/bin/python bench/bench_baseline.py [--dataset mh-mmkg|data] [--latency 0.1] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from mhmmkg.baseline.runner import RunOptions, execute  # noqa: E402
from mhmmkg.baseline.settings import SearchOptions  # noqa: E402
from mhmmkg.llm.chat import ChatRequest, Message, OpenAIChat  # noqa: E402


class StubProcess:
    """tests/stub_server.py in a child process, so server work does not share the client's GIL."""

    def __init__(self, latency: float, offline: bool):
        command = [sys.executable, str(ROOT / "tests" / "stub_server.py"), "--port", "0", "--latency", str(latency)]
        if offline:
            command.append("--offline")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("stub server on "):
            self.process.kill()
            raise SystemExit(f"stub server did not start: {line!r}")
        self.url = line.removeprefix("stub server on ")

    def __enter__(self) -> StubProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def default_dataset() -> str:
    return "mh-mmkg" if (ROOT / "mh-mmkg" / "manifest.json").is_file() else str(ROOT / "data")


def timed_run(options: RunOptions) -> tuple[float, dict, list[dict]]:
    started = time.perf_counter()
    outcome = execute(options)
    wall = time.perf_counter() - started
    lines = [json.loads(line) for line in outcome.submission.read_text().splitlines()]
    return wall, outcome.summary, lines


def answers(lines: list[dict]) -> list[dict]:
    return [{k: v for k, v in line.items() if k != "meta"} for line in lines]


def bench_concurrency(dataset: str, latency: float, repeats: int, repeats_serial: int, work: Path) -> dict:
    results: dict[int, list[float]] = {1: [], 16: []}
    reference = None
    calls: dict[int, int] = {}
    per_query = None
    with StubProcess(latency, offline=True) as stub:
        for concurrency, times in ((16, repeats), (1, repeats_serial)):
            for i in range(times):
                options = RunOptions(setting="perceptive", out=work / f"c{concurrency}-{i}", model="openai",
                                     model_name="stub-model", base_url=stub.url, dataset=dataset,
                                     concurrency=concurrency, quiet=True, no_cache=True)
                wall, summary, lines = timed_run(options)
                results[concurrency].append(wall)
                calls[concurrency] = summary["agent_calls"]
                per_query = summary["calls_per_query"]["mean"]
                if reference is None:
                    reference = answers(lines)
                elif answers(lines) != reference:
                    raise SystemExit(f"concurrency {concurrency} run {i}: the submission differs from the first run")
    if calls[1] != calls[16]:
        raise SystemExit(f"different numbers of calls: {calls[1]} at concurrency 1, {calls[16]} at 16")
    serial, parallel = statistics.median(results[1]), statistics.median(results[16])
    return {
        "queries": len(reference), "calls": calls[1], "calls_per_query": per_query,
        "wall_c1": serial, "wall_c16": parallel, "ratio": serial / parallel,
        "overhead_per_call_c1": serial / calls[1] - latency,
        "runs_c1": results[1], "runs_c16": results[16],
    }


def bench_client_overhead(calls: int, repeats: int) -> float:
    """Median over repeats of the mean time of one bare OpenAIChat round trip to a zero-latency stub."""
    request = ChatRequest((Message("system", "You are terse."), Message("user", "x" * 2000)))
    means = []
    with StubProcess(0.0, offline=False) as stub:
        backend = OpenAIChat(stub.url, "stub-model")
        backend.complete(request)
        for _ in range(repeats):
            started = time.perf_counter()
            for _ in range(calls):
                backend.complete(request)
            means.append((time.perf_counter() - started) / calls)
    return statistics.median(means)


def bench_offline_scores(dataset: str, repeats: int, work: Path) -> dict:
    from mhmmkg.eval.evaluator import Evaluator

    out = {}
    evaluator = Evaluator(dataset, judge="exact", resamples=0, quiet=True)
    for setting, order in (("know", "bfs"), ("perceptive", "bfs"), ("perceptive", "official")):
        walls = []
        for i in range(repeats):
            options = RunOptions(setting=setting, out=work / f"offline-{setting}-{order}-{i}", model="offline",
                                 dataset=dataset, concurrency=1, quiet=True, search=SearchOptions(order=order))
            wall, summary, _ = timed_run(options)
            walls.append(wall)
        result = evaluator.eval(options.out / "submission.jsonl")
        name = setting if setting == "know" else f"{setting}/{order}"
        out[name] = {"acc": result["acc"], "precision": result["precision"], "recall": result["recall"],
                     "top": result["top"], "n": result["n"], "wall": statistics.median(walls),
                     "calls_per_query": summary["calls_per_query"]["mean"], "paths_per_query": summary["mean_paths"]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default=default_dataset(), help="built folder, Hub id or sources folder")
    parser.add_argument("--latency", type=float, default=0.1, help="stub latency per call in seconds (default 0.1)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median); default 3")
    parser.add_argument("--repeats-serial", type=int, default=1,
                        help="runs of the slow concurrency-1 run (default 1)")
    parser.add_argument("--skip-concurrency", action="store_true", help="only overhead and offline scores")
    args = parser.parse_args()
    print(f"dataset: {args.dataset}")
    with tempfile.TemporaryDirectory(prefix="mhmmkg-bench-") as tmp:
        work = Path(tmp)
        scores = bench_offline_scores(args.dataset, args.repeats, work)
        print("\noffline model on the open benchmark (exact judge; scores in %)")
        print(f"  {'setting/search':<20} {'n':>4} {'Acc.':>6} {'Pre.':>6} {'Rec.':>6} {'Top.':>6} {'calls/q':>8} "
              f"{'paths/q':>8} {'wall s':>7}")
        for setting, s in scores.items():
            print(f"  {setting:<20} {s['n']:>4} {100 * s['acc']:>6.1f} {100 * s['precision']:>6.1f} "
                  f"{100 * s['recall']:>6.1f} {100 * s['top']:>6.1f} {s['calls_per_query']:>8.2f} "
                  f"{s['paths_per_query']:>8.2f} {s['wall']:>7.2f}")
        overhead = bench_client_overhead(300, args.repeats)
        print(f"\nclient round trip to a zero-latency stub (OpenAIChat, 2 kB prompt): {1000 * overhead:.2f} ms/call")
        if args.skip_concurrency:
            return
        c = bench_concurrency(args.dataset, args.latency, args.repeats, args.repeats_serial, work)
        print(f"\nperceptive run against the stub at {1000 * args.latency:.0f} ms per call, no cache "
              f"({c['queries']} queries, {c['calls']} calls, {c['calls_per_query']:.2f} agent calls/query)")
        print(f"  concurrency  1: {c['wall_c1']:8.2f} s   (runs: {', '.join(f'{t:.2f}' for t in c['runs_c1'])})")
        print(f"  concurrency 16: {c['wall_c16']:8.2f} s   (runs: {', '.join(f'{t:.2f}' for t in c['runs_c16'])})")
        print(f"  wall-time ratio: {c['ratio']:.1f}x (target >= 8x)")
        print(f"  time per call beyond the stub's latency at concurrency 1: {1000 * c['overhead_per_call_c1']:.2f} ms "
              f"(HTTP round trip + offline answer in the stub + prompts, search and records in the client)")
        print("  same calls and same submission at both concurrencies: yes")


if __name__ == "__main__":
    main()
