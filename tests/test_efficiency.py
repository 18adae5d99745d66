"""Efficiency as the paper's supplement reports it: calls per query, seconds per call, retrieval
seconds per query, each mean and std, in summary.json and beside the scores of `mhmmkg evaluate`."""
from __future__ import annotations

import json
import shutil

from stub_server import StubServer, offline_responder
from test_baseline_stub import run_online

from mhmmkg.cli import main
from mhmmkg.efficiency import format_spread, spread

LATENCY = 0.03


def test_spread_is_mean_and_population_std():
    assert spread([1, 2, 3, 6]) == {"mean": 3.0, "std": 1.8708, "n": 4}
    assert spread([]) == {"mean": None, "std": None, "n": 0}
    assert format_spread({"mean": 3.0, "std": 1.87083, "n": 4}, " s", 2) == "3.00 ± 1.87 s"
    assert format_spread(spread([])) == "-"


def test_seconds_per_call_counts_endpoint_calls_and_evaluate_shows_the_figures(tiny_sources, tmp_path, capsys):
    cache = str(tmp_path / "cache.sqlite")
    with StubServer(offline_responder(), latency=LATENCY) as server:
        assert run_online(server, tiny_sources, tmp_path / "a", "--setting", "perceptive", "--cache", cache) == 0
        assert run_online(server, tiny_sources, tmp_path / "b", "--setting", "perceptive", "--cache", cache) == 0
    first, cached = (json.loads((tmp_path / run / "summary.json").read_text()) for run in "ab")
    assert first["seconds_per_call"]["n"] == first["agent_calls"] == server.calls
    assert LATENCY <= first["seconds_per_call"]["mean"] < 1.0
    assert first["retrieval_seconds_per_query"]["mean"] >= LATENCY
    assert cached["seconds_per_call"] == {"mean": None, "std": None, "n": 0}      # cache hits are no calls
    assert cached["calls_per_query"] == first["calls_per_query"]

    capsys.readouterr()
    out_json = tmp_path / "scores.json"
    assert main(["evaluate", str(tmp_path / "a" / "submission.jsonl"), "--dataset", str(tiny_sources),
                 "--bootstrap", "0", "--json", str(out_json)]) == 0
    report = capsys.readouterr().out
    calls = first["calls_per_query"]
    assert f"agent calls / query        {calls['mean']:.2f} ± {calls['std']:.2f}" in report
    assert "seconds / call" in report and "retrieval seconds / query" in report
    figures = json.loads(out_json.read_text())["efficiency"]
    assert figures == {key: first[key] for key in ("calls_per_query", "seconds_per_query", "seconds_per_call",
                                                   "retrieval_seconds_per_query")}
    # seconds per query: each query's wall time, its calls included, so at least its calls' latency
    assert first["seconds_per_query"]["n"] == 6 and first["seconds_per_query"]["mean"] >= LATENCY * calls["mean"]
    assert "seconds / query" in report and "wall-clock seconds from the start of answering a query" in report


def test_a_summary_of_another_run_is_not_trusted(tiny_sources, tmp_path, capsys):
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, tmp_path / "a", "--setting", "vanilla_plus", "--no-cache") == 0
    copy = tmp_path / "copy"
    copy.mkdir()
    lines = (tmp_path / "a" / "submission.jsonl").read_text().splitlines()
    (copy / "submission.jsonl").write_text("\n".join(lines[:4]) + "\n")
    shutil.copy(tmp_path / "a" / "summary.json", copy / "summary.json")
    capsys.readouterr()
    assert main(["evaluate", str(copy / "submission.jsonl"), "--dataset", str(tiny_sources), "--bootstrap", "0"]) == 0
    captured = capsys.readouterr()
    assert "efficiency" not in captured.out
    assert "accounts for 6 queries, the submission predicts 4" in captured.err
