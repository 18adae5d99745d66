"""The benchmark as a retrieval task: the BEIR-layout export, the graded qrels, and retrieval
scores computed by ir-measures on real run files."""
from __future__ import annotations

import csv
import json
import math

import pytest

from mhmmkg.beir import qrels, relevance
from mhmmkg.cli import main
from mhmmkg.eval.retrieval import RetrievalEvaluator
from mhmmkg.loading import load_graph, load_queries

pytest.importorskip("ir_measures")


def test_beir_export_holds_corpus_queries_and_graded_qrels(tiny_dataset, tmp_path):
    out = tmp_path / "beir"
    assert main(["export", "--format", "beir", "--dataset", str(tiny_dataset), "--out", str(out)]) == 0
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert [d["_id"] for d in corpus] == [e.id for e in load_graph(tiny_dataset).entities]
    slam = next(d for d in corpus if d["_id"] == "wolf.double-slam")
    assert slam["title"] == "Double Slam" and "Rears up and slams" in slam["text"] and "continues with" in slam["text"]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (out / "queries.jsonl").read_text().splitlines())}
    assert "fighting with Wolf" in queries["wolf-002"] and "slams its paws twice" in queries["wolf-002"]
    with open(out / "qrels" / "test.tsv", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert rows[0] == ["query-id", "corpus-id", "score"]
    judged = {(q, d): int(s) for q, d, s in rows[1:]}
    assert judged[("wolf-003", "wolf.back-slam")] == 2
    assert judged[("wolf-003", "wolf.double-slam")] == 1
    assert ("wolf-003", "wolf") not in judged
    assert judged[("wolf-001", "wolf")] == 2
    # a second export replaces our own folder; an unrelated folder is refused
    assert main(["export", "--format", "beir", "--dataset", str(tiny_dataset), "--out", str(out)]) == 0
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    assert main(["export", "--format", "beir", "--dataset", str(tiny_dataset), "--out", str(other)]) == 2
    assert (other / "notes.txt").read_text() == "keep me"


def test_relevance_keeps_the_highest_grade_of_an_entity_on_several_paths(tiny_dataset):
    query = {q.id: q for q in load_queries(tiny_dataset)}["wolf-006"]
    assert relevance(query) == {"wolf.charged-phase": 1, "wolf.double-slam": 2, "dark-wolf": 1,
                                "dark-wolf.double-slam": 2}


def test_a_perfect_run_scores_one_and_an_empty_run_zero(tiny_dataset):
    evaluator = RetrievalEvaluator(tiny_dataset, resamples=0)
    perfect = {q: {d: float(g) for d, g in grades.items()} for q, grades in evaluator.qrels.items()}
    result = evaluator.eval(perfect)
    assert result["measures"]["R@10"]["mean"] == pytest.approx(1.0)
    assert result["measures"]["nDCG@10"]["mean"] == pytest.approx(1.0)
    assert result["measures"]["RR"]["mean"] == pytest.approx(1.0)
    assert evaluator.eval({})["measures"]["R@10"]["mean"] == 0.0


def test_hand_computed_scores_and_left_out_queries(tiny_dataset):
    evaluator = RetrievalEvaluator(tiny_dataset, measures=("nDCG@10", "RR", "R@1"), resamples=200)
    # wolf-003 judges back-slam 2, charged-phase 1, double-slam 1; rank: bite (not judged), double-slam, back-slam
    run = {"wolf-003": {"wolf.bite": 3.0, "wolf.double-slam": 2.0, "wolf.back-slam": 1.0}}
    result = evaluator.eval(run)
    dcg = 1 / math.log2(3) + 2 / math.log2(4)              # trec_eval's nDCG: the grade is the gain
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert result["per_query"]["wolf-003"]["nDCG@10"] == pytest.approx(dcg / ideal)
    assert result["per_query"]["wolf-003"]["RR"] == pytest.approx(0.5)
    assert result["per_query"]["wolf-003"]["R@1"] == 0.0
    n = len(evaluator.qrels)
    assert result["ranked"] == 1 and result["queries"] == n
    assert result["measures"]["RR"]["mean"] == pytest.approx(0.5 / n)
    low, high = result["measures"]["nDCG@10"]["ci"]
    assert 0.0 <= low <= result["measures"]["nDCG@10"]["mean"] <= high


def test_rank_then_evaluate_retrieval_from_files(tiny_dataset, tmp_path, capsys):
    trec, as_json, scores = tmp_path / "bm25.trec", tmp_path / "bm25.json", tmp_path / "scores.json"
    assert main(["rank", "--dataset", str(tiny_dataset), "--out", str(trec)]) == 0
    assert main(["rank", "--dataset", str(tiny_dataset), "--out", str(as_json)]) == 0
    first = trec.read_text().splitlines()[0].split()
    assert len(first) == 6 and first[1] == "Q0" and first[3] == "1"
    assert main(["evaluate-retrieval", str(trec), "--dataset", str(tiny_dataset), "--json", str(scores)]) == 0
    out = capsys.readouterr().out
    assert "nDCG@10" in out and "RR" in out
    from_trec = json.loads(scores.read_text())
    from_json = RetrievalEvaluator(tiny_dataset).eval(str(as_json))
    assert from_trec["measures"]["nDCG@10"]["mean"] == pytest.approx(from_json["measures"]["nDCG@10"]["mean"])
    assert 0 < from_trec["measures"]["R@10"]["mean"] <= 1


@pytest.mark.parametrize("content, reason", [
    ("wolf-002 Q0 wolf.nosuch 1 2.0 x\n", "unknown entity"),
    ("nosuch-001 Q0 wolf.bite 1 2.0 x\n", "not a benchmark query"),
    ("wolf-002 Q0 wolf.bite 1\n", ":1: expected 6 fields"),
    ("wolf-002 Q0 wolf.bite 1 high x\n", "is not a number"),
    ("wolf-002 Q0 wolf.bite 1 2 x\nwolf-002 Q0 wolf.bite 2 1 x\n", ":2: entity 'wolf.bite' is ranked twice"),
    ('{"wolf-002": {"wolf.bite": NaN}}', "NaN"),
    ('{"wolf-002": ["wolf.bite"]}', "expected {entity_id: score}"),
])
def test_a_bad_run_is_refused_with_its_place(tiny_dataset, tmp_path, capsys, content, reason):
    run = tmp_path / "run.txt"
    run.write_text(content)
    assert main(["evaluate-retrieval", str(run), "--dataset", str(tiny_dataset)]) == 2
    assert reason in capsys.readouterr().err


def test_qrels_cover_every_query_of_the_default_data():
    queries = load_queries("data")
    judged = qrels(queries)
    assert set(judged) == {q.id for q in queries}
    assert all(2 in grades.values() for grades in judged.values())
