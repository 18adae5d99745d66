"""The evaluator and the evaluate verb, on a fixture submission with hand-computed scores."""
from __future__ import annotations

import json
import re

import pytest
from stub_server import StubServer

from mhmmkg.cli import main
from mhmmkg.eval import Evaluator, InvalidSubmission, format_result, write_submission
from mhmmkg.loading import load_graph, load_queries

CHARGED = ["wolf", "wolf.charged-phase", "wolf.double-slam"]
LOOP = ["wolf", "wolf.back-slam", "wolf.double-slam", "wolf.back-slam", "wolf.double-slam", "wolf.spark"]

# Ground truth (tests/conftest.py):                    hops | answer ok | P   | R   | topic ok | grounded
FIXTURE = [
    # wolf-001 (I) has no prediction                      0 |   no      | 0   | 0   | no       | no
    {"query_id": "wolf-002", "answer": "Wolf Double Slam",  # 2 |   yes     | 1/2 | 1   | yes      | yes
     "paths": [CHARGED, ["wolf", "wolf.bite"]]},            # (an extra path)
    {"query_id": "wolf-003", "answer": "Bite",              # 3 |   no      | 1/2 | 1   | yes      | no
     "paths": [CHARGED + ["wolf.back-slam"]] * 2},          # (the same path twice)
    {"query_id": "wolf-004", "answer": "when enraged!",     # 2 |   yes     | 0   | 0   | yes      | no
     "paths": [], "topic": "wolf"},                         # (nothing retrieved)
    {"query_id": "wolf-005", "answer": "Spark Trail",       # 3 |   yes     | 1/2 | 1   | yes      | yes
     "paths": [LOOP, CHARGED + ["wolf.spark"]]},            # (a loop that matches nothing)
    {"query_id": "wolf-006", "answer": "Red sparks",        # 2 |   no      | 1   | 1/2 | no       | no
     "paths": [["wolf", "dark-wolf", "dark-wolf.double-slam"]], "topic": "dark-wolf"},  # (cross-monster)
]


@pytest.fixture
def evaluator(tiny_sources) -> Evaluator:
    return Evaluator(tiny_sources, resamples=200)


def test_hand_computed_scores_missing_counted_as_zero(evaluator):
    r = evaluator.eval(FIXTURE)
    assert (r["n"], r["n_predicted"], r["n_missing"], r["missing"]) == (6, 5, 1, "zero")
    assert r["acc"] == pytest.approx(3 / 6)
    assert r["precision"] == pytest.approx(2.5 / 6)
    assert r["recall"] == pytest.approx(3.5 / 6)
    assert r["top"] == pytest.approx(4 / 6)
    assert r["grounded_acc"] == pytest.approx(2 / 6)
    assert list(r["by_subtask"]) == ["I", "II", "III", "IV", "V", "VI"]
    assert r["by_subtask"]["I"] == {"n": 1, "acc": 0.0, "precision": 0.0, "recall": 0.0, "top": 0.0, "grounded_acc": 0.0}
    assert r["by_subtask"]["VI"] == {"n": 1, "acc": 0.0, "precision": 1.0, "recall": 0.5, "top": 0.0, "grounded_acc": 0.0}
    assert r["by_subtask"]["III"]["precision"] == 0.5 and r["by_subtask"]["III"]["recall"] == 1.0
    assert list(r["by_hops"]) == ["0", "2", "3"]
    two = r["by_hops"]["2"]
    assert two["n"] == 3 and two["acc"] == pytest.approx(2 / 3) and two["recall"] == pytest.approx(0.5)
    assert r["by_hops"]["3"] == {"n": 2, "acc": 0.5, "precision": 0.5, "recall": 1.0, "top": 1.0, "grounded_acc": 0.5}
    per_query = {q["query_id"]: q for q in r["queries"]}
    assert per_query["wolf-001"]["rule"] == "missing" and not per_query["wolf-001"]["predicted"]
    assert per_query["wolf-002"]["rule"] == "normalised" and per_query["wolf-002"]["grounded"]
    assert per_query["wolf-003"]["matched"] == 1 and per_query["wolf-003"]["n_predicted"] == 2
    assert r["sim"] is None and r["n_captions"] == 0


def test_hand_computed_scores_missing_skipped(tiny_sources):
    r = Evaluator(tiny_sources, missing="skip", resamples=0).eval(FIXTURE)
    assert (r["n"], r["n_missing"]) == (5, 1)
    assert (r["acc"], r["precision"], r["recall"], r["top"], r["grounded_acc"]) == pytest.approx((0.6, 0.5, 0.7, 0.8, 0.4))
    assert r["by_subtask"]["I"] == {"n": 0, "acc": None, "precision": None, "recall": None, "top": None,
                                    "grounded_acc": None}
    assert r["by_hops"]["0"]["n"] == 0
    assert r["ci"]["acc"] is None


def test_intervals_are_seeded_and_bracket_the_mean(tiny_sources):
    a = Evaluator(tiny_sources, seed=5, resamples=300).eval(FIXTURE)["ci"]
    b = Evaluator(tiny_sources, seed=5, resamples=300).eval(FIXTURE)["ci"]
    c = Evaluator(tiny_sources, seed=6, resamples=300).eval(FIXTURE)["ci"]
    assert a == b and a != c
    assert a["acc"][0] < 0.5 < a["acc"][1]
    assert (a["level"], a["resamples"], a["seed"]) == (0.95, 300, 5)


def test_everything_right_scores_one_and_nothing_scores_zero(tiny_sources, evaluator):
    queries = load_queries(tiny_sources)
    perfect = [{"query_id": q.id, "answer": q.answer, "paths": [list(p) for p in q.paths]} for q in queries]
    r = evaluator.eval(perfect)
    assert (r["acc"], r["precision"], r["recall"], r["top"], r["grounded_acc"]) == (1.0, 1.0, 1.0, 1.0, 1.0)
    empty = evaluator.eval([{"query_id": q.id, "answer": "", "paths": []} for q in queries])
    assert (empty["acc"], empty["precision"], empty["recall"], empty["top"]) == (0.0, 0.0, 0.0, 0.0)


def test_input_forms_agree(tiny_sources, tmp_path, evaluator):
    sub = write_submission(tmp_path / "sub.jsonl", FIXTURE)
    by_id = {p["query_id"]: {k: v for k, v in p.items() if k != "query_id"} for p in FIXTURE}
    scores = [{k: evaluator.eval(x)[k] for k in ("acc", "precision", "recall", "top", "ci")}
              for x in (FIXTURE, by_id, sub, str(sub))]
    assert all(s == scores[0] for s in scores)
    assert "query_id" in evaluator.expected_input_format and "paths" in evaluator.expected_input_format


def test_invalid_predictions_are_refused(evaluator):
    with pytest.raises(InvalidSubmission, match="unknown query id 'nope'"):
        evaluator.eval([{"query_id": "nope", "answer": "x", "paths": []}])


def test_caption_similarity(tiny_sources, evaluator):
    captions = {"wolf.double-slam": "Stands tall, then slams both forepaws onto the ground twice.",
                "wolf.bite": "Spins its tail in a wide circle.",
                "wolf.charged-phase": "Glows."}                  # no human caption: not judged
    preds = [dict(FIXTURE[0], captions=captions), dict(FIXTURE[1], captions={"wolf.bite": "Snaps its jaws forward!"}),
             dict(FIXTURE[2], captions={"wolf.double-slam": captions["wolf.double-slam"]})]   # a repeat counts once
    r = evaluator.eval(preds)
    # double-slam similar (1.0); bite: one wrong caption and one copy of the human caption (0.0)
    assert r["n_captions"] == 3 and r["n_caption_entities"] == 2 and r["sim"] == pytest.approx(1 / 2)
    judged = {(c["entity"], c["accepted"], c["rule"].split("=")[0]) for c in r["captions"]}
    assert judged == {("wolf.double-slam", True, "word_f1"), ("wolf.bite", False, "word_f1"),
                      ("wolf.bite", False, "copied")}
    assert r["n_captions_copied"] == 1 and any("equal or too close to the human caption (wolf.bite)" in w
                                             for w in r["warnings"])
    assert "Sim. 50.0 over 2 entities (3 distinct generated captions; 1 equal or too close to the human caption" \
        in format_result(r)


def test_compare_is_paired(tiny_sources, evaluator):
    queries = load_queries(tiny_sources)
    perfect = [{"query_id": q.id, "answer": q.answer, "paths": [list(p) for p in q.paths]} for q in queries]
    r = evaluator.compare(perfect, FIXTURE)
    metrics = r["compare"]["metrics"]
    assert r["compare"]["n"] == 6
    assert metrics["acc"]["a"] == 1.0 and metrics["acc"]["b"] == 0.5 and metrics["acc"]["delta"] == pytest.approx(0.5)
    assert metrics["recall"]["delta"] == pytest.approx(1 - 3.5 / 6)
    low, high = metrics["acc"]["ci"]
    assert 0 <= low < 0.5 < high <= 1
    assert r["acc"] == 1.0 and r["compare"]["other_result"]["acc"] == 0.5
    skipped = Evaluator(tiny_sources, missing="skip", resamples=100).compare(perfect, FIXTURE)
    assert skipped["compare"]["n"] == 5


def test_on_a_built_dataset(tiny_dataset, tiny_sources):
    built = Evaluator(tiny_dataset, resamples=100).eval(FIXTURE)
    from_sources = Evaluator(tiny_sources, resamples=100).eval(FIXTURE)
    for key in ("n", "acc", "precision", "recall", "top", "grounded_acc", "by_subtask", "by_hops", "ci"):
        assert built[key] == from_sources[key]


def test_evaluate_verb_prints_the_table_and_writes_json(tiny_sources, tmp_path, capsys):
    sub = write_submission(tmp_path / "sub.jsonl", FIXTURE, {"model": "offline", "setting": "perceptive"})
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(sub), "--dataset", str(tiny_sources), "--json", str(out)]) == 0
    stdout, stderr = capsys.readouterr()
    assert re.search(r"^all\s+6\s+50\.0\s+41\.7\s+58\.3\s+66\.7\s+33\.3$", stdout, re.M), stdout
    assert re.search(r"^VI\s+1\s+0\.0\s+100\.0\s+50\.0", stdout, re.M)
    assert re.search(r"^2 hops\s+3\s+66\.7", stdout, re.M)
    assert "95% CI: Acc. [" in stdout
    assert "1 of 6 benchmark queries have no prediction (wolf-001)" in stderr
    note = "note: 1 of 6 queries have no prediction; each counts as wrong with P = R = 0"
    assert note in stdout and stdout.index(note) < stdout.index("Acc.")
    result = json.loads(out.read_text())
    for key in ("n", "acc", "precision", "recall", "top", "grounded_acc", "by_subtask", "ci", "by_hops", "queries"):
        assert key in result
    assert set(result["by_subtask"]["IV"]) >= {"n", "acc", "precision", "recall"}
    assert result["run_meta"] == {"model": "offline", "setting": "perceptive"}
    assert main(["evaluate", str(sub), "--dataset", str(tiny_sources), "--missing", "skip"]) == 0
    stdout = capsys.readouterr().out
    assert re.search(r"^all\s+5\s+60\.0\s+50\.0\s+70\.0", stdout, re.M)
    assert "note: 1 of 6 queries have no prediction; they are left out of every score (--missing skip), so n is 5" \
        in stdout


def test_evaluate_verb_compare(tiny_sources, tmp_path, capsys):
    a = write_submission(tmp_path / "a.jsonl", FIXTURE)
    b = write_submission(tmp_path / "b.jsonl", [dict(p, answer="nothing") for p in FIXTURE])
    assert main(["evaluate", str(a), "--dataset", str(tiny_sources), "--compare", str(b), "--bootstrap", "300"]) == 0
    out = capsys.readouterr().out
    assert f"Paired comparison over 6 queries: {a} (A) - {b} (B)" in out
    assert re.search(r"^Acc\.\s+50\.0\s+0\.0\s+\+50\.0\s+\[", out, re.M), out
    assert re.search(r"^Rec\.\s+58\.3\s+58\.3\s+\+0\.0\s+\[\+0\.0, \+0\.0\]\s+1\.000$", out, re.M), out


def test_evaluate_verb_refuses_an_invalid_submission(tiny_sources, tmp_path, capsys):
    sub = tmp_path / "sub.jsonl"
    sub.write_text(json.dumps(FIXTURE[0]) + "\n{broken\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(sub), "--dataset", str(tiny_sources), "--json", str(out)]) == 2
    assert f"{sub}:2: invalid JSON" in capsys.readouterr().err
    assert not out.exists()


def test_evaluate_help(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    for option in ("--judge {exact,exact-nokey,openai}", "--missing {zero,skip}", "--json OUT", "--compare OTHER.jsonl",
                   "--judge-model", "--judge-cache"):
        assert option in out
    rules = out[out.index("How the exact judge decides"):]
    for rule in ("key-entity", "key-rival", "key-hedge", "key-polarity-missing", "key-nugget-missing", "key-flood",
                 '"Yes/No", "Yes (no)", "Yes No" wrong'):
        assert rule in rules


# ---------------------------------------------------------------------------------------------
# The LLM judge through the evaluate verb, against a real HTTP server

def grader(body: dict) -> str:
    last = body["messages"][-1]["content"]
    candidate = json.loads(re.search(r"Candidate (?:answer|description): (.*)", last).group(1))
    reference = json.loads(re.search(r"Reference (?:answer|description): (.*)", last).group(1))
    if candidate == "Bite":
        return "Hmm, hard to tell."
    return "Yes" if candidate.lower().strip("!") in reference.lower() else "No"


def test_evaluate_with_the_llm_judge(tiny_sources, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "sk-test")
    sub = write_submission(tmp_path / "sub.jsonl", FIXTURE)
    cache = tmp_path / "judge.sqlite"
    out = tmp_path / "scores.json"
    argv = ["evaluate", str(sub), "--dataset", str(tiny_sources), "--json", str(out), "--quiet",
            "--judge", "openai", "--judge-model", "grader", "--judge-cache", str(cache), "--judge-api-key-env", "JUDGE_KEY"]
    with StubServer(grader, faults=["500"]) as server:
        assert main(argv + ["--judge-base-url", server.url]) == 0
        first_calls = server.calls
        stdout = capsys.readouterr().out
        assert main(argv + ["--judge-base-url", server.url]) == 0
        assert server.calls == first_calls          # every verdict came from the cache
    assert first_calls == 6                          # 5 answers + 1 retry after the 500
    assert server.requests[1]["headers"]["Authorization"] == "Bearer sk-test"
    result = json.loads(out.read_text())
    assert result["judge"]["name"] == f"llm:openai|{server.url}|grader"
    assert result["judge"]["unparseable"] == 1 and result["judge"]["unparseable_queries"] == ["wolf-003"]
    per_query = {q["query_id"]: q for q in result["queries"]}
    assert per_query["wolf-003"]["verdict"] == "Hmm, hard to tell." and per_query["wolf-003"]["unparseable"]
    assert per_query["wolf-002"]["verdict"] == "No"  # "Wolf Double Slam" is not inside "Double Slam"
    assert per_query["wolf-004"]["verdict"] == per_query["wolf-006"]["verdict"] == "Yes"
    assert result["acc"] == pytest.approx(3 / 6)
    assert "1 answer verdict(s) and 0 caption verdict(s) could not be read as Yes/No" in stdout
    assert "(wolf-003)" in stdout


def test_llm_judge_needs_a_model_name(tiny_sources, tmp_path, capsys):
    sub = write_submission(tmp_path / "sub.jsonl", FIXTURE)
    assert main(["evaluate", str(sub), "--dataset", str(tiny_sources), "--judge", "openai"]) == 2
    assert "--judge openai needs --judge-model" in capsys.readouterr().err


def test_evaluator_takes_a_loaded_benchmark(tiny_sources):
    graph, queries = load_graph(tiny_sources), load_queries(tiny_sources)
    r = Evaluator("label", graph=graph, queries=queries, resamples=0).eval(FIXTURE)
    assert r["dataset"] == "label" and r["acc"] == 0.5


def test_llm_judge_scores_captions_and_keeps_unparseable_apart(tiny_sources, tmp_path):
    from mhmmkg.chat import OpenAIChat
    from mhmmkg.eval import LLMJudge

    def caption_grader(body: dict) -> str:
        last = body["messages"][-1]["content"]
        if "Candidate description: " not in last:
            return "Yes"
        caption = json.loads(last.rsplit("Candidate description: ", 1)[1].split("\n")[0])
        return {"slams twice": "Yes", "bites": "no", "???": "cannot judge"}[caption]

    preds = [dict(FIXTURE[0], captions={"wolf.double-slam": "slams twice", "wolf.bite": "bites"}),
             dict(FIXTURE[1], captions={"wolf.back-slam": "???"})]
    with StubServer(caption_grader) as server:
        judge = LLMJudge(OpenAIChat(server.url, "grader", backoff_base=0.01))
        r = Evaluator(tiny_sources, judge=judge, judge_workers=3, resamples=0).eval(preds)
    assert r["n_captions"] == 3 and r["sim"] == pytest.approx(1 / 3)
    assert r["judge"]["unparseable_captions"] == 1 and r["judge"]["unparseable"] == 0
    assert {c["entity"]: c["verdict"] for c in r["captions"]} == {
        "wolf.double-slam": "Yes", "wolf.bite": "no", "wolf.back-slam": "cannot judge"}
    assert r["acc"] == pytest.approx(2 / 6)


def test_compare_checks_both_submissions_before_scoring(evaluator):
    with pytest.raises(InvalidSubmission, match=r"predictions\[0\]:/paths/0/0"):
        evaluator.compare(FIXTURE, [{"query_id": "wolf-002", "answer": "x", "paths": [["nowhere"]]}])
