"""How well a judge agrees with people: a labelled set of replies, and agreement, kappa, confusion.

A label file is JSON Lines, one reply with a person's verdict per line::

    {"query_id": "zinogre-002", "reply": "It slams down twice (Double Slam).", "verdict": true,
     "kind": "hand:sentence", "note": "optional"}

``kind`` says where the reply comes from (``run:<name>`` for a real run, ``hand:<sort>`` for a
hand-written one); ``note`` is free. The set shipped with the package is
``mhmmkg/eval/agreement/labels.jsonl`` (:func:`default_labels`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mhmmkg.errors import InvalidInput, Problem, UserError
from mhmmkg.files.jsontext import JSONTextError, loads_strict, read_text_file
from mhmmkg.kg.model import ROMAN, Query

from ..metrics import cohens_kappa

LABEL_FIELDS = {"query_id": str, "reply": str, "verdict": bool, "kind": str}
OPTIONAL_FIELDS = {"note": str}


@dataclass(frozen=True)
class Label:
    line: int
    query_id: str
    reply: str
    verdict: bool
    kind: str
    note: str = ""


def default_labels() -> Path:
    """The labelled agreement set shipped with the package."""
    return Path(str(resources.files("mhmmkg.eval").joinpath("agreement", "labels.jsonl")))


def read_labels(path: str | Path, query_ids: set[str]) -> list[Label]:
    """Every label of a file; every problem (line, field, reason) reported at once."""
    path = Path(path)
    text = read_text_file(path, "label file")
    labels, problems = [], []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            obj = loads_strict(line, one_line=True)
        except JSONTextError as exc:
            problems.append(Problem(str(path), where, exc.reason))
            continue
        reason = _label_problem(obj, query_ids)
        if reason:
            problems.append(Problem(str(path), where, reason))
            continue
        labels.append(Label(n, obj["query_id"], obj["reply"], obj["verdict"], obj["kind"], obj.get("note", "")))
    if problems:
        raise InvalidInput(problems, "label file")
    if not labels:
        raise UserError(f"{path}: no labels in the file")
    return labels


def _label_problem(obj: Any, query_ids: set[str]) -> str | None:
    if not isinstance(obj, dict):
        return "expected a JSON object"
    for field, kind in LABEL_FIELDS.items():
        if not isinstance(obj.get(field), kind):
            return f"{field}: expected a {'boolean' if kind is bool else 'string'}, got {obj.get(field)!r}"
    unknown = set(obj) - set(LABEL_FIELDS) - set(OPTIONAL_FIELDS)
    if unknown:
        return f"unknown field(s): {', '.join(sorted(unknown))}"
    if "note" in obj and not isinstance(obj["note"], str):
        return "note: expected a string"
    if obj["query_id"] not in query_ids:
        return f"query_id: {obj['query_id']!r} is not a query of the dataset"
    return None


def confusion(judged: Sequence[bool], person: Sequence[bool]) -> dict[str, int]:
    """Counts of (judge, person) verdict pairs: ``yes_yes`` = both yes, ``yes_no`` = judge yes, person no, ..."""
    pairs = list(zip(judged, person))
    return {f"{j}_{p}": sum((a, b) == (j == "yes", p == "yes") for a, b in pairs)
            for j in ("yes", "no") for p in ("yes", "no")}


def agreement_figures(judged: Sequence[bool], person: Sequence[bool]) -> dict[str, Any]:
    n = len(person)
    kappa = cohens_kappa(judged, person)
    return {"n": n, "agreement": sum(a == b for a, b in zip(judged, person)) / n if n else None,
            "kappa": kappa, "confusion": confusion(judged, person)}


def _grouped(labels: Sequence[Label], judged: Sequence[bool], key: Callable[[Label], str],
             order: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(key(label), []).append(i)
    names = [g for g in order if g in groups] if order else sorted(groups)
    return {g: agreement_figures([judged[i] for i in groups[g]], [labels[i].verdict for i in groups[g]])
            for g in names}


def judge_agreement(labels: Sequence[Label], verdicts: Sequence[Any], queries: dict[str, Query]) -> dict[str, Any]:
    """Agreement of one judge's verdicts (``Verdict`` objects, one per label) with the people's.

    An unreadable LLM verdict (None) counts as the judge saying no, as in the evaluator."""
    judged = [v.accepted is True for v in verdicts]
    person = [label.verdict for label in labels]
    return {
        **agreement_figures(judged, person),
        "unparseable": sum(v.accepted is None for v in verdicts),
        "by_subtask": _grouped(labels, judged, lambda label: queries[label.query_id].roman, list(ROMAN.values())),
        "by_kind": _grouped(labels, judged, lambda label: label.kind),
        "by_key": _grouped(labels, judged, lambda label: "with key" if queries[label.query_id].key else "without key",
                           ["with key", "without key"]),
        "disagreements": [{"query_id": label.query_id, "reply": label.reply, "person": label.verdict,
                           "judge": v.accepted, "rule": v.rule, "kind": label.kind, "line": label.line}
                          for label, v, j in zip(labels, verdicts, judged) if j != label.verdict],
    }
