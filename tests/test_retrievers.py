"""Plugging a retriever into ``mhmmkg run`` (``--retriever module:function``), and the BM25 example."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from mhmmkg import load_graph, load_queries
from mhmmkg.baseline.retrievers import RetrievalQuery
from mhmmkg.baseline.retrievers.bm25 import retrieve
from mhmmkg.bm25 import BM25
from mhmmkg.cli import main
from mhmmkg.eval import Evaluator

SEEN: list[RetrievalQuery] = []
LOCK = threading.Lock()


def fixed_paths(query, graph):
    """A retriever for the tests: records what it is given and returns a known path."""
    with LOCK:
        SEEN.append(query)
    return [["wolf", "wolf.charged-phase", "wolf.double-slam"], ["wolf"]]


def unknown_entity(query, graph):
    return [["wolf", "wolf.tail-slamm"]]


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def run(*args) -> int:
    return main(["run", "--quiet", *map(str, args)])


def test_a_plugged_retriever_replaces_the_search_and_keeps_the_summarizer(tiny_sources, tmp_path):
    SEEN.clear()
    out = tmp_path / "run"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out,
               "--retriever", "test_retrievers:fixed_paths", "--alpha", "1") == 0
    seen = {q.id: q for q in SEEN}
    assert len(seen) == 6
    slam = seen["wolf-002"]
    assert "Wolf" in slam.question and slam.scene == "It rears up and slams its paws twice." and "charged" in slam.extra
    assert not any(hasattr(q, "answer") or hasattr(q, "paths") for q in SEEN)
    results = {r["query_id"]: r for r in lines(out / "submission.jsonl")}
    assert results["wolf-002"]["paths"] == [["wolf", "wolf.charged-phase", "wolf.double-slam"]]  # alpha 1
    assert results["wolf-002"]["answer"] == "Double Slam"
    calls = lines(out / "calls.jsonl")
    assert {c["agent"] for c in calls} == {"summarizer"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["retriever"] == "test_retrievers:fixed_paths"
    assert Evaluator(tiny_sources, resamples=0).eval(out / "submission.jsonl")["recall"] > 0


def test_retriever_from_a_file_and_bad_specs_are_clear_errors(tiny_sources, tmp_path, capsys):
    file = tmp_path / "mine.py"
    file.write_text("def retrieve(query, graph):\n    return [['wolf', 'wolf.bite']]\n")
    out = tmp_path / "run"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--retriever", f"{file}:retrieve") == 0
    assert {tuple(p) for r in lines(out / "submission.jsonl") for p in r["paths"]} == {("wolf", "wolf.bite")}
    capsys.readouterr()
    cases = [
        ("no.such.module:retrieve", "cannot import no.such.module"),
        ("test_retrievers:nothing", "has no function 'nothing'"),
        ("test_retrievers", "expected MODULE:FUNCTION"),
        (f"{tmp_path / 'absent.py'}:retrieve", "cannot import"),
        ("test_retrievers:unknown_entity", "query wolf-001: path 0 names unknown entities ['wolf.tail-slamm']"),
    ]
    for n, (spec, message) in enumerate(cases):
        assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", tmp_path / f"bad{n}",
                   "--retriever", spec) == 2
        assert message in capsys.readouterr().err, spec
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "know",
               "--retriever", "test_retrievers:fixed_paths") == 2
    assert "setting know has none" in capsys.readouterr().err


def test_bm25_scores_rank_the_document_with_the_rare_term_first():
    a, b, c = BM25(["fire fire breath", "ice breath", "tail swipe"]).scores("fire breath")
    assert a > b > c == 0


def test_bm25_retriever_returns_walks_from_the_named_monster(tiny_sources):
    kg = load_graph(tiny_sources)
    query = RetrievalQuery("q", "I am playing 'Monster Hunter: World' and fighting with Dark Wolf. What is this?",
                           scene="It rears up and slams twice with red sparks.")
    paths = retrieve(query, kg)
    assert paths and all(p[0] == "dark-wolf" and kg.is_walk(p) for p in paths)
    assert ["dark-wolf", "dark-wolf.double-slam"] in paths
    assert len(paths) <= 5


def test_bm25_run_on_the_tiny_benchmark_is_scored(tiny_sources, tmp_path):
    out = tmp_path / "bm25"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out,
               "--retriever", "mhmmkg.baseline.retrievers.bm25:retrieve") == 0
    queries = {q.id: q for q in load_queries(tiny_sources)}
    results = lines(out / "submission.jsonl")
    assert [r["query_id"] for r in results] == list(queries)
    assert all(r["topic"] == "wolf" and len(r["paths"]) <= 5 for r in results)
    assert Evaluator(tiny_sources, resamples=0).eval(out / "submission.jsonl")["recall"] > 0
