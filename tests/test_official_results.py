"""Converting the authors' prediction files into submissions that the evaluator accepts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mhmmkg.cli import main

from official_release import write_release

PREDICTIONS = {
    "Zinogre_Double Slam": {
        "Answer": "Back Slam",
        "Route": [["Zinogre", "Zinogre Charged Phase", "Zinogre Double Slam", "Zinogre Back Slam"],
                  ["Zinogre", "Zinogre Bite"]],
        "Description": [{"Zinogre Double Slam": "It rears up and slams.", "Zinogre Back Slam": ""}, {}],
    },
    "Zinogre_Subspecies": {
        "Answer": "Red sparks",
        "Route": [["Zinogre", "Stygian Zinogre", "Stygian Zinogre Charged Phase", "Stygian Zinogre Double Slam"]],
        "Description": "",
    },
    "Stygian Zinogre_Stop": {"Answer": "Flash Pod", "Route": [["Stygian Zinogre", "Stygian Zinogre Flash Pod"],
                                                              ["Stygian Zinogre", "Pierce Pod"]]},
    "Zinogre_Pure Text1": {"Answer": "Ice", "Route": "", "Description": ""},
    "Zinogre_Count": {"Answer": "3", "Route": [["Zinogre", "Zinogre Tail Whip"]]},
}


@pytest.fixture(scope="module")
def official_src(tmp_path_factory) -> Path:
    root = write_release(tmp_path_factory.mktemp("rel") / "MH-MMKG", with_media=False)
    out = root.parent / "src"
    assert main(["import-official", str(root), "--out", str(out), "--quiet"]) == 0
    return out


def _lines(path: Path) -> dict[str, dict]:
    return {line["query_id"]: line for line in map(json.loads, path.read_text().splitlines())}


def test_routes_become_entity_id_paths_and_the_submission_validates(official_src, tmp_path, capsys):
    results = tmp_path / "gpt-x_self Search.json"
    results.write_text(json.dumps(PREDICTIONS))
    sub = tmp_path / "sub.jsonl"
    assert main(["import-official-results", str(results), "--kg", str(official_src), "--out", str(sub)]) == 0
    captured = capsys.readouterr()
    assert "'Zinogre Tail Whip'" in captured.err  # not in the KG: kept as a guessed id
    lines = _lines(sub)
    first = lines["Zinogre_Double-Slam"]
    assert first["paths"] == [["zinogre", "zinogre.charged-phase", "zinogre.double-slam", "zinogre.back-slam"],
                              ["zinogre", "zinogre.bite"]]
    assert first["topic"] == "zinogre" and first["answer"] == "Back Slam"
    assert first["captions"] == {"zinogre.double-slam": "It rears up and slams."}
    assert first["meta"] == {"official_file": "Zinogre_Double Slam"}
    assert lines["Zinogre_Subspecies"]["paths"][0][1:] == ["stygian-zinogre", "stygian-zinogre.charged-phase",
                                                            "stygian-zinogre.double-slam"]
    assert lines["Stygian-Zinogre_Stop"]["paths"] == [["stygian-zinogre", "prop.flash-pod"],
                                                      ["stygian-zinogre", "prop.pierce-pod"]]
    assert lines["Zinogre_Pure-Text1"]["paths"] == [] and "topic" not in lines["Zinogre_Pure-Text1"]
    assert lines["Zinogre_Count"]["paths"] == [["zinogre", "zinogre.tail-whip"]]
    meta = json.loads((tmp_path / "sub.meta.json").read_text())
    assert (meta["setting"], meta["model"]) == ("perceptive", "gpt-x")
    lines["Zinogre_Count"]["paths"] = []  # the guessed entity is unknown to the validator, as it should be
    sub.write_text("".join(json.dumps(line) + "\n" for line in lines.values()))
    assert main(["validate", str(sub), "--dataset", str(official_src)]) == 0


def test_plain_answers_of_no_retrieval_settings(tmp_path):
    results = tmp_path / "run.json"
    results.write_text(json.dumps({"Zinogre_Double Slam": "It will flip onto its back.", "Zinogre_360": "Spin"}))
    sub = tmp_path / "out" / "direct.jsonl"
    assert main(["import-official-results", str(results), "--setting", "Direct", "--model", "m", "--out", str(sub)]) == 0
    lines = _lines(sub)
    assert lines["Zinogre_Double-Slam"] == {"query_id": "Zinogre_Double-Slam", "answer": "It will flip onto its back.",
                                            "paths": [], "meta": {"official_file": "Zinogre_Double Slam"}}
    assert json.loads((tmp_path / "out" / "direct.meta.json").read_text())["setting"] == "vanilla_plus"


def test_without_a_kg_ids_are_worked_out_from_the_keys(tmp_path):
    results = tmp_path / "run.json"
    results.write_text(json.dumps({"A": {"Answer": "x", "Route": [
        ["Stygian Zinogre", "Stygian Zinogre Charged Phase", "Fire Element", "None Element Weapon"]]}}))
    sub = tmp_path / "sub.jsonl"
    assert main(["import-official-results", str(results), "--setting", "know", "--out", str(sub)]) == 0
    assert _lines(sub)["A"]["paths"] == [["stygian-zinogre", "stygian-zinogre.charged-phase", "element.fire",
                                          "weapon.non-elemental"]]


def test_a_repeated_file_in_the_question_list_gets_the_prediction_of_its_last_row(tmp_path, tiny_sources):
    from conftest import write_json

    write_json(tiny_sources / "queries" / "dup.json", {"queries": [
        {"id": "Wolf_Slam", "subtask": 2, "monster": "wolf", "question": "q", "answer": "a", "paths": [["wolf"]]},
        {"id": "Wolf_Slam-2", "subtask": 5, "monster": "wolf", "question": "q", "answer": "a", "paths": [["wolf"]]},
    ]})
    results = tmp_path / "run.json"
    results.write_text(json.dumps({"Wolf_Slam": "a"}))
    sub = tmp_path / "sub.jsonl"
    assert main(["import-official-results", str(results), "--setting", "vanilla", "--kg", str(tiny_sources),
                 "--out", str(sub)]) == 0
    assert list(_lines(sub)) == ["Wolf_Slam-2"]


@pytest.mark.parametrize("content, expected", [
    ("[1, 2]", "expected a JSON object keyed by the question list's File"),
    ("{\"a\": ", "invalid JSON at line 1"),
    (json.dumps({"A": {"Answer": 3, "Route": []}}), "/A: 'Answer' must be a string"),
    (json.dumps({"A": {"Answer": "x", "Route": [["ok"], []]}}), "/A: 'Route' must be a list of non-empty lists"),
    (json.dumps({"A": 5}), "/A: expected an answer string or an object"),
])
def test_malformed_prediction_files_end_in_exit_2_with_place_and_reason(tmp_path, capsys, content, expected):
    results = tmp_path / "run.json"
    results.write_text(content)
    sub = tmp_path / "sub.jsonl"
    assert main(["import-official-results", str(results), "--setting", "know", "--out", str(sub)]) == 2
    assert expected in capsys.readouterr().err
    assert not sub.exists()


def test_the_setting_is_required_when_the_file_name_does_not_tell(tmp_path, capsys):
    results = tmp_path / "run.json"
    results.write_text("{}")
    assert main(["import-official-results", str(results), "--out", str(tmp_path / "s.jsonl")]) == 2
    assert "give --setting" in capsys.readouterr().err
    assert main(["import-official-results", str(results), "--setting", "magic", "--out", str(tmp_path / "s.jsonl")]) == 2
    assert "unknown setting 'magic'" in capsys.readouterr().err


@pytest.mark.parametrize("given, expected", [
    ("perceptive", "perceptive"), ("vanilla-plus", "vanilla_plus"), ("Online Vision-needed", "unaided_online"),
    ("self search", "perceptive"), ("Direct Vision-needed", "vanilla"), ("Offline", "unaided_offline"),
])
def test_setting_names(given, expected):
    from mhmmkg.eval.import_results import setting_name

    assert setting_name(given) == expected
