"""Audit curated sources the way a careful player would: every weakness, ailment, trap and class
fact against the game's own tables, attack captions too alike to tell two attacks apart, and how
many recognition queries word overlap alone answers.

    mhmmkg audit                          # the default sources in ./data
    mhmmkg audit data --monster zinogre   # one monster's findings
    mhmmkg audit data --json              # for machines
    mhmmkg audit data --cite-authors-list question_list.xlsx --write
                                          # replace the repository URL by the question-list rows
                                          # that back each fact (without --write: only count)

The game tables are MHWorldData's (MIT), kept in SOURCES/reference/mhworlddata/. The rules that
turn their stars and flags into relations are in the README ("Ground truth"). Exit code 0 when
nothing is found, 1 when something is, 2 when the input cannot be read.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.shortcut import recognition_shortcut

from .authors_list import REPO_URL, Conversion, RowIndex, convert_repo_citations, write_conversion

from .captions import NEAR_COPY, near_copies
from .reference import check_against_tables, read_tables

#: the most of sub-task II that word overlap alone may answer
SHORTCUT_CEILING = 0.70


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="?", default="data", help="curated sources folder (default: data)")
    parser.add_argument("--tables", help="folder of the MHWorldData tables (default: SOURCES/reference/mhworlddata)")
    parser.add_argument("--monster", help="report only this monster id (e.g. zinogre)")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--cite-authors-list", metavar="QUESTION_LIST.xlsx",
                        help="instead of auditing: replace each source " + REPO_URL + " by the rows of the authors' "
                             "question list that back the fact (authors-list:<File>#route, #answer); where no row "
                             "does, the URL stays. Prints the counts; writes the files only with --write")
    parser.add_argument("--write", action="store_true", help="with --cite-authors-list: rewrite the sources files")


def audit(sources_dir: str | Path, tables_dir: str | Path | None = None, monster: str | None = None) -> dict:
    from mhmmkg.graph import KnowledgeGraph
    from mhmmkg.sources import load_sources

    sources = load_sources(sources_dir)
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    tables = read_tables(tables_dir or Path(sources_dir) / "reference" / "mhworlddata")
    shortcut = recognition_shortcut(kg, sources.queries, monster)
    return {
        "table_disagreements": [str(d) for d in check_against_tables(kg, sources.queries, tables, monster)],
        "near_copy_captions": [str(n) for n in near_copies(kg, monster=monster)],
        "recognition_shortcut": {"measured": len(shortcut.measured), "bm25_first": shortcut.share,
                                 "ceiling": SHORTCUT_CEILING, "answered_by_overlap": list(shortcut.first)},
    }


def clean(findings: dict) -> bool:
    share = findings["recognition_shortcut"]["bm25_first"]
    return not findings["table_disagreements"] and not findings["near_copy_captions"] \
        and (share is None or share <= SHORTCUT_CEILING)


def format_findings(findings: dict) -> str:
    lines = [f"Game tables: {len(findings['table_disagreements'])} disagreement(s)"]
    lines += [f"  {d}" for d in findings["table_disagreements"]]
    lines.append(f"Near-copy attack captions (similarity >= {NEAR_COPY}): {len(findings['near_copy_captions'])}")
    lines += [f"  {n}" for n in findings["near_copy_captions"]]
    shortcut = findings["recognition_shortcut"]
    if shortcut["bm25_first"] is None:
        lines.append("Recognition shortcut: no sub-task II query to measure")
    else:
        lines.append(f"Recognition shortcut: BM25 ranks the answer first for {shortcut['bm25_first']:.1%} of "
                     f"{shortcut['measured']} sub-task II queries (ceiling {SHORTCUT_CEILING:.0%})")
    return "\n".join(lines)


def cite_authors_list(sources_dir: str | Path, question_list: str | Path, write: bool) -> Conversion:
    from mhmmkg.loading import load_graph

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
    findings = audit(args.sources, args.tables, args.monster)
    print(json.dumps(findings, indent=2) if args.json else format_findings(findings))
    return 0 if clean(findings) else 1
