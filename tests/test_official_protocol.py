"""The authors' result format both ways, and `evaluate --official` scoring as their evaluation.py does."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from conftest import OFFICIAL_DIR
from official_release import QUESTIONS, write_release

from mhmmkg.cli import main
from mhmmkg.eval import Evaluator
from mhmmkg.eval.metrics import path_score, path_score_any

#: The release's questions plus a second row with the first row's File, as in the authors' list.
REPEATED = ("Zinogre_Double Slam", None, "Double Slam Start", "Which phase is{} in?", "Zinogre", None,
            "It rears up on its hind legs.", "Zinogre>Charged Phase", "Charged Phase", 3)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, Path]:
    """(the imported sources folder, the question list) of a tiny release with a repeated File."""
    root = write_release(tmp_path_factory.mktemp("rel") / "MH-MMKG", questions=[*QUESTIONS, REPEATED],
                         with_media=False)
    out = root.parent / "src"
    assert main(["import-official", str(root), "--out", str(out), "--quiet"]) == 0
    return out, root / "questions_mh" / "question_list.xlsx"


def lines(path: Path) -> dict[str, dict]:
    return {line["query_id"]: line for line in map(json.loads, path.read_text().splitlines())}


def scored(line: dict) -> dict:
    return {k: v for k, v in line.items() if k in ("query_id", "answer", "paths", "topic", "captions")}


def write_submission(path: Path, records: list[dict], setting: str = "perceptive") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    path.with_suffix(".meta.json").write_text(json.dumps({"setting": setting, "model": "m"}))
    return path


def test_a_run_exported_in_the_authors_format_imports_back_to_the_same_submission(release, tmp_path, capsys):
    src, question_list = release
    run = tmp_path / "run"
    assert main(["run", "--quiet", "--setting", "perceptive", "--dataset", str(src), "--out", str(run)]) == 0
    submission = run / "submission.jsonl"
    result = tmp_path / "results" / "m_self Search.json"
    assert main(["export-official-results", str(submission), "--dataset", str(src), "--question-list",
                 str(question_list), "--out", str(result)]) == 0
    exported = json.loads(result.read_text())
    assert set(exported) == {row[0] for row in QUESTIONS}         # keyed by File; the repeated one once
    for value in exported.values():
        assert set(value) == {"Answer", "Route", "Description"}
        assert len(value["Description"]) == len(value["Route"])
        assert all(route[0] in ("Zinogre", "Stygian Zinogre") for route in value["Route"])
    keys = {key for value in exported.values() for route in value["Route"] for key in route}
    assert keys <= {"Zinogre", "Zinogre Charged Phase", "Zinogre Double Slam", "Zinogre Back Slam", "Zinogre Bite",
                    "Zinogre 360", "Zinogre Spark Trail", "Zinogre Flash Pod", "Ice Element", "Thunder Element",
                    "Fire Element Weapon", "Stygian Zinogre", "Stygian Zinogre Charged Phase",
                    "Stygian Zinogre Double Slam", "Stygian Zinogre Flash Pod", "Pierce Pod", "Dragon Element"}
    assert "Zinogre Charged Phase" in keys

    back = tmp_path / "back.jsonl"
    assert main(["import-official-results", str(result), "--kg", str(src), "--out", str(back)]) == 0
    original, returned = lines(submission), lines(back)
    # one prediction per File: the repeated File keeps its last row's, as the authors' code does
    assert set(original) - set(returned) == {"Zinogre_Double-Slam"}
    assert {qid: scored(line) for qid, line in returned.items()} == \
        {qid: scored(original[qid]) for qid in returned}


def test_captions_travel_as_descriptions_and_plain_answers_for_settings_without_search(release, tmp_path):
    src, _ = release
    path = ["zinogre", "zinogre.charged-phase", "zinogre.double-slam"]
    sub = write_submission(tmp_path / "sub.jsonl", [
        {"query_id": "Zinogre_Subspecies", "answer": "Red", "topic": "zinogre",
         "paths": [path, ["zinogre", "stygian-zinogre", "stygian-zinogre.charged-phase"]],
         "captions": {"zinogre.double-slam": "Slams twice.", "stygian-zinogre.charged-phase": "Glows red."}},
    ], setting="unaided_online")
    result = tmp_path / "online.json"
    assert main(["export-official-results", str(sub), "--dataset", str(src), "--out", str(result)]) == 0
    value = json.loads(result.read_text())["Zinogre_Subspecies"]
    assert value["Route"] == [["Zinogre", "Zinogre Charged Phase", "Zinogre Double Slam"],
                              ["Zinogre", "Stygian Zinogre", "Stygian Zinogre Charged Phase"]]
    assert value["Description"] == [{"Zinogre Double Slam": "Slams twice."},
                                    {"Stygian Zinogre Charged Phase": "Glows red."}]
    back = tmp_path / "back.jsonl"
    assert main(["import-official-results", str(result), "--setting", "unaided_online", "--kg", str(src),
                 "--out", str(back)]) == 0
    assert scored(lines(back)["Zinogre_Subspecies"]) == scored(lines(sub)["Zinogre_Subspecies"])

    plain = write_submission(tmp_path / "plain.jsonl", [{"query_id": "Zinogre_Count", "answer": "2",
                                                         "paths": [path]}], setting="know")
    assert main(["export-official-results", str(plain), "--dataset", str(src), "--out", str(tmp_path / "k.json")]) == 0
    assert json.loads((tmp_path / "k.json").read_text()) == {"Zinogre_Count": "2"}


def test_export_refuses_to_write_over_its_input_and_needs_a_setting(release, tmp_path, capsys):
    src, _ = release
    sub = tmp_path / "sub.jsonl"
    sub.write_text(json.dumps({"query_id": "Zinogre_Count", "answer": "2", "paths": []}) + "\n")
    assert main(["export-official-results", str(sub), "--dataset", str(src), "--out", str(sub)]) == 2
    assert "would overwrite the submission" in capsys.readouterr().err
    assert main(["export-official-results", str(sub), "--dataset", str(src), "--out", str(tmp_path / "r.json")]) == 2
    assert "give --setting" in capsys.readouterr().err and not (tmp_path / "r.json").exists()


def test_evaluate_official_scores_as_the_authors_script(release, tmp_path, capsys):
    src, _ = release
    truth = ["zinogre", "zinogre.charged-phase", "zinogre.double-slam", "zinogre.back-slam"]
    records = [
        # any-match: the right path twice, a path through a name the KG lacks, and a non-walk
        {"query_id": "Zinogre_Double-Slam-2", "answer": "Back Slam",
         "paths": [truth, truth, ["zinogre", "zinogre.tail-whip"], ["zinogre", "zinogre.back-slam", "zinogre.bite"]]},
        {"query_id": "Zinogre_Count", "answer": "2", "paths": [["zinogre", "zinogre.charged-phase",
                                                                "zinogre.double-slam"]]},
    ]
    sub = write_submission(tmp_path / "sub.jsonl", records)
    assert main(["evaluate", str(sub), "--dataset", str(src), "--bootstrap", "0"]) == 2
    err = capsys.readouterr().err
    assert "unknown entity id 'zinogre.tail-whip'" in err and "--official" in err

    result = Evaluator(src, official=True, resamples=0).eval(sub)
    assert (result["protocol"], result["missing"]) == ("authors", "skip")
    # the repeated File is scored once, against its first row, with its last row's prediction
    by_id = {q["query_id"]: q for q in result["queries"]}
    assert "Zinogre_Double-Slam-2" not in by_id
    first = by_id["Zinogre_Double-Slam"]
    assert first["correct"] and (first["matched"], first["n_predicted"]) == (1, 4)
    assert (first["precision"], first["recall"]) == (0.25, 1.0)
    assert result["n"] == 2 == result["n_predicted"]          # three queries without a prediction: skipped
    assert any("3 of 5 benchmark queries have no prediction" in w for w in result["warnings"])
    assert result["acc"] == 1.0
    assert any("match nothing" in w for w in result["warnings"])

    assert main(["evaluate", str(sub), "--dataset", str(src), "--official", "--bootstrap", "0"]) == 0
    assert "the authors' protocol" in capsys.readouterr().out


def test_evaluate_official_does_not_read_the_paths_of_settings_without_search(release, tmp_path):
    src, _ = release
    sub = write_submission(tmp_path / "know.jsonl", [{"query_id": "Zinogre_Count", "answer": "2", "paths": [
        ["zinogre", "zinogre.charged-phase", "zinogre.double-slam"]]}], setting="know")
    official = Evaluator(src, official=True, resamples=0).eval(sub)
    assert (official["acc"], official["precision"], official["recall"]) == (1.0, 0.0, 0.0)
    ours = Evaluator(src, missing="skip", resamples=0).eval(sub)
    assert (ours["precision"], ours["recall"]) == (1.0, 1.0)


def test_imported_results_naming_unknown_entities_are_scored_not_refused(release, tmp_path, capsys):
    src, _ = release
    results = tmp_path / "m_self Search.json"
    results.write_text(json.dumps({"Zinogre_Count": {"Answer": "2", "Route": [
        ["Zinogre", "Zinogre Charged Phase", "Zinogre Double Slam"], ["Zinogre", "Zinogre Tail Whip"]]}}))
    sub = tmp_path / "sub.jsonl"
    assert main(["import-official-results", str(results), "--kg", str(src), "--out", str(sub)]) == 0
    result = Evaluator(src, official=True, resamples=0).eval(sub)
    assert (result["n"], result["precision"], result["recall"]) == (1, 0.5, 1.0)


@pytest.mark.parametrize("truth, predicted, matched", [
    ([("a", "b"), ("a", "b")], [("a", "b")], 2),        # a predicted path may match several
    ([("a", "b"), ("a", "c")], [("a", "b"), ("a", "b")], 1),
    ([("a", "b")], [], 0),
    ([("a", "b")], [("a",), ("x", "b")], 0),
])
def test_any_match(truth, predicted, matched):
    score = path_score_any(truth, predicted)
    assert (score.matched, score.n_truth, score.n_predicted) == (matched, len(truth), len(predicted))
    assert path_score(truth, predicted).matched <= matched


def _authors_route_similarity():
    """The authors' ``route_similarity_compute`` compiled alone from their evaluation.py's syntax tree."""
    source = OFFICIAL_DIR / "code" / "evaluation.py"
    if not source.is_file():
        pytest.skip(f"{source} not present")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "route_similarity_compute"]
    namespace: dict = {}
    exec(compile(ast.Module(body=found, type_ignores=[]), str(source), "exec"), namespace)
    return namespace["route_similarity_compute"]


def test_any_match_equals_the_authors_route_similarity():
    authors = _authors_route_similarity()
    paths = [["Z"], ["Z", "Z A"], ["Z", "Z A", "Z B"], ["Z", "Z B"], ["Z", "Ice Element"]]
    cases = [(t, p) for t in ([paths[1]], [paths[1], paths[2]], [paths[2], paths[2]], paths[:4])
             for p in ([], [paths[1]], [paths[1], paths[1]], [paths[3], paths[4]], paths, [paths[2], ["Z", "Q"]])]
    for truth, predicted in cases:
        score = path_score_any(truth, predicted)
        _, recall, precision = authors(truth, predicted)
        assert (score.recall, score.precision) == (recall, precision), (truth, predicted)
