"""`mhmmkg run --sample N`: a seeded sample spread over sub-tasks and monsters, recorded in the manifest."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from mhmmkg.baseline.sample import stratified_sample
from mhmmkg.cli import main
from mhmmkg.model import Query


def _queries() -> list[Query]:
    """Three monsters: 'a' has many queries of every sub-task, 'b' and 'c' a few."""
    queries = []
    for monster, per_subtask in (("a", 6), ("b", 2), ("c", 1)):
        for subtask in range(1, 7):
            for k in range(per_subtask):
                queries.append(Query(f"{monster}-{subtask}{k}", subtask, "q", monster, "x", ((monster,),)))
    return queries


def test_sample_spreads_over_subtasks_and_monsters():
    queries = _queries()
    sample = stratified_sample(queries, 12, seed=3)
    assert len(sample) == 12 and len({q.id for q in sample}) == 12
    assert Counter(q.subtask for q in sample) == {s: 2 for s in range(1, 7)}
    per_monster = Counter(q.monster for q in sample)     # 'a' has 2/3 of the queries, yet no majority here
    assert set(per_monster) == {"a", "b", "c"} and max(per_monster.values()) - min(per_monster.values()) <= 2
    assert [q.id for q in sample] == [q.id for q in queries if q in sample]      # the benchmark's order


def test_sample_is_seeded_and_never_larger_than_the_benchmark():
    queries = _queries()
    assert stratified_sample(queries, 10, seed=1) == stratified_sample(queries, 10, seed=1)
    draws = {tuple(q.id for q in stratified_sample(queries, 10, seed=s)) for s in range(5)}
    assert len(draws) > 1
    assert len(stratified_sample(queries, 1000)) == len(queries)


def test_run_sample_is_recorded_in_the_manifest(tiny_dataset, tmp_path):
    out = tmp_path / "run"
    assert main(["run", "--setting", "know", "--dataset", str(tiny_dataset), "--out", str(out), "--sample", "3",
                 "--seed", "7", "--quiet", "--no-cache"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["selection"] == {"mode": "sample", "n": 3, "seed": 7, "queries": 3}
    lines = (out / "submission.jsonl").read_text().splitlines()
    assert len({json.loads(x)["query_id"][-1] for x in lines}) == 3     # three different sub-tasks (ids end in 1..6)


@pytest.mark.parametrize("extra, message", [(["--sample", "0"], "--sample 0: must be at least 1"),
                                             (["--sample", "2", "--limit", "2"], "give one of them")])
def test_bad_sample_arguments(tiny_dataset, tmp_path, capsys, extra, message):
    assert main(["run", "--setting", "know", "--dataset", str(tiny_dataset), "--out", str(tmp_path / "r"),
                 "--quiet", "--no-cache", *extra]) == 2
    assert message in capsys.readouterr().err
