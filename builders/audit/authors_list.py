"""The authors' question list as a source: which of its rows back a fact of the KG.

A row shows two things. Its Search Routes, resolved to our entity ids the way ``mhmmkg
import-official --kg`` resolves them, show that each entity on a route exists and that each
pair of consecutive entities is linked, head before tail: such a fact is cited
``authors-list:<File>#route``. Its Answer shows the entities it names (by name or alias, the
longest name winning where names overlap, among the entities of the row's monsters and the
shared ones): cited ``authors-list:<File>#answer``. Nothing else (captions, conditions, texts)
is shown by a row, so nothing else may be cited to it.

``<File>`` is the row's File value verbatim; two rows with one File back a citation when
either does.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mhmmkg.errors import InvalidInput, Problem
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.curation.provenance import AUTHORS_LIST_PREFIX, AUTHORS_REPOSITORY


PREFIX = AUTHORS_LIST_PREFIX
ROUTE, ANSWER = "route", "answer"
#: The authors' code repository: it holds code and the question list, not a knowledge graph.
REPO_URL = AUTHORS_REPOSITORY
#: Rows cited per fact: the first ones in list order, route rows before answer rows.
MAX_ROWS = 3


def citation(file: str, kind: str) -> str:
    return f"{PREFIX}{file}#{kind}"


def is_authors_list(source: str) -> bool:
    return source.startswith(PREFIX)


def parse_citation(source: str) -> tuple[str, str] | None:
    """``authors-list:<File>#route`` -> (File, "route"); None when malformed."""
    if not is_authors_list(source):
        return None
    file, hash_, kind = source[len(PREFIX):].rpartition("#")
    if not hash_ or not file.strip() or file != file.strip() or kind not in (ROUTE, ANSWER):
        return None
    return file, kind


@dataclass(frozen=True)
class ListRow:
    """One row of the question list: its File, its topic monster, its resolved routes, its Answer."""

    row: int
    file: str
    monster: str
    answer: str
    routes: tuple[tuple[str, ...], ...]

    def hops(self) -> set[tuple[str, str]]:
        return {(a, b) for route in self.routes for a, b in zip(route, route[1:])}

    def on_routes(self) -> set[str]:
        return {e for route in self.routes for e in route}

    def monsters(self, kg: KnowledgeGraph) -> set[str]:
        return {self.monster} | {e for e in self.on_routes() if kg.entity(e).type == "monster"}


def read_list_rows(xlsx: str | Path, kg: KnowledgeGraph) -> list[ListRow]:
    """The rows of ``question_list.xlsx`` with their routes resolved against ``kg``.

    A malformed row is an error (file, row, reason); a route that names something the KG lacks
    is left out of its row (it backs nothing), the row's other routes still count."""
    from mhmmkg.official.release.import_release import _monster_ids     # the release reader sits on top
    from mhmmkg.official.release.queries import read_question_rows
    from mhmmkg.official.release.routes import Unresolved, resolve_route
    from mhmmkg.official.release.workbooks import WHAT, read_question_list

    xlsx = Path(xlsx)
    questions, problems, _ = read_question_rows(read_question_list(xlsx), xlsx, None, _monster_ids(kg))
    if problems:
        raise InvalidInput(problems, WHAT)
    rows = []
    for q in questions:
        resolved = [resolve_route(kg, names, q.monster_name) for names in q.routes]
        routes = tuple(tuple(r) for r in resolved if not isinstance(r, Unresolved))
        rows.append(ListRow(q.row, q.file, q.doc["monster"], q.doc["answer"], routes))
    return rows


def named_in_answer(kg: KnowledgeGraph, row: ListRow) -> set[str]:
    """Entities the row's Answer names: of the row's monsters, shared ones, and monsters.

    Names are matched on whole normalised words; where two names overlap ("Azure Rathalos",
    "Rathalos") the longer wins; a name held by several entities in scope goes to the topic
    monster's own first."""
    words = normalise_name(row.answer).split()
    owners = row.monsters(kg)
    by_name: dict[tuple[str, ...], list] = defaultdict(list)
    for e in kg.entities:
        if e.monster in owners or e.monster is None:
            for name in e.names:
                by_name[tuple(normalise_name(name).split())].append(e)
    spans = sorted(((len(name), i, name) for name in by_name if name
                    for i in range(len(words) - len(name) + 1) if tuple(words[i:i + len(name)]) == name),
                   key=lambda s: (-s[0], s[1]))
    taken, named = set(), set()
    for length, start, name in spans:
        cells = set(range(start, start + length))
        if cells & taken:
            continue
        taken |= cells
        holders = by_name[name]
        own = [e for e in holders if e.monster == row.monster or e.id == row.monster]
        named |= {e.id for e in (own or holders)}
    return named


@dataclass
class RowIndex:
    """Which rows back which fact, in list order."""

    kg: KnowledgeGraph
    rows: list[ListRow]
    by_file: dict[str, list[ListRow]] = field(init=False)
    _entity: dict[str, list[ListRow]] = field(init=False)
    _hop: dict[tuple[str, str], list[ListRow]] = field(init=False)
    _answer: dict[str, list[ListRow]] = field(init=False)
    _named: dict[int, set[str]] = field(init=False)

    def __post_init__(self):
        self.by_file, self._entity, self._hop, self._answer = (defaultdict(list) for _ in range(4))
        self._named = {}
        for row in self.rows:
            self.by_file[row.file].append(row)
            for e in sorted(row.on_routes()):
                self._entity[e].append(row)
            for hop in sorted(row.hops()):
                self._hop[hop].append(row)
            self._named[row.row] = named_in_answer(self.kg, row)
            for e in sorted(self._named[row.row]):
                self._answer[e].append(row)

    @classmethod
    def read(cls, xlsx: str | Path, kg: KnowledgeGraph) -> RowIndex:
        return cls(kg, read_list_rows(xlsx, kg))

    def citations(self, fact: str | tuple[str, str]) -> list[str]:
        """Row citations for an entity id or a (head, tail) pair: route rows, then answer rows,
        ``MAX_ROWS`` at most in all."""
        if isinstance(fact, tuple):
            return _cite(self._hop.get(fact, []), ROUTE)
        routes = _cite(self._entity.get(fact, []), ROUTE)
        return routes + _cite(self._answer.get(fact, []), ANSWER)[:MAX_ROWS - len(routes)]

    def problem(self, source: str, fact: str | tuple[str, str]) -> str | None:
        """Why an ``authors-list:`` citation of ``fact`` is malformed or not backed by its row, or None."""
        parsed = parse_citation(source)
        if parsed is None:
            return f"malformed citation {source!r}: expected {PREFIX}<File>#{ROUTE} or #{ANSWER}"
        file, kind = parsed
        rows = self.by_file.get(file)
        if not rows:
            return f"{source}: no row of the question list has File {file!r}"
        if kind == ROUTE:
            backed = any((fact in r.hops()) if isinstance(fact, tuple) else (fact in r.on_routes()) for r in rows)
            return None if backed else f"{source}: {_describe(fact)} is not on a route of that row"
        if isinstance(fact, tuple):
            return f"{source}: an answer backs entities, not a relation"
        return None if any(fact in self._named[r.row] for r in rows) else \
            f"{source}: that row's answer does not name {fact}"


def _cite(rows: list[ListRow], kind: str) -> list[str]:
    out = []
    for row in rows:
        c = citation(row.file, kind)
        if c not in out:
            out.append(c)
        if len(out) == MAX_ROWS:
            break
    return out


def _describe(fact: str | tuple[str, str]) -> str:
    return f"the hop {fact[0]} -> {fact[1]}" if isinstance(fact, tuple) else f"entity {fact}"


@dataclass
class Conversion:
    """What replacing the repository URL by row citations changes in a sources folder."""

    documents: dict[Path, dict] = field(default_factory=dict)
    facts_converted: int = 0
    row_citations: int = 0
    repo_urls_left: int = 0

    def summary(self) -> str:
        return (f"{self.facts_converted} facts cited the repository and now cite {self.row_citations} "
                f"question-list rows; {self.repo_urls_left} repository URLs remain (no row backs those facts) "
                f"in {len(self.documents)} changed files")


def kg_documents(sources_dir: Path) -> list[Path]:
    return [sources_dir / "shared.json", *sorted((sources_dir / "monsters").glob("*.json"))]


def convert_repo_citations(sources_dir: str | Path, index: RowIndex) -> Conversion:
    """Every ``REPO_URL`` source in the KG files replaced, in place, by the rows that back the fact
    (left where none does). Nothing is written: see :func:`write_conversion`."""
    sources_dir, out = Path(sources_dir), Conversion()
    for path in kg_documents(sources_dir):
        doc = json.loads(path.read_text(encoding="utf-8"))
        changed = False
        facts = [(e, e["id"]) for e in doc.get("entities", [])] + \
                [(r, (r["head"], r["tail"])) for r in doc.get("relations", [])]
        for obj, fact in facts:
            sources = obj.get("sources") or []
            if REPO_URL not in sources:
                continue
            rows = index.citations(fact)
            if not rows:
                out.repo_urls_left += 1
                continue
            new = []
            for s in sources:
                new += [c for c in rows if c not in sources and c not in new] if s == REPO_URL else [s]
            obj["sources"] = new
            out.facts_converted += 1
            out.row_citations += len([c for c in new if c not in sources])
            changed = True
        if changed:
            out.documents[path] = doc
    return out


def write_conversion(conversion: Conversion) -> None:
    """Write the changed files the way they are written (2-space indent, ASCII escapes)."""
    from mhmmkg.files.atomic import atomic_write_text

    for path, doc in conversion.documents.items():
        atomic_write_text(path, json.dumps(doc, indent=2) + "\n")


def citation_problems(kg: KnowledgeGraph, index: RowIndex) -> list[Problem]:
    """Every ``authors-list:`` citation of the KG that is malformed or not backed by its row."""
    found = []
    for e in kg.entities:
        found += [Problem(e.id, "sources", p) for s in e.sources if is_authors_list(s)
                  if (p := index.problem(s, e.id))]
    for r in kg.relations:
        found += [Problem(r.id, "sources", p) for s in r.sources if is_authors_list(s)
                  if (p := index.problem(s, (r.head, r.tail)))]
    return found
