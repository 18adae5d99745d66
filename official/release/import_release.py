"""Convert the authors' original MH-MMKG release into curated sources (then build them with `mhmmkg build`).

Full release: ROOT holds mmkg/<Monster>/Node.xlsx, Relations.xlsx, Knowledge_Images/,
Knowledge_Videos/ and questions_mh/question_list.xlsx with one media folder per query. The KG,
its media and the queries are written to --out in our sources format (shared.json,
monsters/<id>.json, queries/official.json, media/...).

Questions only: with --kg, only the question list is read (ROOT may be the .xlsx file itself,
as published in the authors' code repository) and its search routes are resolved by name and
alias against that KG. When the KG is a sources folder, --out is a copy of it whose queries are
the official ones; otherwise --out holds the queries alone.

Every route that names an unknown entity or is not a walk in the KG is reported with file, row
and name; the command then exits 2, unless --allow-unresolved (those queries are left out).
Missing media files are warnings: the authors share their videos on request only.

Examples:
  mhmmkg import-official ~/MH-MMKG --out official-src
  mhmmkg build --src official-src --out mh-mmkg-official
  mhmmkg import-official questions_mh/question_list.xlsx --kg data --out official-on-open-kg
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mhmmkg.errors import InvalidInput, Problem, UserError
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.kg.model import ROMAN

from .workbooks import WHAT, read_question_list
from .kg import read_official_kg, read_relation_map
from .queries import Resolution, key_counts, read_question_rows, resolve_questions, subtask_counts
from mhmmkg.builders.origin import AUTHORS_QUESTIONS, AUTHORS_RELEASE, origin_document, read_origin
from .sources_writer import check_destination, write_sources_folder

QUESTION_LIST = Path("questions_mh") / "question_list.xlsx"
QUERIES_FILE = "official"


@dataclass
class ImportReport:
    out: Path
    mode: str  # "release" or "questions"
    entities: int
    relations: int
    monsters: int
    resolution: Resolution
    rows: int
    warnings: list[str] = field(default_factory=list)

    @property
    def queries(self) -> list[dict]:
        return self.resolution.queries

    def summary(self) -> list[str]:
        counts = subtask_counts(self.queries)
        per_task = ", ".join(f"{ROMAN[t]} {counts.get(t, 0)}" for t in sorted(ROMAN))
        text_only = sum(1 for q in self.queries if "media" not in q and "perception" not in q)
        r = self.resolution
        lines = []
        if self.mode == "release":
            lines.append(f"KG: {self.monsters} monsters, {self.entities} entities, {self.relations} relations")
        lines.append(f"queries: {len(self.queries)}/{self.rows} rows imported ({per_task}; {text_only} text-only), "
                     f"topic monsters: {len({q['monster'] for q in self.queries})}")
        lines.append(f"routes: {r.routes_ok}/{r.routes} resolved to walks in the KG ({100 * r.rate:.1f}%)")
        keys = key_counts(self.queries)
        lines.append(f"answer keys: {len(self.queries) - keys[None]} derived from Answer and Search Route "
                     f"(entity {keys['entity']}, yes_no {keys['yes_no']}), {keys[None]} left without a key "
                     "(curate them by hand)")
        return lines


def locate_question_list(root: Path) -> tuple[Path, Path]:
    """(question_list.xlsx, folder holding the per-query media folders) for ROOT or the .xlsx itself."""
    if root.is_file():
        return root, root.parent
    for candidate in (root / QUESTION_LIST, root / QUESTION_LIST.name):
        if candidate.is_file():
            return candidate, candidate.parent
    raise InvalidInput([Problem(str(root), "", f"no question list: expected {root / QUESTION_LIST}")], WHAT)


def _monster_ids(kg: KnowledgeGraph) -> dict[str, str]:
    return {normalise_name(n): e.id for e in kg.monsters() for n in e.names}


def _resolve(xlsx: Path, media_root: Path, kg: KnowledgeGraph) -> tuple[Resolution, int, list[str]]:
    rows = read_question_list(xlsx)
    questions, problems, warnings = read_question_rows(rows, xlsx, media_root, _monster_ids(kg))
    if problems:
        raise InvalidInput(problems, WHAT)
    return resolve_questions(questions, kg, xlsx), len(rows), warnings


def _check_unresolved(resolution: Resolution, allow: bool, warnings: list[str]) -> None:
    if not resolution.problems:
        return
    if not allow:
        raise InvalidInput(resolution.problems, WHAT + " (routes that do not resolve; --allow-unresolved leaves those queries out)")
    warnings += [f"{p} (query left out)" for p in resolution.problems]


def import_release(root: str | Path, out: str | Path, *, allow_unresolved: bool = False,
                   relation_map: dict[str, str] | None = None, force: bool = False, quiet: bool = False) -> ImportReport:
    """The full release (KG, media, questions) -> a sources folder at ``out``."""
    root, out = Path(root), Path(out)
    check_destination(out, force, root)
    official = read_official_kg(root / "mmkg", relation_map=relation_map, quiet=quiet)
    kg = official.graph()
    xlsx, media_root = locate_question_list(root)
    resolution, rows, warnings = _resolve(xlsx, media_root, kg)
    warnings = official.warnings + warnings
    _check_unresolved(resolution, allow_unresolved, warnings)
    shared, monsters = official.documents()
    queries = {QUERIES_FILE: {"queries": resolution.queries}} if resolution.queries else {}
    sources = write_sources_folder(out, shared=shared, monsters=monsters, queries=queries,
                                   copies=official.copies() + resolution.copies,
                                   origin=origin_document(AUTHORS_RELEASE))
    return ImportReport(out, "release", len(sources.entities), len(sources.relations), len(monsters),
                        resolution, rows, warnings)


def import_questions(root: str | Path, out: str | Path, kg_source: str | Path, *, allow_unresolved: bool = False,
                     force: bool = False) -> ImportReport:
    """Only the question list, resolved against an existing KG -> queries (plus that KG when it is a sources folder)."""
    from mhmmkg.dataset.loading import load_graph

    root, out = Path(root), Path(out)
    base = Path(kg_source) if (Path(kg_source) / "shared.json").is_file() else None
    check_destination(out, force, root if root.is_dir() else None, base)
    kg = load_graph(kg_source)
    xlsx, media_root = locate_question_list(root)
    resolution, rows, warnings = _resolve(xlsx, media_root, kg)
    _check_unresolved(resolution, allow_unresolved, warnings)
    if not resolution.queries:
        raise UserError(f"{xlsx}: no query could be imported (every row has an unresolved route)")
    queries = {QUERIES_FILE: {"queries": resolution.queries}}
    if base is not None:
        origin = AUTHORS_RELEASE if read_origin(base) == AUTHORS_RELEASE else AUTHORS_QUESTIONS
        write_sources_folder(out, queries=queries, copies=resolution.copies, base=base,
                             origin=origin_document(origin))
    else:
        _write_queries_only(out, queries, resolution.copies)
        warnings.append(f"{kg_source} is not a sources folder: {out} holds the queries only "
                        "(put them in the KG's sources queries/ folder to build a dataset)")
    return ImportReport(out, "questions", len(kg), len(kg.relations), len(kg.monsters()), resolution, rows, warnings)


def _write_queries_only(out: Path, queries: dict[str, dict], copies) -> None:
    import shutil

    from mhmmkg.files.atomic import staged_folder
    from mhmmkg.files.outputs import write_output_manifest
    from mhmmkg.curation.schemas import schema_problems

    from .sources_writer import write_json

    problems = [p for name, doc in queries.items() for p in schema_problems("queries", doc, f"queries/{name}.json")]
    if problems:
        raise InvalidInput(problems, "converted queries")
    with staged_folder(out) as staging:
        for name, doc in queries.items():
            write_json(staging / "queries" / f"{name}.json", doc)
        for source, rel in copies:
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, staging / rel)
        write_output_manifest(staging, "sources")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("root", help="the release folder (holding mmkg/ and questions_mh/), or with --kg "
                                     "a folder holding questions_mh/question_list.xlsx or that file itself")
    parser.add_argument("--out", required=True, help="sources folder to write")
    parser.add_argument("--kg", help="questions only: resolve the routes against this KG (a sources folder "
                                     "such as data, a built dataset folder or a Hub id) instead of reading mmkg/")
    parser.add_argument("--allow-unresolved", action="store_true",
                        help="leave out queries whose routes do not resolve instead of failing (exit 0)")
    parser.add_argument("--relation-map", metavar="FILE.json",
                        help="JSON object {official relation phrase: base type} for phrases the built-in rules do not know")
    parser.add_argument("--force", action="store_true", help="replace --out when it holds an earlier import "
                                                              "(a folder this command did not make is never replaced)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no warnings, only the summary")


def run(args: argparse.Namespace) -> int:
    if args.kg:
        if args.relation_map:
            raise UserError("--relation-map applies to the release's Relations.xlsx; it has no use with --kg")
        report = import_questions(args.root, args.out, args.kg, allow_unresolved=args.allow_unresolved, force=args.force)
    else:
        root = Path(args.root)
        if not (root / "mmkg").is_dir():
            raise UserError(f"{root}: no mmkg/ folder of the release; for the question list alone, "
                            "resolve it against a KG with --kg (e.g. --kg data)")
        relation_map = read_relation_map(args.relation_map) if args.relation_map else None
        report = import_release(root, args.out, allow_unresolved=args.allow_unresolved,
                                relation_map=relation_map, force=args.force, quiet=args.quiet)
    if not args.quiet:
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    for line in report.summary():
        print(line)
    print(f"wrote {report.out}" + (f"; build it with: mhmmkg build --src {report.out} --out mh-mmkg-official"
                                   if (report.out / "shared.json").is_file() else ""))
    return 0
