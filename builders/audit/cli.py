"""Audit curated sources the way a careful player would: every weakness, ailment, trap and class
fact against the game's own tables, attack captions too alike to tell two attacks apart, how
many recognition queries surface overlap alone answers (BM25 and character n-gram TF-IDF), and
where the facts come from (game table, a row of the authors' question list, a page).

    mhmmkg audit                          # the default sources in ./data
    mhmmkg audit data --monster zinogre   # one monster's findings
    mhmmkg audit data --json              # for machines
    mhmmkg audit data --question-list question_list.xlsx
                                          # also check that every authors-list: citation is
                                          # backed by its row of the authors' question list
    mhmmkg audit data --cite-authors-list question_list.xlsx --write
                                          # replace the repository URL by the question-list rows
                                          # that back each fact (without --write: only count)

A source is one of three kinds: mhworlddata:<table>.csv, authors-list:<File>#route (the fact is
an entity on, or a hop of, a Search Route of that row, resolved against the KG) or
authors-list:<File>#answer (the row's Answer names the entity), or a public page's URL; the
authors' repository URL is none of them. The game tables are MHWorldData's (MIT), kept in
SOURCES/reference/mhworlddata/. The rules that turn their stars and flags into relations are in
the README ("Ground truth"). Exit code 0 when nothing is found, 1 when something is, 2 when the
input cannot be read.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.curation.provenance import AUTHORS_REPOSITORY, provenance_figures, source_kind
from mhmmkg.lexical.shortcut import MEASURES, recognition_shortcut
from mhmmkg.kg.stats import format_provenance, format_shortcut

from .authors_list import Conversion, RowIndex, citation_problems, convert_repo_citations, write_conversion
from .captions import NEAR_COPY, near_copies
from .reference import check_against_tables, read_tables

#: the most of sub-task II that surface overlap alone may answer, top-1, on each measure
SHORTCUT_CEILING = 0.40


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="?", default="data", help="curated sources folder (default: data)")
    parser.add_argument("--tables", help="folder of the MHWorldData tables (default: SOURCES/reference/mhworlddata)")
    parser.add_argument("--monster", help="report only this monster id (e.g. zinogre)")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--question-list", metavar="QUESTION_LIST.xlsx",
                        help="the authors' question list: check every authors-list: citation against its row "
                             "(without it, those citations are counted but not checked)")
    parser.add_argument("--cite-authors-list", metavar="QUESTION_LIST.xlsx",
                        help="instead of auditing: replace each source " + AUTHORS_REPOSITORY + " by the rows of the "
                             "authors' question list that back the fact (authors-list:<File>#route, #answer); where "
                             "no row does, the URL stays. Prints the counts; writes the files only with --write")
    parser.add_argument("--write", action="store_true", help="with --cite-authors-list: rewrite the sources files")


def _owned_by(kg, monster: str | None):
    """Whether a fact (entity or relation) belongs to ``monster``'s file (every fact without one)."""
    def owned(fact) -> bool:
        if monster is None:
            return True
        entity = kg.entity(fact.head) if hasattr(fact, "head") else fact
        return entity.id == monster or entity.monster == monster
    return owned


def audit(sources_dir: str | Path, tables_dir: str | Path | None = None, monster: str | None = None,
          question_list: str | Path | None = None) -> dict:
    from mhmmkg.kg.graph import KnowledgeGraph
    from mhmmkg.curation.sources import load_sources

    sources = load_sources(sources_dir)
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    if monster is not None and (monster not in kg or kg.entity(monster).type != "monster"):
        known = ", ".join(sorted(m.id for m in kg.monsters())[:20])
        raise UserError(f"--monster {monster!r}: no monster with that id in {sources_dir} (known: {known})")
    tables = read_tables(tables_dir or Path(sources_dir) / "reference" / "mhworlddata")
    owned = _owned_by(kg, monster)
    facts = [f for f in [*kg.entities, *kg.relations] if owned(f)]
    bad_citations = None
    if question_list is not None:
        index = RowIndex.read(question_list, kg)
        bad_citations = [str(p) for p in citation_problems(kg, index)
                         if owned(kg.entity(p.file) if p.file in kg else kg.relation(p.file))]
    shortcut = recognition_shortcut(kg, sources.queries, monster)
    return {
        "table_disagreements": [str(d) for d in check_against_tables(kg, sources.queries, tables, monster)],
        "near_copy_captions": [str(n) for n in near_copies(kg, monster=monster)],
        "sources_of_no_kind": [f"{f.id}: {s}" for f in facts for s in f.sources if source_kind(s) is None],
        "unbacked_authors_list_citations": bad_citations,
        "provenance": provenance_figures(kg, sources.queries),
        "recognition_shortcut": {**shortcut.figures(), "ceiling": SHORTCUT_CEILING,
                                 "answered_by_overlap": {m: list(shortcut.within(m, 1)) for m in MEASURES}},
    }


def shortcut_over_ceiling(shortcut: dict) -> list[str]:
    return [m for m in MEASURES if shortcut[f"{m}_top1"] is not None and shortcut[f"{m}_top1"] > SHORTCUT_CEILING]


def clean(findings: dict) -> bool:
    return not findings["table_disagreements"] and not findings["near_copy_captions"] \
        and not findings["sources_of_no_kind"] and not findings["unbacked_authors_list_citations"] \
        and not shortcut_over_ceiling(findings["recognition_shortcut"])


def format_findings(findings: dict) -> str:
    lines = [f"Game tables: {len(findings['table_disagreements'])} disagreement(s)"]
    lines += [f"  {d}" for d in findings["table_disagreements"]]
    lines.append(f"Near-copy attack captions (similarity >= {NEAR_COPY}): {len(findings['near_copy_captions'])}")
    lines += [f"  {n}" for n in findings["near_copy_captions"]]
    lines.append(f"Sources of no known kind (the bare repository URL included): {len(findings['sources_of_no_kind'])}")
    lines += [f"  {s}" for s in findings["sources_of_no_kind"]]
    unbacked = findings["unbacked_authors_list_citations"]
    if unbacked is None:
        lines.append("Authors'-list citations: not checked (give --question-list QUESTION_LIST.xlsx)")
    else:
        lines.append(f"Authors'-list citations not backed by their row: {len(unbacked)}")
        lines += [f"  {u}" for u in unbacked]
    lines.append("Provenance (whole KG):")
    lines += format_provenance(findings["provenance"])
    shortcut = findings["recognition_shortcut"]
    if not shortcut["measured"]:
        lines.append("Recognition shortcut: no sub-task II query to measure")
    else:
        over = shortcut_over_ceiling(shortcut)
        lines.append(f"Recognition shortcut over {shortcut['measured']} sub-task II queries: {format_shortcut(shortcut)} "
                     f"(ceiling top-1 {SHORTCUT_CEILING:.0%}" + (f"; over it: {', '.join(over)})" if over else ")"))
    return "\n".join(lines)


def cite_authors_list(sources_dir: str | Path, question_list: str | Path, write: bool) -> Conversion:
    from mhmmkg.dataset.loading import load_graph

    if not (Path(sources_dir) / "shared.json").is_file():
        raise UserError(f"{sources_dir}: not a sources folder (no shared.json): the citations are rewritten in the sources")
    conversion = convert_repo_citations(sources_dir, RowIndex.read(question_list, load_graph(sources_dir)))
    if write:
        write_conversion(conversion)
    return conversion


def run(args: argparse.Namespace) -> int:
    if args.write and not args.cite_authors_list:
        raise UserError("--write only applies with --cite-authors-list QUESTION_LIST.xlsx")
    if args.cite_authors_list:
        conversion = cite_authors_list(args.sources, args.cite_authors_list, args.write)
        print(conversion.summary() + ("" if args.write else " (dry run: add --write to rewrite them)"))
        return 0
    findings = audit(args.sources, args.tables, args.monster, args.question_list)
    print(json.dumps(findings, indent=2) if args.json else format_findings(findings))
    return 0 if clean(findings) else 1
