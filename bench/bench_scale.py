"""Whole-process time and peak memory of every verb as the KG grows (synthetic copies of data/).

    .venv/bin/python bench/bench_scale.py                     # 1x and 10x (what `make bench` runs)
    .venv/bin/python bench/bench_scale.py --scales 1 10 100   # adds 100x: 2,200 monsters, ~118k relations

For each scale, ``synthetic.py`` writes the sources (not timed) and a submission with a mix of
right, wrong, prefixed and list answers and of full, partial and missing paths. Then each
command runs as its own process, --runs times (a warm-up first, so the datasets cache is warm
as a user's would be), and the table shows the median wall time and the peak resident memory
of the process (its own ``ru_maxrss``, read with ``os.wait4``). Build is timed first; the other
commands are timed in rounds, each round running every command once, in an order shuffled anew
for each round (seeded: the same orders in every bench): a verb and its peer are measured side by
side, under the same load from the rest of the machine, and no command always runs right after
the same one (whatever one command leaves behind, such as files to write back, falls on all).

  floor     a Python process that reads the dataset's Parquet files: pq.ParquetFile(f).read()
  build     mhmmkg build
  load      mhmmkg.load_graph + mhmmkg.load_queries
  info      mhmmkg info
  validate  mhmmkg validate SUB
  evaluate  mhmmkg evaluate SUB --json OUT
  graphml   mhmmkg export --format graphml
  run       mhmmkg run --setting perceptive --model offline --limit Q
  run1      the same with --limit 1 (start-up, loading and one query); (run - run1) / (Q - 1) is the
            time per query
  triples   mhmmkg export --format triples (the peer of graphml)
  peer-build     datasets.Dataset.from_list(rows).to_parquet on the rows of the built tables (peers.py)
  peer-evaluate  a pyarrow + numpy scorer of Acc./Pre./Rec. (peers.py; checked to agree with evaluate)

Ratios printed below the table: at each scale, each verb beside its peer (issue 23's goals:
build <= 1.2x peer-build, evaluate <= 2x peer-evaluate, graphml <= 2x triples in time and memory,
load/info/validate <= 3x the floor); then each verb's growth between the two largest scales over
the growth of the KG (1.0 = linear).

Each version is measured as ``pip install`` leaves it, from compiled bytecode: the working tree
(edits not yet committed included) is installed into the working folder first, as any revision
given is. With ``--baseline REV`` (a git revision, e.g. main) the revision is installed too and
every command is measured under both versions in turn (old, new, old, new, ...), so that load
from other processes on the machine falls on both alike; the table then shows both medians and
their ratio. With ``--generator random`` the KG is ``synthetic_random.py``'s instead of
the copies: monsters of skewed sizes, coined words, no shape shared with data/.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generators  # noqa: E402
from synthetic import ROOT  # noqa: E402

LOAD = "import sys, mhmmkg\nmhmmkg.load_graph(sys.argv[1])\nmhmmkg.load_queries(sys.argv[1])\n"
PEERS = Path(__file__).resolve().parent / "peers.py"
VERBS = ("floor", "build", "load", "info", "validate", "evaluate", "graphml", "run", "run1",
         "triples", "peer-build", "peer-evaluate")
#: seeds the order of the commands in each round of timing
ROUND_ORDER_SEED = 23
#: (verb, its peer, the issue's bound on verb / peer), printed for each scale
RATIOS = (("build", "peer-build", 1.2), ("evaluate", "peer-evaluate", 2.0), ("graphml", "triples", 2.0),
          ("load", "floor", 3.0), ("info", "floor", 3.0), ("validate", "floor", 3.0))


def measure(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one process; stops the
    bench if it fails. CPU time depends less than wall time on what else the machine runs."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{stderr}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def write_submission(sources: Path, path: Path, seed: int = 0) -> int:
    """A submission for every query of ``sources``: some right, some wrong, some partial."""
    rng = random.Random(seed)
    names = {}
    for file in sorted((sources / "monsters").glob("*.json")):
        doc = json.loads(file.read_text(encoding="utf-8"))
        names[doc["monster"]] = next(e["name"] for e in doc["entities"] if e["id"] == doc["monster"])
    lines = []
    for file in sorted((sources / "queries").glob("*.json")):
        for q in json.loads(file.read_text(encoding="utf-8"))["queries"]:
            roll = rng.random()
            if roll < 0.4:
                answer = q["answer"]
            elif roll < 0.6:
                answer = f"{names[q['monster']]} {q['answer']}"
            elif roll < 0.7:
                answer = f"{q['answer']} or Tail Swipe"
            else:
                answer = "Tail Swipe"
            paths = [list(p) for p in q["paths"]]
            roll = rng.random()
            if roll < 0.2:
                paths = []
            elif roll < 0.4:
                paths = [p[:max(1, len(p) - 1)] for p in paths]
            lines.append({"query_id": q["id"], "answer": answer, "paths": paths, "topic": q["monster"]})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def commands(work: Path, scale: int, run_queries: int, version: str) -> dict[str, list[str]]:
    py = sys.executable
    src, sub = work / f"src-{scale}x", work / f"sub-{scale}x.jsonl"
    out = work / f"built-{scale}x-{version}"
    cli = [py, "-m", "mhmmkg"]
    return {
        "floor": [py, str(PEERS), "floor", str(out)],
        "build": [*cli, "build", "--src", str(src), "--out", str(out), "--quiet"],
        "load": [py, "-c", LOAD, str(out)],
        "info": [*cli, "info", str(out)],
        "validate": [*cli, "validate", str(sub), "--dataset", str(out)],
        "evaluate": [*cli, "evaluate", str(sub), "--dataset", str(out), "--json", str(work / f"scores-{version}.json"), "--quiet"],
        "graphml": [*cli, "export", "--format", "graphml", "--dataset", str(out), "--out", str(work / f"kg-{version}.graphml")],
        "run": [*cli, "run", "--setting", "perceptive", "--model", "offline", "--dataset", str(out),
                "--out", str(work / f"run-{version}"), "--limit", str(run_queries), "--quiet", "--no-cache"],
        "run1": [*cli, "run", "--setting", "perceptive", "--model", "offline", "--dataset", str(out),
                 "--out", str(work / f"run-{version}"), "--limit", "1", "--quiet", "--no-cache"],
        "triples": [*cli, "export", "--format", "triples", "--dataset", str(out), "--out", str(work / f"kg-{version}.tsv")],
        "peer-build": [py, str(PEERS), "build", str(work / f"rows-{scale}x.pickle"), str(work / f"peer-built-{version}")],
        "peer-evaluate": [py, str(PEERS), "evaluate", str(sub), str(out), str(work / f"peer-scores-{version}.json")],
    }


def bench_scale(work: Path, scale: int, runs: int, run_queries: int,
                envs: dict[str, dict[str, str]], verbs: tuple[str, ...] = VERBS,
                generator: str = "clones") -> dict[str, dict[str, tuple]]:
    """{version: {verb: (median wall s, peak MiB, median CPU s)}}, each command run ``runs`` times per version
    (build first; the others in rounds, see the module docstring). Only ``verbs`` are timed; build
    runs once untimed when it is not one of them."""
    counts = generators.generate(generator, work / f"src-{scale}x", scale)
    write_submission(work / f"src-{scale}x", work / f"sub-{scale}x.jsonl")
    print(f"{scale}x: {counts['monsters']} monsters, {counts['relations']} relations, {counts['queries']} queries",
          flush=True)
    todo = {version: commands(work, scale, run_queries, version) for version in envs}
    results: dict[str, dict[str, tuple]] = {version: {} for version in envs}
    if "build" not in verbs:
        for version in envs:      # not timed: the other commands read what it writes
            measure(todo[version]["build"], env=envs[version], cwd=work)
        _pickle_rows(work, scale, envs, verbs)
    times: dict[str, dict[str, list]] = {verb: {version: [] for version in envs} for verb in verbs}

    def once(verb: str, version: str) -> tuple[float, float, float]:
        shutil.rmtree(work / f"run-{version}", ignore_errors=True)
        return measure(todo[version][verb], env=envs[version], cwd=work)

    if "build" in verbs:
        for _ in range(runs):
            for version in envs:
                times["build"][version].append(once("build", version))
        _pickle_rows(work, scale, envs, verbs)
        _report(results, "build", times["build"])
    rest = [v for v in VERBS if v in verbs and v != "build"]
    for verb in rest:
        for version in envs:
            once(verb, version)       # warm-up: datasets cache, page cache
    orders = random.Random(ROUND_ORDER_SEED)
    for round_ in range(runs):
        order = orders.sample(rest, len(rest))
        for verb in order:
            for version in envs:
                times[verb][version].append(once(verb, version))
        print(f"  round {round_ + 1} of {runs} done: {' '.join(order)}", flush=True)
    for verb in rest:
        _report(results, verb, times[verb])
    if {"evaluate", "peer-evaluate"} <= set(verbs):
        for version in envs:
            print(f"  {version:<4} the peer's Acc./Pre./Rec. against evaluate's: "
                  + _agreement(work / f"peer-scores-{version}.json", work / f"scores-{version}.json"), flush=True)
    return results


def _report(results: dict[str, dict[str, tuple]], verb: str, times: dict[str, list]) -> None:
    """Each version's median wall and CPU time and peak memory of ``verb`` into ``results``, printed."""
    for version, runs in times.items():
        median = statistics.median(t for t, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        peak = max(m for _, _, m in runs)
        results[version][verb] = (median, peak, cpu)
        print(f"  {version:<4} {verb:<13} median {median:7.2f} s  cpu {cpu:7.2f} s  peak {peak:6.0f} MiB  "
              f"(n={len(runs)})", flush=True)


def _pickle_rows(work: Path, scale: int, envs: dict[str, dict[str, str]], verbs: tuple[str, ...]) -> None:
    """The built tables' rows for peer-build (not timed)."""
    if "peer-build" in verbs:
        version = next(iter(envs))
        subprocess.run([sys.executable, str(PEERS), "rows", str(work / f"built-{scale}x-{version}"),
                        str(work / f"rows-{scale}x.pickle")], check=True, env=envs[version])


def _agreement(peer_file: Path, scores_file: Path) -> str:
    peer = json.loads(peer_file.read_text(encoding="utf-8"))
    scores = json.loads(scores_file.read_text(encoding="utf-8"))
    return ", ".join(f"{k} {peer[k]:.6f} vs {scores[k]:.6f}" + ("" if abs(peer[k] - scores[k]) < 1e-12 else " (differ)")
                     for k in ("acc", "precision", "recall"))


#: a file the bench leaves in its working folder: a folder that holds it is the bench's own to replace in
WORK_MARK = ".mhmmkg-bench"


def claim_work_folder(work: Path) -> Path:
    """``work`` made the bench's working folder, where it replaces what it wrote before (sources,
    builds, installed revisions); a folder that is neither empty nor the bench's own is refused,
    as its contents are not the bench's to delete."""
    if work.exists() and (not work.is_dir() or any(work.iterdir()) and not (work / WORK_MARK).is_file()):
        print(f"--work {work}: not an empty folder nor one the bench made (no {WORK_MARK} in it); "
              "give a new or empty folder", file=sys.stderr)
        sys.exit(2)
    work.mkdir(parents=True, exist_ok=True)
    (work / WORK_MARK).touch()
    return work


def install_revision(rev: str, work: Path, label: str) -> Path:
    """``rev`` of this repository installed (without dependencies) into ``work``; its site folder."""
    tree = _fresh(work / f"{label}-src")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return _install(tree, work / f"{label}-site")


def install_working_tree(work: Path, label: str) -> Path | None:
    """This working tree as it is now (edits not yet committed included) installed as a revision
    is; its site folder, or None outside a git checkout (the environment is then measured as it is).

    So that every version runs as a user's ``pip install`` does, from compiled bytecode: an
    editable checkout without ``__pycache__`` (a fresh clone, or any checkout under
    PYTHONDONTWRITEBYTECODE) compiles every module it imports again in every process, about
    50 ms of each command that no installed copy pays."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True)
    if listed.returncode:
        print("note: not a git checkout: measuring the installed environment as it is", flush=True)
        return None
    tree = _fresh(work / f"{label}-src")
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_symlink() or source.is_file():     # (a file deleted but not yet committed is listed too)
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name, follow_symlinks=False)      # a link as git keeps it
    return _install(tree, work / f"{label}-site")


def _fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def _install(tree: Path, site: Path) -> Path:
    shutil.rmtree(site, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(tree)], check=True)
    return site


def print_table(table: dict[int, dict[str, dict[str, tuple]]], run_queries: int) -> None:
    scales = sorted(table)
    versions = list(table[scales[0]])
    verbs = [v for v in VERBS if v in table[scales[0]][versions[0]]]
    for version in versions:
        _print_version(version, {s: table[s][version] for s in scales}, run_queries, verbs)
    if "old" in versions:
        print()
        for s in scales:
            print(f"new / old at {s}x, wall (cpu): " + ", ".join(
                f"{v} {table[s]['new'][v][0] / table[s]['old'][v][0]:.2f} "
                f"({table[s]['new'][v][2] / table[s]['old'][v][2]:.2f})" for v in verbs))


def _print_version(version: str, table: dict[int, dict[str, tuple]], run_queries: int, verbs: list[str]) -> None:
    scales = sorted(table)
    print()
    print(f"{version + ': wall s, cpu s, peak MiB':<10}")
    print(f"{'':<14}" + "".join(f"{f'{s}x':>28}" for s in scales))
    for verb in verbs:
        cells = "".join(f"{table[s][verb][0]:>10.2f} {table[s][verb][2]:>8.2f} {table[s][verb][1]:>8.0f}" for s in scales)
        print(f"{verb:<14}{cells}")
    if {"run", "run1"} <= set(verbs):
        per_query = "".join(f"{_per_query(table[s], 0, run_queries):>10.1f} {_per_query(table[s], 2, run_queries):>8.1f}"
                            for s in scales)
        print(f"{'ms/query':<14}{per_query}   ((run - run1) / {run_queries - 1} queries)")
    ratios = [(verb, peer, bound) for verb, peer, bound in RATIOS if verb in verbs and peer in verbs]
    for s in scales:
        memory = (f"; graphml/triples memory {table[s]['graphml'][1] / table[s]['triples'][1]:.2f}x [2.0]"
                  if {"graphml", "triples"} <= set(verbs) else "")
        print(f"at {s}x, verb / peer, wall (cpu) [goal]: " + ", ".join(
            f"{verb}/{peer} {table[s][verb][0] / table[s][peer][0]:.2f}x ({table[s][verb][2] / table[s][peer][2]:.2f}x) "
            f"[{bound}]" for verb, peer, bound in ratios) + memory)
    if len(scales) > 1:
        a, b = scales[-2], scales[-1]
        growth = b / a
        print(f"{a}x -> {b}x (KG {growth:.0f}x larger), time growth / KG growth (1.0 = linear), wall (cpu): "
              + ", ".join(f"{v} {table[b][v][0] / table[a][v][0] / growth:.2f} "
                          f"({table[b][v][2] / table[a][v][2] / growth:.2f})"
                          for v in verbs if v not in ("floor", "run", "run1")))
        if {"run", "run1"} <= set(verbs):
            print(f"run time per query {a}x -> {b}x: {_per_query(table[a], 0, run_queries):.1f} ms -> "
                  f"{_per_query(table[b], 0, run_queries):.1f} ms (cpu {_per_query(table[a], 2, run_queries):.1f} "
                  f"-> {_per_query(table[b], 2, run_queries):.1f} ms)")


def _per_query(results: dict[str, tuple], column: int, run_queries: int) -> float:
    return 1000 * (results["run"][column] - results["run1"][column]) / (run_queries - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10], metavar="N",
                        help="copies of the monsters to measure (default: 1 10; add 100 for the large KG)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per command (default 3)")
    parser.add_argument("--runs-large", type=int, default=1,
                        help="timed runs per command at scales of 50x and more (default 1)")
    parser.add_argument("--run-queries", type=int, default=200, metavar="Q",
                        help="queries answered by the offline run (default 200)")
    parser.add_argument("--work", type=Path, help="working folder to keep, new or empty, or one an earlier bench "
                                                  "run made (default: a temporary one)")
    parser.add_argument("--baseline", metavar="REV",
                        help="also measure this git revision (e.g. main), interleaved with the working tree")
    parser.add_argument("--candidate", metavar="REV",
                        help="measure this git revision (e.g. HEAD) instead of the working tree, so that "
                             "editing the tree during a long bench does not change what is measured")
    parser.add_argument("--generator", choices=generators.NAMES, default="clones", help=generators.HELP)
    parser.add_argument("--verbs", nargs="+", choices=VERBS, default=list(VERBS), metavar="VERB",
                        help="time only these commands (default: all): " + ", ".join(VERBS) + "; build runs "
                             "once untimed when not listed, as the others read what it writes; e.g. --verbs floor validate")
    args = parser.parse_args()
    work = claim_work_folder(args.work or Path(tempfile.mkdtemp(prefix="mhmmkg-scale-")))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(work / "hf-cache"),
           "TQDM_DISABLE": "1"}
    env.pop("PYTHONPATH", None)
    site = install_revision(args.candidate, work, "candidate") if args.candidate else install_working_tree(work, "working")
    envs = {"new": {**env, "PYTHONPATH": str(site)} if site else env}
    if args.baseline:
        envs = {"old": {**env, "PYTHONPATH": str(install_revision(args.baseline, work, "baseline"))}, **envs}
    table = {}
    for scale in args.scales:
        runs = args.runs_large if scale >= 50 else args.runs
        table[scale] = bench_scale(work, scale, runs, args.run_queries, envs, tuple(args.verbs), args.generator)
    print_table(table, args.run_queries)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
