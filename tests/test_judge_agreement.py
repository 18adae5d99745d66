"""`mhmmkg judge-agreement`: the exact judge with and without keys, and an LLM judge on a stub server."""
from __future__ import annotations

import json
import re

import pytest
from stub_server import StubServer

from conftest import build_keyed_dataset
from mhmmkg.cli import main

LABELS = [
    {"query_id": "wolf-002", "reply": "It slams twice: the Double Slam.", "verdict": True, "kind": "hand:sentence"},
    {"query_id": "wolf-002", "reply": "Double Slam or Bite", "verdict": False, "kind": "hand:hedge"},
    {"query_id": "wolf-002", "reply": "Back Slam", "verdict": False, "kind": "run:offline"},
    {"query_id": "wolf-003", "reply": "Back Slam", "verdict": True, "kind": "run:offline"},
    {"query_id": "wolf-001", "reply": "Thunder Wolf", "verdict": True, "kind": "run:offline"},
    {"query_id": "wolf-005", "reply": "A Spark Trail stays on the ground.", "verdict": True, "kind": "hand:sentence",
     "note": "the reference is the bare name"},
]


@pytest.fixture(scope="module")
def keyed_dataset(tmp_path_factory):
    """The tiny sources with answer keys on wolf-002 and wolf-005, built."""
    return build_keyed_dataset(tmp_path_factory.mktemp("keyed"),
                               {"wolf-002": {"kind": "entity", "entities": ["wolf.double-slam"]},
                                "wolf-005": {"kind": "entity", "entities": ["wolf.spark"]}})


def write_labels(path, labels):
    path.write_text("".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8")
    return path


def test_agreement_before_and_after_keys(keyed_dataset, tmp_path, capsys):
    labels = write_labels(tmp_path / "labels.jsonl", LABELS)
    out = tmp_path / "agreement.json"
    assert main(["judge-agreement", "--labels", str(labels), "--dataset", str(keyed_dataset), "--json", str(out),
                 "--show-disagreements"]) == 0
    text = capsys.readouterr().out
    result = json.loads(out.read_text())
    after, before = result["judges"]["exact"], result["judges"]["exact-nokey"]
    assert (after["agreement"], after["kappa"], after["disagreements"]) == (1.0, 1.0, [])
    # old rules: judge [no, no, no, yes, yes, no] vs person [yes, no, no, yes, yes, yes]:
    # p_o = 4/6, p_e = 2/6 * 4/6 + 4/6 * 2/6 = 4/9, kappa = (6/9 - 4/9) / (5/9) = 0.4
    assert before["agreement"] == pytest.approx(4 / 6) and before["kappa"] == pytest.approx(0.4)
    assert before["confusion"] == {"yes_yes": 2, "yes_no": 0, "no_yes": 2, "no_no": 2}
    assert before["by_subtask"]["II"]["n"] == 3 and before["by_subtask"]["II"]["agreement"] == pytest.approx(2 / 3)
    assert [d["query_id"] for d in before["disagreements"]] == ["wolf-002", "wolf-005"]
    assert result["keyed"] == 4
    assert before["by_key"]["with key"]["agreement"] == pytest.approx(2 / 4)
    assert after["by_key"]["without key"] == {"n": 2, "agreement": 1.0, "kappa": 1.0,
                                              "confusion": {"yes_yes": 2, "yes_no": 0, "no_yes": 0, "no_no": 0}}
    assert re.search(r"^  query with key\s+4\s+50\.0", text, re.M)
    assert re.search(r"^all\s+6\s+100\.0\s+1\.000\s+4\s+0\s+0\s+2$", text, re.M)
    assert re.search(r"^all\s+6\s+66\.7\s+0\.400\s+2\s+0\s+2\s+2$", text, re.M)
    assert "0 disagreement(s) for judge exact" in text


def test_old_rules_alone_list_their_disagreements(keyed_dataset, tmp_path, capsys):
    labels = write_labels(tmp_path / "labels.jsonl", LABELS)
    assert main(["judge-agreement", "--labels", str(labels), "--dataset", str(keyed_dataset),
                 "--judge", "exact-nokey", "--show-disagreements"]) == 0
    text = capsys.readouterr().out
    assert "judge exact-nokey" in text and "judge exact\n" not in text
    assert re.search(r"wolf-005\s+person right\s+judge wrong\s+rule no_match\s+'A Spark Trail", text)


@pytest.mark.parametrize("line, reason", [
    ('{"query_id": "wolf-002", "reply": "x", "verdict": "yes", "kind": "hand"}', "verdict: expected a boolean"),
    ('{"query_id": "nope-001", "reply": "x", "verdict": true, "kind": "hand"}', "not a query of the dataset"),
    ('{"query_id": "wolf-002", "reply": "x", "verdict": true}', "kind: expected a string"),
    ('{"query_id": "wolf-002", "reply": "x", "verdict": true, "kind": "h", "extra": 1}', "unknown field"),
    ("not json", "invalid JSON"),
])
def test_bad_labels_are_refused_with_file_and_line(keyed_dataset, tmp_path, capsys, line, reason):
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps(LABELS[0]) + "\n" + line + "\n", encoding="utf-8")
    out = tmp_path / "agreement.json"
    assert main(["judge-agreement", "--labels", str(labels), "--dataset", str(keyed_dataset),
                 "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{labels}:line 2: " in err and reason in err and "Traceback" not in err
    assert not out.exists()


def test_llm_judge_agreement_on_a_stub_server(keyed_dataset, tmp_path, capsys):
    def grader(body):
        last = body["messages"][-1]["content"]
        candidate = json.loads(re.search(r"Candidate answer: (.*)", last).group(1))
        return "Yes" if candidate in {"It slams twice: the Double Slam.", "Back Slam", "Thunder Wolf"} else "No"

    labels = write_labels(tmp_path / "labels.jsonl", LABELS)
    out = tmp_path / "agreement.json"
    with StubServer(grader) as server:
        assert main(["judge-agreement", "--labels", str(labels), "--dataset", str(keyed_dataset),
                     "--judge", "openai", "--judge-model", "grader", "--judge-base-url", server.url,
                     "--judge-cache", str(tmp_path / "cache.sqlite"), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    name = next(iter(result["judges"]))
    assert name.startswith("llm:") and list(result["judges"])[1] == "exact-nokey"
    llm = result["judges"][name]
    # the stub says yes to 4 replies: right for wolf-002 #1, wolf-003, wolf-001; wrong for "Back Slam" on
    # wolf-002 (person no) and no for the Spark Trail sentence (person yes): 4 of 6 agree
    assert llm["confusion"] == {"yes_yes": 3, "yes_no": 1, "no_yes": 1, "no_no": 1}
    prompts = [r["body"]["messages"][-1]["content"] for r in server.requests]
    keyed = [p for p in prompts if "Answer key:" in p]
    assert len(prompts) == 6 and len(keyed) == 4
    assert all("Double Slam (attack action)" in p or "Spark Trail (attack effect)" in p for p in keyed)


def test_help_explains_the_figures_and_the_rules(capsys):
    with pytest.raises(SystemExit):
        main(["judge-agreement", "--help"])
    out = capsys.readouterr().out
    for text in ("Cohen's kappa", "confusion matrix", "--show-disagreements", "--labels FILE",
                 "--judge {exact,exact-nokey,openai}", "--judge-base-url", "How the exact judge decides"):
        assert text in out


def test_a_missing_label_file_is_one_clear_error(keyed_dataset, tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert main(["judge-agreement", "--labels", str(missing), "--dataset", str(keyed_dataset)]) == 2
    err = capsys.readouterr().err
    assert f"{missing}: cannot read the label file: no such file" in err and "Traceback" not in err


def test_judge_options_are_checked_first(keyed_dataset, tmp_path, capsys):
    labels = write_labels(tmp_path / "labels.jsonl", LABELS)
    assert main(["judge-agreement", "--labels", str(labels), "--dataset", str(keyed_dataset),
                 "--judge-prompts", str(tmp_path / "set.json")]) == 2
    assert "--judge-prompts needs --judge openai" in capsys.readouterr().err
    assert main(["judge-agreement", "--labels", str(labels), "--dataset", str(keyed_dataset), "--judge", "openai"]) == 2
    assert "--judge openai needs --judge-model NAME" in capsys.readouterr().err
