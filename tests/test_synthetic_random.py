"""bench/synthetic_random.py, the second benchmark generator: a valid, deterministic sources folder
whose queries are walks in the graph it builds, with the skewed shape it promises."""
from __future__ import annotations

import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mhmmkg import load_graph, load_queries
from mhmmkg.builders.build import build_dataset
from mhmmkg.eval import Evaluator
from mhmmkg.eval.submission import SubmissionChecker

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import synthetic_random  # noqa: E402
from bench_scale import write_submission  # noqa: E402


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Scale 1, seed 0: (sources folder, counts, built dataset folder)."""
    root = tmp_path_factory.mktemp("random")
    counts = synthetic_random.generate(root / "src", 1)
    build_dataset(root / "src", root / "built", quiet=True)
    return root / "src", counts, root / "built"


def test_same_seed_same_bytes_other_seed_other_bytes(generated, tmp_path):
    src, counts, _ = generated
    again = synthetic_random.generate(tmp_path / "again", 1, seed=0)
    other = synthetic_random.generate(tmp_path / "other", 1, seed=1)
    assert again == counts
    assert tree_bytes(tmp_path / "again") == tree_bytes(src)
    other_files = tree_bytes(tmp_path / "other")
    assert set(other_files) != set(tree_bytes(src))
    assert other_files["shared.json"] != tree_bytes(src)["shared.json"]


def test_builds_at_about_the_size_of_data(generated):
    _, counts, built = generated
    graph, queries = load_graph(built), load_queries(built)
    assert counts["monsters"] == 22 and counts["queries"] == len(queries) == 238
    assert 900 <= counts["relations"] == len(graph.relations) <= 1400
    assert counts["entities"] == len(graph.entities)


def test_every_ground_truth_path_is_a_walk_from_the_topic_monster(generated):
    _, _, built = generated
    graph, queries = load_graph(built), load_queries(built)
    for q in queries:
        assert graph.entity(q.monster).type == "monster"
        for path in q.paths:
            assert path[0] == q.monster and graph.is_walk(path), (q.id, path)
        for eid in q.key.entities if q.key else ():
            assert graph.entity(eid).name, (q.id, eid)


def test_queries_cover_every_subtask_and_hop_count(generated):
    _, _, built = generated
    queries = load_queries(built)
    assert {q.subtask for q in queries} == {1, 2, 3, 4, 5, 6}
    assert {max(map(len, q.paths)) - 1 for q in queries} == {0, 1, 2, 3, 4, 5}
    assert {q.key.kind for q in queries} == {"entity", "entities", "yes_no", "text"}
    assert any(len(q.paths) > 1 for q in queries)


def test_shape_is_skewed_and_words_are_not_all_ascii(generated):
    _, _, built = generated
    graph = load_graph(built)
    attacks = Counter(e.monster for e in graph.entities if e.type == "attack_action")
    assert max(attacks.values()) >= 3 * statistics.median(attacks.values())
    texts = [e.name + " " + (e.text or "") for e in graph.entities]
    assert any(any(ord(ch) > 0x3000 for ch in t) for t in texts)          # kana or ideographs
    assert any(any(0x80 <= ord(ch) < 0x300 for ch in t) for t in texts)   # accented letters
    types = Counter(r.type for r in graph.relations)
    assert len(types) == 16 and types["has_attack_action"] > types["continues_with"] > types["has_attack_variant"]


def test_monster_zero_is_the_same_size_at_every_scale(generated, tmp_path):
    _, _, built = generated
    synthetic_random.generate(tmp_path / "x2", 2)
    first = synthetic_random.first_monster()
    small = sum(e.monster == first for e in load_graph(built).entities)
    large = sum(e.monster == first for e in load_graph(tmp_path / "x2").entities)
    assert small == large > 5


def test_the_bench_submission_is_valid_and_right_answers_score(generated, tmp_path):
    src, _, built = generated
    lines = write_submission(src, tmp_path / "sub.jsonl")
    graph, queries = load_graph(built), load_queries(built)
    checked = SubmissionChecker(graph, queries).check_file(tmp_path / "sub.jsonl")
    assert lines == 238 and checked.ok, checked.problems[:3]
    perfect = [{"query_id": q.id, "answer": q.answer, "paths": [list(p) for p in q.paths], "topic": q.monster}
               for q in queries]
    evaluator = Evaluator(built, resamples=0, graph=graph, queries=queries)
    scores = evaluator.eval(perfect)
    assert (scores["precision"], scores["recall"]) == (1.0, 1.0)
    wrong = {s.query_id for s in evaluator.score(evaluator.check(perfect)) if not s.correct}
    assert wrong == set()          # names in kana, kanji or with accents are matched too


def test_cli_refuses_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    done = subprocess.run([sys.executable, str(BENCH / "synthetic_random.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "notes.txt" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
