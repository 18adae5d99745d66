"""Speed of scoring a 238-query submission with the exact judge.

    .venv/bin/python bench/bench_eval.py [--runs 5] [--queries 238]

Generates a benchmark the size of the paper's (22 monsters, 238 queries; the KG is synthetic so
the figure does not depend on the state of data/), builds it, writes a submission with a mix
of right and wrong answers and paths, then prints medians over --runs runs of:
  - `mhmmkg evaluate SUB --dataset BUILT --json OUT` as a whole process (what a user waits for),
  - the same on the sources folder,
  - `mhmmkg validate` as a whole process,
  - in process: Evaluator.eval alone (benchmark already loaded), with and without bootstrap.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from timing import report, timed  # noqa: E402

MONSTERS = 22
ATTACKS = 24


def write_sources(root: Path, n_queries: int, rng: random.Random) -> list[dict]:
    from conftest import TINY_SHARED, write_json

    write_json(root / "shared.json", TINY_SHARED)
    walks_by_monster = {}
    for m in range(MONSTERS):
        mid = f"monster-{m}"
        entities = [{"id": mid, "name": f"Monster {m}", "type": "monster", "aliases": [f"Beast {m}"],
                     "text": "A monster of the benchmark."}]
        relations = [{"head": mid, "type": "mostly_weak_to", "tail": "element.ice"}]
        for a in range(ATTACKS):
            entities.append({"id": f"{mid}.attack-{a}", "name": f"Attack {a}", "type": "attack_action",
                             "aliases": [f"Move {a}"], "caption": f"The monster performs move number {a} with its tail.",
                             "text": "Deals damage."})
            relations.append({"head": mid, "type": "has_attack_action", "tail": f"{mid}.attack-{a}"})
            for b in rng.sample(range(ATTACKS), 3):
                if b != a:
                    relations.append({"head": f"{mid}.attack-{a}", "type": "continues_with", "tail": f"{mid}.attack-{b}",
                                      "condition": "when enraged" if b % 2 else None})
        write_json(root / "monsters" / f"{mid}.json", {"monster": mid, "entities": entities, "relations": relations})
        continues = {}
        for r in relations:
            if r["type"] == "continues_with":
                continues.setdefault(r["head"], []).append(r["tail"])
        walks_by_monster[mid] = continues
    queries = []
    for i in range(n_queries):
        mid = f"monster-{i % MONSTERS}"
        walk = [mid, f"{mid}.attack-{rng.randrange(ATTACKS)}"]
        for _ in range(rng.randrange(3)):
            walk.append(rng.choice(walks_by_monster[mid][walk[-1]]))
        paths = [walk] if i % 5 else [walk, [mid, f"{mid}.attack-{rng.randrange(ATTACKS)}"]]
        answer = f"Attack {walk[-1].rsplit('-', 1)[1]}"
        queries.append({"id": f"q-{i:03d}", "subtask": i % 6 + 1, "monster": mid,
                        "question": "Which attack does {monster} use next?", "perception": "It moves.",
                        "answer": answer if i % 7 else "Yes, it will use the Attack 3 afterwards.", "paths": paths})
    write_json(root / "queries" / "bench.json", {"queries": queries})
    return queries


def submission(queries: list[dict], rng: random.Random) -> list[dict]:
    lines = []
    for q in queries:
        monster = q["monster"].replace("monster-", "Monster ")
        right = rng.random() < 0.5
        answer = f"{monster} {q['answer']}" if right else "Attack 99 or Attack 98"
        paths = [list(p) for p in q["paths"]] if rng.random() < 0.6 else [[q["monster"]]]
        if rng.random() < 0.3:
            paths.append(list(paths[0]))
        lines.append({"query_id": q["id"], "answer": answer, "paths": paths, "topic": q["monster"],
                      "captions": {q["paths"][0][1]: "The monster performs a move with its tail."}})
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=238)
    args = parser.parse_args()

    from mhmmkg.builders.build import build_dataset
    from mhmmkg.eval import Evaluator, write_submission

    rng = random.Random(0)
    work = Path(tempfile.mkdtemp(prefix="mhmmkg-bench-eval-"))
    queries = write_sources(work / "src", args.queries, rng)
    built = work / "bench-eval-kg"       # not "mh-mmkg": the datasets cache is named after the folder
    build_dataset(work / "src", built, quiet=True)
    sub = write_submission(work / "sub.jsonl", submission(queries, rng), {"model": "bench", "setting": "know"})
    print(f"benchmark: {MONSTERS} monsters, {MONSTERS * (ATTACKS + 1) + 4} entities, {len(queries)} queries; "
          f"submission {sub.stat().st_size / 1024:.0f} KiB")

    python = sys.executable
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")

    def cli(*argv: str):
        def call():
            subprocess.run([python, "-m", "mhmmkg", *argv], check=True, env=env, cwd=work,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return call

    out = str(work / "scores.json")
    cli("evaluate", str(sub), "--dataset", str(built), "--quiet")()      # warm the datasets cache
    report("evaluate, whole process, built dataset", timed(
        cli("evaluate", str(sub), "--dataset", str(built), "--quiet", "--json", out), args.runs))
    result = json.loads(Path(out).read_text())
    print(f"  -> acc {result['acc']:.3f}  precision {result['precision']:.3f}  recall {result['recall']:.3f}  "
          f"sim {result['sim']:.3f} over n = {result['n']}")
    report("evaluate, whole process, sources folder", timed(
        cli("evaluate", str(sub), "--dataset", str(work / "src"), "--quiet", "--json", out), args.runs))
    report("validate, whole process, built dataset", timed(
        cli("validate", str(sub), "--dataset", str(built)), args.runs))
    report("python -c 'import mhmmkg.cli' (interpreter floor)", timed(
        lambda: subprocess.run([python, "-c", "import mhmmkg.cli"], check=True, env=env), args.runs))

    evaluator = Evaluator(work / "src", resamples=1000)
    report("Evaluator.eval in process (1000 resamples)", timed(lambda: evaluator.eval(sub), args.runs))
    evaluator.resamples = 0
    report("Evaluator.eval in process (no bootstrap)", timed(lambda: evaluator.eval(sub), args.runs))


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
