"""The authors' question list as benchmark queries in our format.

A row becomes a query: ``File`` gives the id (``official_query_id``), ``Type`` 0..5 the sub-task
1..6, the ``{}`` of ``Question`` and ``Extra Information`` becomes ``{monster}`` (the text is
otherwise kept as written, so ``render_question(style="official")`` rebuilds the authors' exact
string; the open style puts spacing right), ``Image`` and
``Video`` under ``questions_mh/<File>/`` become the query media (a folder of frames becomes
chosen keyframes; "Pure Text" rows have none), and each ``Search Route`` is resolved to entity
ids in a KG and must be a walk in it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mhmmkg.errors import Problem
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.kg.model import MONSTER_PLACEHOLDER
from ..protocol import official_query_id, repeated_id

from .workbooks import cell_text
from .media import MediaPlan, OutsideRelease, contained
from .routes import Unresolved, resolve_route, route_syntax_problem, split_routes, walk_problem

TEXT_ONLY_MARKER = "Pure Text"
QUERY_MEDIA_DIR = "media/questions"


def convert_template(text: str | None) -> str | None:
    """An official template with ``{}`` -> ours with ``{monster}``, verbatim otherwise (None when blank).

    The authors fill ``{}`` with a space and the name ("that{} is" -> "that Zinogre is"), which
    ``mhmmkg.render`` reproduces in both styles."""
    if text is None or not text.strip():
        return None
    return text.replace("{}", MONSTER_PLACEHOLDER)


def is_text_only(file: str) -> bool:
    return TEXT_ONLY_MARKER in file


@dataclass
class QuestionRow:
    """One row of the question list, checked and converted, its routes not yet resolved."""

    row: int
    file: str
    monster_name: str
    doc: dict
    routes: list[list[str]]
    media: MediaPlan = field(default_factory=MediaPlan)


def subtask_of(value) -> int | None:
    """Official ``Type`` (0..5, as Excel stored it) -> our sub-task 1..6, or None when invalid."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value + 1 if isinstance(value, int) and 0 <= value <= 5 else None


def read_question_rows(rows: list[dict], xlsx: Path, media_root: Path | None,
                       monsters: dict[str, str]) -> tuple[list[QuestionRow], list[Problem], list[str]]:
    """Check and convert question-list rows; ``monsters`` maps normalised monster names to ids.

    Returns the rows, the problems (each with file, row and reason) and warnings (missing media).
    """
    out, problems, warnings = [], [], []
    seen: dict[str, int] = {}
    if media_root is not None and not any((media_root / str(cell_text(r["File"]))).is_dir() for r in rows):
        warnings.append(f"{media_root}: no per-query media folders next to the question list; "
                        "queries are imported with their text and perception only")
        media_root = None
    for record in rows:
        n = record["row"]

        def problem(reason: str, n=n) -> None:
            problems.append(Problem(str(xlsx), f"row {n}", reason))

        file = cell_text(record["File"])
        if file is None:
            problem("empty File (the query id)")
            continue
        qid = official_query_id(file)
        if not qid:
            problem(f"File {file!r} has no letters or digits to make a query id from")
            continue
        if qid in seen:
            first, qid = seen[qid], repeated_id(qid, seen)
            warnings.append(f"{xlsx}:row {n}: File {file!r} repeats row {first} (the authors' results hold one "
                            f"prediction for both); this query's id is {qid!r}")
        seen[qid] = n
        found = len(problems)
        subtask = subtask_of(record["Type"])
        if subtask is None:
            problem(f"Type must be a whole number 0..5 (sub-task I..VI), not {record['Type']!r}")
        monster_name = cell_text(record["Monster Name"])
        monster = monsters.get(normalise_name(monster_name or ""))
        if monster is None:
            problem(f"unknown monster {monster_name!r}" if monster_name else "empty Monster Name")
        for column in ("Question", "Answer"):
            if cell_text(record[column]) is None:
                problem(f"empty {column}")
        syntax = route_syntax_problem(record["Search Route"])
        if syntax:
            problem(f"bad Search Route syntax: {syntax}")
        routes = [] if syntax else split_routes(record["Search Route"])
        for i, names in enumerate(routes, start=1):
            if monster and monsters.get(normalise_name(names[0])) != monster:
                problem(f"route {i} {'>'.join(names)!r} starts at {names[0]!r}, not at the row's monster {monster_name!r}")
        if len(problems) > found:
            continue
        doc = {"id": qid, "subtask": subtask, "monster": monster,
               "question": convert_template(record["Question"])}
        extra = convert_template(record["Extra Information"])
        if extra:
            doc["extra"] = extra
        perception = cell_text(record["Perception"])
        if perception:
            doc["perception"] = perception
        question = QuestionRow(n, file, monster_name, doc, routes)
        if media_root is not None and not is_text_only(file):
            try:
                plan_query_media(question, record, contained(media_root, file), f"{xlsx}:row {n}")
            except OutsideRelease as exc:
                question.media.refuse(f"{xlsx}:row {n}", exc)
            warnings += question.media.warnings
        if question.media.media:
            doc["media"] = question.media.media
        doc["answer"] = cell_text(record["Answer"])
        out.append(question)
    return out, problems, warnings


def plan_query_media(question: QuestionRow, record: dict, folder: Path, where: str) -> None:
    dest = f"{QUERY_MEDIA_DIR}/{question.doc['id']}"
    image, video = cell_text(record["Image"]), cell_text(record["Video"])
    if image:
        question.media.add_image_entry(folder, image, dest, where)
    if video:
        question.media.add_video(folder, video, dest, where)


@dataclass
class Resolution:
    """Question rows resolved against a KG: the query documents and what could not be resolved."""

    queries: list[dict]
    problems: list[Problem]
    routes: int
    routes_ok: int
    copies: list[tuple[Path, str]]

    @property
    def rate(self) -> float:
        return self.routes_ok / self.routes if self.routes else 1.0


def resolve_questions(questions: list[QuestionRow], kg: KnowledgeGraph, xlsx: Path) -> Resolution:
    """Resolve every route of every row; a row with any unresolved or non-walk route is left out."""
    queries, problems, copies = [], [], []
    routes = routes_ok = 0
    for q in questions:
        paths, row_problems = [], []
        for i, names in enumerate(q.routes, start=1):
            routes += 1
            label = f"route {i} {'>'.join(names)!r}"
            resolved = resolve_route(kg, names, q.monster_name)
            if isinstance(resolved, Unresolved):
                row_problems.append(f"{label}: {resolved.reason}")
                continue
            walk = walk_problem(kg, resolved)
            if walk:
                row_problems.append(f"{label}: {walk}")
                continue
            routes_ok += 1
            paths.append(resolved)
        problems += [Problem(str(xlsx), f"row {q.row}", reason) for reason in row_problems]
        if not row_problems:
            key = derive_key(q.doc["answer"], paths, q.doc["monster"], kg)
            queries.append({**q.doc, "paths": paths, **({"key": key} if key else {})})
            copies += q.media.copies
    return Resolution(queries, problems, routes, routes_ok, copies)


def derive_key(answer: str, paths: list[list[str]], monster: str, kg: KnowledgeGraph) -> dict | None:
    """An answer key read from a row's Answer and resolved Search Routes, or None when unsure.

    An Answer starting with "Yes" or "No" gives a ``yes_no`` key of that polarity (required
    points are left to curation); an Answer that names exactly one of the routes' last entities
    (other than the topic monster), by name or alias, gives an ``entity`` key. Anything else
    (several leaves named, none, a description) is left without a key."""
    words = normalise_name(answer).split()
    if words[:1] in (["yes"], ["no"]):
        return {"kind": "yes_no", "polarity": words[0], "origin": "derived"}
    padded = f" {' '.join(words)} "
    found: dict[str, list[str]] = {}
    for leaf in dict.fromkeys(p[-1] for p in paths if p and p[-1] != monster):
        names = [n for n in map(normalise_name, kg.entity(leaf).names) if n and f" {n} " in padded]
        if names:
            found[leaf] = names
    named = [leaf for leaf, names in found.items()
             if not all(any(n != m and f" {n} " in f" {m} " for o, ms in found.items() if o != leaf for m in ms)
                        for n in names)]
    if len(named) == 1:
        return {"kind": "entity", "entities": named, "origin": "derived"}
    return None


def key_counts(queries: list[dict]) -> Counter:
    """Queries per answer-key kind, ``None`` for those without a key."""
    return Counter((q.get("key") or {}).get("kind") for q in queries)


def subtask_counts(queries: list[dict]) -> Counter:
    return Counter(q["subtask"] for q in queries)
