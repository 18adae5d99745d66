"""The agreement set (eval/agreement/labels.jsonl): replies with a person's verdict, shipped as
package data of mhmmkg.eval, which the judge-agreement measurement reads. The checks run on the
shipped file and, to show that each can fail, on copies broken one way at a time."""
from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

import mhmmkg.eval

ROOT = Path(__file__).resolve().parent.parent
AGREEMENT = Path(mhmmkg.eval.__file__).resolve().parent / "agreement"
LABELS = AGREEMENT / "labels.jsonl"
GUIDE = AGREEMENT / "README.md"

KINDS = {
    "run:offline-know", "run:offline-perceptive", "run:bm25",
    "hand:sentence", "hand:alias", "hand:paraphrase", "hand:explained", "hand:hedge", "hand:list",
    "hand:wrong-overlap", "hand:wrong", "hand:idk", "hand:yesno-flip", "hand:yesno-bare",
    "hand:yesno-wrong-reason", "hand:partial",
}
MIN_PER_SUBTASK = {1: 24, 2: 30, 3: 30, 4: 30, 5: 30, 6: 13}
MIN_TOTAL, MIN_RUNS, MIN_HAND = 330, 120, 200
RIGHT_SHARE = (0.45, 0.60)
FIELDS = {"query_id", "reply", "verdict", "kind", "note"}


def load_subtasks(queries_dir: Path) -> dict[str, int]:
    return {query["id"]: query["subtask"]
            for path in sorted(queries_dir.glob("*.json"))
            for query in json.loads(path.read_text(encoding="utf-8"))["queries"]}


def read_rows(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def shape_problems(rows: list[dict], subtasks: dict[str, int]) -> list[str]:
    """Problems of single rows and of the file's order and uniqueness."""
    problems = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not {"query_id", "reply", "verdict", "kind"} <= row.keys():
            problems.append(f"line {n}: missing field")
            continue
        if set(row) - FIELDS:
            problems.append(f"line {n}: unknown field {sorted(set(row) - FIELDS)}")
        if row["query_id"] not in subtasks:
            problems.append(f"line {n}: unknown query {row['query_id']!r}")
        if not isinstance(row["reply"], str) or not row["reply"].strip():
            problems.append(f"line {n}: empty reply")
        if not isinstance(row["verdict"], bool):
            problems.append(f"line {n}: verdict is not a boolean")
        if row["kind"] not in KINDS:
            problems.append(f"line {n}: unknown kind {row['kind']!r}")
        if "note" in row and (not isinstance(row["note"], str) or not row["note"].strip()):
            problems.append(f"line {n}: empty note")
    if problems:
        return problems
    pairs = Counter((row["query_id"], row["reply"]) for row in rows)
    problems += [f"duplicate reply {pair}" for pair, count in pairs.items() if count > 1]
    keys = [(row["query_id"], row["kind"]) for row in rows]
    if keys != sorted(keys):
        problems.append("not sorted by query_id, then kind")
    return problems


def coverage_problems(rows: list[dict], subtasks: dict[str, int]) -> list[str]:
    """Problems of the set as a whole: size, sources, sub-tasks, monsters, balance."""
    problems = []
    if len(rows) < MIN_TOTAL:
        problems.append(f"{len(rows)} replies, fewer than {MIN_TOTAL}")
    kinds = Counter(row["kind"].split(":")[0] for row in rows)
    if kinds["run"] < MIN_RUNS:
        problems.append(f"{kinds['run']} run replies, fewer than {MIN_RUNS}")
    if kinds["hand"] < MIN_HAND:
        problems.append(f"{kinds['hand']} hand-written replies, fewer than {MIN_HAND}")
    per_subtask = Counter(subtasks[row["query_id"]] for row in rows)
    for subtask, minimum in MIN_PER_SUBTASK.items():
        if per_subtask[subtask] < minimum:
            problems.append(f"sub-task {subtask}: {per_subtask[subtask]} replies, fewer than {minimum}")
    monsters = {query_id.rsplit("-", 1)[0] for query_id in subtasks}
    missing = monsters - {row["query_id"].rsplit("-", 1)[0] for row in rows}
    if missing:
        problems.append(f"monsters without a reply: {sorted(missing)}")
    share = sum(row["verdict"] for row in rows) / len(rows) if rows else 0.0
    if not RIGHT_SHARE[0] <= share <= RIGHT_SHARE[1]:
        problems.append(f"share right {share:.1%} outside {RIGHT_SHARE[0]:.0%}..{RIGHT_SHARE[1]:.0%}")
    for kind in KINDS - {row["kind"] for row in rows}:
        problems.append(f"no reply of kind {kind}")
    return problems


@pytest.fixture(scope="module")
def subtasks() -> dict[str, int]:
    return load_subtasks(ROOT / "data" / "queries")


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return read_rows(LABELS.read_text(encoding="utf-8"))


def test_every_row_is_well_formed_unique_and_sorted(rows, subtasks):
    assert shape_problems(rows, subtasks) == []


def test_the_set_covers_every_subtask_and_monster_with_a_balanced_verdict(rows, subtasks):
    assert coverage_problems(rows, subtasks) == []


def test_every_kind_is_documented_in_the_guide():
    documented = set(re.findall(r"^\| `((?:run|hand):[a-z0-9-]+)` \|", GUIDE.read_text(encoding="utf-8"), re.M))
    assert documented >= KINDS
    assert documented - KINDS == set(), "the guide documents a kind the test does not know"


def test_labels_and_guide_are_declared_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["package-dir"]["mhmmkg.eval"] == "eval"
    assert "mhmmkg.eval.agreement" in config["tool"]["setuptools"]["packages"]
    declared = config["tool"]["setuptools"]["package-data"]["mhmmkg.eval.agreement"]
    assert "labels.jsonl" in declared and "README.md" in declared


def _break(rows: list[dict], how: str) -> list[dict]:
    broken = [dict(row) for row in rows]
    first = broken[0]
    if how == "unknown query":
        first["query_id"] = "zinogre-999"
    elif how == "string verdict":
        first["verdict"] = "true"
    elif how == "unknown kind":
        first["kind"] = "hand:guess"
    elif how == "duplicate":
        broken.insert(1, dict(first, kind=first["kind"]))
    elif how == "unsorted":
        broken.reverse()
    elif how == "empty reply":
        first["reply"] = "  "
    return broken


@pytest.mark.parametrize("how", ["unknown query", "string verdict", "unknown kind", "duplicate", "unsorted",
                                 "empty reply"])
def test_shape_check_catches_a_broken_copy(rows, subtasks, how):
    assert shape_problems(_break(rows, how), subtasks)


def test_coverage_check_catches_missing_subtasks_and_an_unbalanced_set(rows, subtasks):
    without_vi = [row for row in rows if subtasks[row["query_id"]] != 6]
    assert any("sub-task 6" in problem for problem in coverage_problems(without_vi, subtasks))
    only_right = [row for row in rows if row["verdict"]]
    problems = coverage_problems(only_right, subtasks)
    assert any("share right" in problem for problem in problems)
    no_runs = [row for row in rows if not row["kind"].startswith("run:")]
    assert any("run replies" in problem for problem in coverage_problems(no_runs, subtasks))
