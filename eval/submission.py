"""Submission files: reading and checking them against the benchmark.

This is the one implementation behind ``mhmmkg validate`` and the evaluator: whatever the
validator accepts, the evaluator scores, and it refuses what the validator reports.

Format (``schema/submission.schema.json``): JSON Lines, one object per query::

    {"query_id": "wolf-002", "answer": "Double Slam",
     "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam"]],
     "topic": "wolf", "captions": {"wolf.double-slam": "..."}, "perception": "...", "meta": {...}}

``query_id``, ``answer`` and ``paths`` are required; blank lines are ignored. Run metadata
(model, setting, created, mhmmkg_version, dataset_fingerprint, anything else) goes in an
optional side file next to the submission, ``<name>.meta.json`` for ``<name>.jsonl``, holding
one JSON object (``#/$defs/run_meta`` of the same schema).

Errors (each with line, query id, JSON pointer and reason): unreadable or non-JSON line,
schema violation, duplicate or unknown query id, unknown entity id, a path hop that is not an
edge of the KG in that direction, a topic that is not a monster, captions for unknown
entities. Queries with no prediction are a warning: the evaluator counts them as wrong.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from mhmmkg.errors import InvalidInput, Problem, UserError, json_pointer
from mhmmkg.dataset.manifest import dataset_fingerprint
from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.files.jsontext import (MAX_JSONL_BYTES, JSONTextError, parse_json_line, parse_json_lines,
                                   parse_plain_json_lines, read_bytes_file)
from mhmmkg.kg.model import Query
from mhmmkg.records import from_columns
from mhmmkg.curation.schemas import quick_check, schema_problems
from mhmmkg.files.submission_file import meta_path, write_submission  # noqa: F401  (part of this module's API)

SCHEMA = "submission"
MISSING_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Prediction:
    """One checked line of a submission."""

    query_id: str
    answer: str
    paths: tuple[tuple[str, ...], ...]
    topic: str | None = None
    captions: Mapping[str, str] = field(default_factory=dict)
    perception: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    where: str = ""

    @property
    def predicted_topic(self) -> str | None:
        """The declared topic, else the root of the first retrieved path."""
        if self.topic is not None:
            return self.topic
        return self.paths[0][0] if self.paths else None


@dataclass
class CheckedSubmission:
    """What a submission holds and everything wrong with it, found in one pass."""

    source: str
    predictions: dict[str, Prediction] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    run_meta: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    n_queries: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def warnings(self) -> list[str]:
        if not self.missing:
            return list(self.notes)
        shown = ", ".join(self.missing[:MISSING_SHOWN])
        more = f", ... ({len(self.missing) - MISSING_SHOWN} more)" if len(self.missing) > MISSING_SHOWN else ""
        return [f"{self.source}: {len(self.missing)} of {self.n_queries} benchmark queries have no prediction "
                f"({shown}{more})", *self.notes]

    def raise_if_invalid(self) -> None:
        if self.problems:
            raise InvalidSubmission(self.problems, self.warnings)


class InvalidSubmission(InvalidInput):
    """Problems of a submission, listed in file order (line by line), then the warnings."""

    def __init__(self, problems: list[Problem], warnings: Sequence[str] = ()):
        self.problems = list(problems)
        self.warnings = list(warnings)
        lines = [f"{len(self.problems)} problem(s) in the submission:"]
        lines += [f"  {p}" for p in self.problems]
        lines += [f"warning: {w}" for w in self.warnings]
        UserError.__init__(self, "\n".join(lines))


def parse_line(raw: bytes) -> tuple[Any, str | None]:
    """One JSON Lines record, or the reason it cannot be read."""
    try:
        return parse_json_line(raw), None
    except JSONTextError as exc:
        return None, f"{exc.pointer}: {exc.reason}" if exc.pointer else exc.reason


class _Record(NamedTuple):
    """One line or object of a submission, as read (a tuple: a large submission has many)."""

    where: str
    obj: Any = None
    unreadable: str | None = None
    line: int | None = None

    @property
    def place(self) -> str:
        return f"line {self.line}" if self.line else self.where


class SubmissionChecker:
    """Checks submissions against one benchmark: its KG and its queries.

    With ``fingerprint`` (of the dataset, ``mhmmkg.manifest.dataset_fingerprint``), a run metadata
    file naming another ``dataset_fingerprint`` gives a warning: the run was made on other data.

    With ``unknown_matches_nothing=True`` (the scoring policy of the authors' protocol; ``official``
    is its older name), a path naming an entity the KG does not know or stepping along no edge, a
    topic that is not a monster of the KG and a caption of an unknown entity do not make the
    submission invalid: such a path simply matches no ground-truth path (it still counts as
    predicted), the caption is dropped, and one warning says how many there were.
    """

    def __init__(self, graph: KnowledgeGraph, queries: Sequence[Query], fingerprint: str | None = None, *,
                 unknown_matches_nothing: bool = False, official: bool = False):
        self.graph = graph
        #: query id -> query (None for a checker made ``for_query_ids``): only the ids are checked against
        self.queries: dict[str, Query | None] = {q.id: q for q in queries}
        self.fingerprint = fingerprint
        self.unknown_matches_nothing = unknown_matches_nothing or official

    @classmethod
    def for_query_ids(cls, graph: KnowledgeGraph, query_ids: Iterable[str], fingerprint: str | None = None, *,
                      unknown_matches_nothing: bool = False, official: bool = False) -> SubmissionChecker:
        """A checker that knows the queries by id alone (``mhmmkg validate``: no Query objects to make)."""
        checker = cls(graph, (), fingerprint, unknown_matches_nothing=unknown_matches_nothing, official=official)
        checker.queries = dict.fromkeys(query_ids)
        return checker

    def check_file(self, path: str | Path) -> CheckedSubmission:
        path = Path(path)
        source = str(path)
        if path.is_dir():
            raise UserError(f"{source}: is a folder; give the submission file (JSON Lines)")
        if path.exists() and not path.is_file():
            raise UserError(f"{source}: not a regular file (a FIFO or device?); give the submission file")
        if not path.exists():
            raise UserError(f"{source}: submission file not found")
        data = read_bytes_file(path, "submission file", max_bytes=MAX_JSONL_BYTES).removeprefix(b"\xef\xbb\xbf")
        values = parse_plain_json_lines(data)       # a file as programs write it, read at once
        if values is not None:
            numbers: Sequence[int] = range(1, len(values) + 1)
        else:
            numbers, raws = _numbered_lines(data)
            values = parse_json_lines(raws)
        checked = self._check_clean(numbers, values, source) if values else None
        if checked is None:
            if values is not None:
                records = [_Record(f"{source}:{number}", obj, None, number) for number, obj in zip(numbers, values)]
            else:
                records = [_Record(f"{source}:{number}", *parse_line(raw), number) for number, raw in zip(numbers, raws)]
            checked = self._check(records, source)
        if not numbers:
            checked.problems.insert(0, Problem(source, "", "empty submission: no prediction lines"))
        checked.run_meta = self._read_run_meta(meta_path(path), checked.problems)
        used = checked.run_meta.get("dataset_fingerprint")
        if self.fingerprint and used and used != self.fingerprint:
            checked.notes.append(f"{meta_path(path)}: the run used dataset build {used[:12]}, but the dataset "
                                 f"given is build {self.fingerprint[:12]}; scores may not be comparable")
        return checked

    def check_records(self, records: Iterable[Any] | Mapping[str, Any], source: str = "predictions") -> CheckedSubmission:
        """In-memory predictions: a list of line objects, or a mapping query id -> line object."""
        if isinstance(records, Mapping):
            items = []
            for qid, obj in records.items():
                where = f"{source}[{qid!r}]"
                items.append(_Record(where, {"query_id": qid, **obj} if isinstance(obj, Mapping) else obj))
        else:
            items = [_Record(f"{source}[{i}]", obj) for i, obj in enumerate(records)]
        checked = self._check(items, source)
        if not items:
            checked.problems.insert(0, Problem(source, "", "empty submission: no predictions"))
        return checked

    def _check_clean(self, numbers: Sequence[int], objs: list[Any], source: str) -> CheckedSubmission | None:
        """What ``_check`` finds in the records ``objs`` of the lines ``numbers`` when every one is
        valid, names only what the KG has and predicts a benchmark query no line before it did
        (the common case: nothing to report); None when one is not, for ``_check`` to say why.

        Each condition is tested on all the records at once (``_all_kg_clean``, a set of query
        ids): no Python step per path. The fields both the tests and the predictions read are
        read from the records once."""
        valid = quick_check(SCHEMA)
        if valid is None or not all(map(valid, objs)):
            return None
        qids = self._benchmark_ids_of(list(map(itemgetter("query_id"), objs)))
        if qids is None:
            return None
        read = {name: list(map(dict.get, objs, repeat(name))) for name in ("paths", "topic", "captions")}
        if not self._all_kg_clean(read["paths"], read["topic"], read["captions"]):
            return None
        queries = self.queries
        out = CheckedSubmission(source, n_queries=len(queries))
        wheres = [f"{source}:{number}" for number in numbers]
        read["query_id"] = qids
        out.predictions = predictions = dict(zip(qids, _predictions(objs, wheres, self.graph, read)))
        out.missing = [] if qids is self._ordered_ids else [qid for qid in queries if qid not in predictions]
        return out

    def _benchmark_ids_of(self, ids: list[str]) -> list[str] | None:
        """The benchmark's own string of each query id in ``ids`` (see ``_query_ids``); None when
        one is not a benchmark query or is there twice.

        A submission that predicts every query in the benchmark's order (as a run writes them)
        is told by one comparison of the lists, which hashes no id; it then has neither
        unknown nor repeated ids, and predicts every query."""
        if ids == self._ordered_ids:
            return self._ordered_ids
        qids = list(map(self._query_ids.get, ids))
        return None if None in qids or len(set(qids)) != len(qids) else qids

    def _check(self, records: list[_Record], source: str) -> CheckedSubmission:
        out = CheckedSubmission(source, n_queries=len(self.queries))
        first_seen: dict[str, _Record] = {}
        tolerated: list[Problem] = []
        valid = quick_check(SCHEMA)
        kg_clean, queries, predictions, graph = self._kg_clean, self.queries, out.predictions, self.graph
        for record in records:
            obj = record.obj
            if valid is not None and record.unreadable is None and valid(obj) and kg_clean(obj):
                qid = obj["query_id"]
                if qid not in first_seen and qid in queries:     # the common case, with no Problem to make
                    first_seen[qid] = record
                    predictions[qid] = _prediction(obj, record.where, graph)
                    continue
            if record.unreadable:
                out.problems.append(Problem(record.where, "", record.unreadable))
                continue
            problems = self._record_problems(record, first_seen)
            kg_problems = self._kg_problems(record.obj, record.where)
            tolerated += kg_problems
            if not self.unknown_matches_nothing:
                problems += kg_problems
            out.problems += problems
            obj = record.obj
            if not problems:
                out.predictions[obj["query_id"]] = _prediction(obj, record.where, self.graph)
        out.missing = [qid for qid in self.queries if qid not in first_seen]
        if tolerated and not self.unknown_matches_nothing:
            out.notes.append(f"{source}: paths through entities or edges the KG does not have are refused here; "
                             f"'mhmmkg evaluate --official' scores them as unmatched, as the authors' script does")
        elif tolerated:
            out.notes.append(f"{source}: {len(tolerated)} reference(s) to entities or edges the KG does not have "
                             f"(first: {tolerated[0]}); such "
                             f"paths match nothing and such captions are dropped, as in the authors' script")
        return out

    def _record_problems(self, record: _Record, first_seen: dict[str, _Record]) -> list[Problem]:
        obj, where = record.obj, record.where
        problems = schema_problems(SCHEMA, obj, where)
        if not isinstance(obj, dict):
            return problems
        qid = obj.get("query_id")
        label = f"query {qid!r}: " if isinstance(qid, str) and qid else ""
        problems = [Problem(p.file, p.pointer, label + p.reason) for p in problems]
        if isinstance(qid, str) and qid:
            if qid in first_seen:
                problems.append(Problem(where, "/query_id", f"duplicate query id {qid!r} (first on {first_seen[qid].place})"))
            elif qid not in self.queries:
                problems.append(Problem(where, "/query_id", f"unknown query id {qid!r}: not a query of the benchmark"))
            else:
                first_seen[qid] = record
        return problems

    def _kg_clean(self, obj: dict[str, Any]) -> bool:
        """True when ``_kg_problems`` finds nothing in a record the schema accepts (so its paths
        are lists of strings, its topic a string and its captions an object), without making
        the Problems."""
        is_walk = self.graph.is_walk
        for path in obj["paths"]:
            if path and not is_walk(path):
                return False
        topic = obj.get("topic")
        if topic is not None and topic not in self._monster_ids:
            return False
        captions = obj.get("captions")
        return not captions or all(map(self.graph.__contains__, captions))

    def _all_kg_clean(self, paths: list[list[list[str]]], topics: list[str | None],
                      captions: list[dict[str, str] | None]) -> bool:
        """``all(map(self._kg_clean, objs))`` for records the schema accepts, given by the columns
        of their ``paths``, ``topic`` and ``captions`` (None where absent), each test made once
        over all of them: every non-empty path a walk (``KnowledgeGraph.are_walks``), every topic
        a monster, every captioned entity known."""
        if not self.graph.are_walks(list(filter(None, chain.from_iterable(paths)))):
            return False
        topics = set(topics)
        topics.discard(None)
        if not topics <= self._monster_ids:
            return False
        return all(map(self.graph.__contains__, set(chain.from_iterable(filter(None, captions)))))

    @cached_property
    def _query_ids(self) -> dict[str, str]:
        """Each benchmark query id -> the same string object: a clean submission's predictions are
        keyed by these, so that finding a query's prediction compares no characters (the ids
        parsed from the file are other objects: at 100x, the check's and the evaluator's
        look-ups of 23,800 ids took about 7 ms more with them)."""
        return {qid: qid for qid in self.queries}

    @cached_property
    def _ordered_ids(self) -> list[str]:
        """The benchmark's query ids in its order (the strings of ``_query_ids``)."""
        return list(self.queries)

    @cached_property
    def _monster_ids(self) -> frozenset[str]:
        """The ids of the KG's monsters (a loaded graph then makes no Entity for the topic of each
        record, and reads no names)."""
        return self.graph.ids_of_type("monster")

    def _kg_problems(self, obj: Any, where: str) -> list[Problem]:
        """What in a record names entities or edges the KG does not have."""
        if not isinstance(obj, dict):
            return []
        qid = obj.get("query_id")
        label = f"query {qid!r}: " if isinstance(qid, str) and qid else ""
        problems = []
        paths = obj.get("paths")
        if isinstance(paths, list):
            for j, path in enumerate(paths):
                problems += [Problem(where, pointer, label + reason) for pointer, reason in self._path_problems(path, j)]
        topic = obj.get("topic")
        if isinstance(topic, str) and topic:
            if topic not in self.graph:
                problems.append(Problem(where, "/topic", f"{label}unknown entity id {topic!r}"))
            elif self.graph.entity(topic).type != "monster":
                problems.append(Problem(where, "/topic", f"{label}topic must be a monster, {topic!r} is an entity of type {self.graph.entity(topic).type}"))
        captions = obj.get("captions")
        if isinstance(captions, dict):
            for entity_id in captions:
                if entity_id not in self.graph:
                    problems.append(Problem(where, json_pointer("captions", entity_id), f"{label}unknown entity id {entity_id!r}"))
        return problems

    def _path_problems(self, path: Any, j: int) -> list[tuple[str, str]]:
        if not isinstance(path, list) or not path or not all(isinstance(e, str) for e in path):
            return []
        unknown = [(k, e) for k, e in enumerate(path) if e not in self.graph]
        if unknown:
            out = []
            for k, e in unknown:
                what = "path does not start at an entity of the KG: " if k == 0 else ""
                out.append((json_pointer("paths", j, k), f"{what}unknown entity id {e!r}"))
            return out
        out = []
        for k, (a, b) in enumerate(zip(path, path[1:]), 1):
            if self.graph.has_edge(a, b):
                continue
            reason = f"hop {a!r} -> {b!r} is not an edge of the KG"
            if self.graph.has_edge(b, a):
                reason += f" (there is one from {b!r} to {a!r}: paths follow edge direction)"
            out.append((json_pointer("paths", j, k), reason))
        return out

    @staticmethod
    def _read_run_meta(path: Path, problems: list[Problem]) -> dict[str, Any]:
        if not path.exists():
            return {}
        obj, reason = parse_line(read_bytes_file(path, "run metadata").removeprefix(b"\xef\xbb\xbf"))
        if reason:
            problems.append(Problem(str(path), "", reason.replace("at column", "in the run metadata at column")))
            return {}
        found = _run_meta_problems(obj, str(path))
        problems += found
        return obj if not found else {}


def _run_meta_problems(obj: Any, file: str) -> list[Problem]:
    return [Problem(p.file, p.pointer, f"run metadata: {p.reason}")
            for p in schema_problems(SCHEMA, obj, file, definition="run_meta")]


def _numbered_lines(data: bytes) -> tuple[Sequence[int], list[bytes]]:
    """The number (from 1) and bytes of each non-blank line of ``data``."""
    raws = data.split(b"\n")
    if raws and not raws[-1]:
        raws.pop()          # after the last newline
    if all(raws) and not any(map(bytes.isspace, raws)):     # no blank line (isspace: what strip removes)
        return range(1, len(raws) + 1), raws
    lines = [(number, raw) for number, raw in enumerate(raws, 1) if raw.strip()]
    return [number for number, _ in lines], [raw for _, raw in lines]


def _prediction(obj: dict[str, Any], where: str, graph: KnowledgeGraph) -> Prediction:
    return _predictions([obj], [where], graph)[0]


def _predictions(objs: list[dict[str, Any]], wheres: Sequence[str], graph: KnowledgeGraph,
                 read: Mapping[str, list[Any]] | None = None) -> list[Prediction]:
    """The Prediction of each record (found at the place in ``wheres``), made field by field
    (``from_columns``: a clean submission makes one per line); captions of entities the KG does
    not have are dropped. ``read``: columns of fields the caller has read from the records
    already, by field name (the value of each record, None where it has none)."""
    def field_of(name: str) -> list[Any]:
        column = read.get(name) if read else None
        return column if column is not None else list(map(dict.get, objs, repeat(name)))

    captions = [{e: c for e, c in given.items() if e in graph} if given else {} for given in field_of("captions")]
    metas = [dict(meta) if meta else {} for meta in field_of("meta")]
    return from_columns(Prediction, field_of("query_id"), field_of("answer"),
                        [tuple(map(tuple, paths)) for paths in field_of("paths")], field_of("topic"),
                        captions, field_of("perception"), metas, list(wheres))
