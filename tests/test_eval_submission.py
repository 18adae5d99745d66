"""Submission checks: every malformed line is reported with line and reason, exit 2, no crash."""
from __future__ import annotations

import json
import re

import pytest

from mhmmkg.cli import main
from mhmmkg.eval.submission import InvalidSubmission, SubmissionChecker, meta_path, write_submission
from mhmmkg.loading import load_graph, load_queries

GOOD = {"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]}
GOOD_LINE = json.dumps(GOOD)


def line(**changes) -> str:
    obj = {"query_id": "wolf-002", "answer": "Double Slam", "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam"]]}
    obj.update(changes)
    return json.dumps({k: v for k, v in obj.items() if v is not ...})


# (second line of the file, pointer expected in the message or "", words expected in the reason)
MALFORMED = {
    "garbage": ("this is not json", "", "invalid JSON at column 1"),
    "truncated": ('{"query_id": "wolf-002", "answer": "Double', "", "invalid JSON"),
    "array": ('["wolf-002", "Double Slam"]', "", "is not of type 'object'"),
    "string": ('"wolf-002"', "", "is not of type 'object'"),
    "no query id": (line(query_id=...), "", "'query_id' is a required property"),
    "no answer": (line(answer=...), "", "'answer' is a required property"),
    "no paths": (line(paths=...), "", "'paths' is a required property"),
    "answer not text": (line(answer=42), "/answer", "42 is not of type 'string'"),
    "paths not a list": (line(paths="wolf > wolf.bite"), "/paths", "is not of type 'array'"),
    "path not a list": (line(paths=["wolf"]), "/paths/0", "is not of type 'array'"),
    "entity not text": (line(paths=[["wolf", 7]]), "/paths/0/1", "7 is not of type 'string'"),
    "empty path": (line(paths=[[]]), "/paths/0", "should be non-empty"),
    "unknown field": (line(path=[["wolf"]]), "", "Additional properties are not allowed ('path'"),
    "empty query id": (line(query_id=""), "/query_id", "should be non-empty"),
    "duplicate query id": (GOOD_LINE, "/query_id", "duplicate query id 'wolf-001' (first on line 1)"),
    "unknown query id": (line(query_id="wolf-999"), "/query_id", "unknown query id 'wolf-999'"),
    "unknown entity": (line(paths=[["wolf", "wolf.charged-phase", "wolf.tail-spin"]]), "/paths/0/2",
                       "unknown entity id 'wolf.tail-spin'"),
    "root not an entity": (line(paths=[["zinogre", "wolf.bite"]]), "/paths/0/0",
                           "path does not start at an entity of the KG: unknown entity id 'zinogre'"),
    "hop not an edge": (line(paths=[["wolf", "wolf.double-slam"]]), "/paths/0/1",
                        "hop 'wolf' -> 'wolf.double-slam' is not an edge of the KG"),
    "hop against direction": (line(paths=[["wolf", "wolf.bite", "wolf.double-slam"]]), "/paths/0/2",
                              "(there is one from 'wolf.double-slam' to 'wolf.bite': paths follow edge direction)"),
    "topic unknown": (line(topic="zinogre"), "/topic", "unknown entity id 'zinogre'"),
    "topic not a monster": (line(topic="wolf.bite"), "/topic", "topic must be a monster"),
    "topic not text": (line(topic=["wolf"]), "/topic", "is not of type 'string'"),
    "caption of unknown entity": (line(captions={"wolf.tail-spin": "spins"}), "/captions/wolf.tail-spin",
                                  "unknown entity id 'wolf.tail-spin'"),
    "caption not text": (line(captions={"wolf.bite": 3}), "/captions/wolf.bite", "3 is not of type 'string'"),
    "captions not an object": (line(captions=["wolf.bite"]), "/captions", "is not of type 'object'"),
    "perception not text": (line(perception={"text": "x"}), "/perception", "is not of type 'string'"),
    "meta not an object": (line(meta="fast"), "/meta", "'fast' is not of type 'object'"),
    "NaN": ('{"query_id": "wolf-002", "answer": "x", "paths": [], "meta": {"t": NaN}}', "", "NaN is not valid JSON"),
    "duplicate key": ('{"query_id": "wolf-002", "answer": "x", "answer": "y", "paths": []}', "",
                      "duplicate key 'answer'"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_line_is_reported_with_line_and_reason(tiny_sources, tmp_path, capsys, name):
    bad, pointer, reason = MALFORMED[name]
    sub = tmp_path / "sub.jsonl"
    sub.write_text(GOOD_LINE + "\n" + bad + "\n", encoding="utf-8")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    err = capsys.readouterr().err
    assert f"{sub}:2{':' + pointer if pointer else ''}: " in err, err
    assert reason in err, err
    assert "Traceback" not in err
    assert f"{sub}:1" not in err           # the good line is not blamed


def test_non_utf8_line(tiny_sources, tmp_path, capsys):
    sub = tmp_path / "sub.jsonl"
    sub.write_bytes(GOOD_LINE.encode() + b"\n" + b'{"query_id": "wolf-002", "answer": "\xff"}\n')
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    assert f"{sub}:2: not UTF-8 text (invalid byte at column 37)" in capsys.readouterr().err


@pytest.mark.parametrize("content, reason", [(b"", "empty submission"), (b"\n  \n", "empty submission")])
def test_empty_submission(tiny_sources, tmp_path, capsys, content, reason):
    sub = tmp_path / "sub.jsonl"
    sub.write_bytes(content)
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    assert reason in capsys.readouterr().err


def test_missing_and_unreadable_files(tiny_sources, tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.jsonl"), "--dataset", str(tiny_sources)]) == 2
    assert "submission file not found" in capsys.readouterr().err
    assert main(["validate", str(tmp_path), "--dataset", str(tiny_sources)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_every_problem_in_one_pass_in_line_order(tiny_sources, tmp_path, capsys):
    lines = [GOOD_LINE, "nonsense", *["{}"] * 8, line(query_id="wolf-999", paths=[["wolf", "nowhere"]])]
    sub = tmp_path / "sub.jsonl"
    sub.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    err = capsys.readouterr().err
    located = re.findall(rf"{re.escape(str(sub))}:(\d+)", err)
    assert located == sorted(located, key=int)
    assert {"2", "3", "10", "11"} <= set(located)
    assert "unknown query id 'wolf-999'" in err and "unknown entity id 'nowhere'" in err
    assert "query 'wolf-999': " in err     # the query id is named next to the reason


def test_valid_submission_warns_about_missing_queries(tiny_sources, tmp_path, capsys):
    sub = write_submission(tmp_path / "sub.jsonl", [GOOD, json.loads(line(topic="wolf", captions={"wolf.bite": "bites"}))])
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 0
    out, err = capsys.readouterr()
    assert "valid: 2 prediction(s) for 6 benchmark queries" in out
    assert "4 of 6 benchmark queries have no prediction (wolf-003, wolf-004, wolf-005, wolf-006)" in err
    assert main(["validate", str(sub), "--dataset", str(tiny_sources), "--complete"]) == 2
    assert "4 benchmark queries have no prediction (--complete)" in capsys.readouterr().err


def test_loops_cross_monster_paths_and_blank_lines_are_valid(tiny_sources, tmp_path, capsys):
    loop = ["wolf", "wolf.back-slam", "wolf.double-slam", "wolf.back-slam", "wolf.double-slam"]
    cross = ["wolf", "dark-wolf", "wolf", "wolf.bite"]
    sub = tmp_path / "sub.jsonl"
    sub.write_text("\ufeff" + GOOD_LINE + "\n\n" + line(paths=[loop, cross]) + "\r\n", encoding="utf-8")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 0, capsys.readouterr().err


def test_run_metadata_side_file(tiny_sources, tmp_path, capsys):
    sub = write_submission(tmp_path / "run.jsonl", [GOOD], {"model": "offline", "setting": "know"})
    assert meta_path(sub) == tmp_path / "run.meta.json"
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 0
    assert "run metadata from" in capsys.readouterr().out
    meta_path(sub).write_text('{"model": 3}', encoding="utf-8")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    assert "run.meta.json:/model: run metadata: 3 is not of type 'string'" in capsys.readouterr().err
    meta_path(sub).write_text("{oops", encoding="utf-8")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    assert "run.meta.json: invalid JSON in the run metadata at column 2" in capsys.readouterr().err


def test_in_memory_predictions_use_the_same_checks(tiny_sources):
    checker = SubmissionChecker(load_graph(tiny_sources), load_queries(tiny_sources))
    checked = checker.check_records({"wolf-001": {"answer": "x", "paths": [["wolf", "wolf.spark"]]}})
    assert [str(p) for p in checked.problems] == [
        "predictions['wolf-001']:/paths/0/1: query 'wolf-001': hop 'wolf' -> 'wolf.spark' is not an edge of the KG"]
    with pytest.raises(InvalidSubmission, match=r"1 problem\(s\) in the submission"):
        checked.raise_if_invalid()
    ok = checker.check_records([GOOD])
    assert ok.ok and list(ok.predictions) == ["wolf-001"] and len(ok.missing) == 5
    assert ok.predictions["wolf-001"].predicted_topic == "wolf"


def test_fingerprint_mismatch_is_a_warning(tiny_sources, tmp_path):
    sub = write_submission(tmp_path / "run.jsonl", [GOOD], {"dataset_fingerprint": "a" * 64})
    checker = SubmissionChecker(load_graph(tiny_sources), load_queries(tiny_sources), fingerprint="b" * 64)
    checked = checker.check_file(sub)
    assert checked.ok
    assert any("the run used dataset build aaaaaaaaaaaa" in w for w in checked.warnings)
    same = SubmissionChecker(checker.graph, list(checker.queries.values()), fingerprint="a" * 64).check_file(sub)
    assert not any("dataset build" in w for w in same.warnings)


def test_validate_on_a_built_dataset(tiny_dataset, tmp_path, capsys):
    sub = write_submission(tmp_path / "sub.jsonl", [GOOD, json.loads(line(paths=[["wolf", "wolf.double-slam"]]))])
    assert main(["validate", str(sub), "--dataset", str(tiny_dataset)]) == 2
    assert "hop 'wolf' -> 'wolf.double-slam' is not an edge of the KG" in capsys.readouterr().err


def test_validate_help_describes_the_checks(capsys):
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    out = capsys.readouterr().out
    assert "every problem in one pass" in out and "--dataset DIR" in out


@pytest.mark.parametrize("graph_of", ["dataset", "sources"])
def test_lines_taken_without_problems_are_exactly_those_the_kg_checks_pass(tiny_dataset, graph_of):
    """The checker's quick test of a schema-valid line (``_kg_clean``) agrees with the full KG checks,
    on a loaded graph (its entity names read from columns) and on the graph of the sources."""
    graph = load_graph(tiny_dataset if graph_of == "dataset" else tiny_dataset.parent / "src")
    checker = SubmissionChecker(graph, load_queries(tiny_dataset))
    walk = ["wolf", "wolf.charged-phase", "wolf.double-slam"]
    variants = [
        {}, {"paths": []}, {"paths": [walk, walk[:2]]}, {"paths": [list(reversed(walk))]},
        {"paths": [["wolf", "wolf.nope"]]}, {"paths": [["nope"]]}, {"paths": [["wolf", "wolf.double-slam"]]},
        {"topic": "wolf"}, {"topic": "wolf.double-slam"}, {"topic": "nope"},
        {"captions": {"wolf.double-slam": "It slams."}}, {"captions": {"nope": "x"}}, {"captions": {}},
    ]
    seen = set()
    for changes in variants:
        obj = {"query_id": "wolf-002", "answer": "Double Slam", "paths": [walk], **changes}
        clean = checker._kg_clean(obj)
        assert clean == (not checker._kg_problems(obj, "sub.jsonl:1")), obj
        seen.add(clean)
    assert seen == {True, False}
