"""Audit curated sources the way a careful player would: every weakness, ailment, trap and class
fact against the game's own tables, attack captions too alike to tell two attacks apart, and how
many recognition queries word overlap alone answers.

    mhmmkg audit                          # the default sources in ./data
    mhmmkg audit data --monster zinogre   # one monster's findings
    mhmmkg audit data --json              # for machines

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

from .captions import NEAR_COPY, near_copies
from .reference import check_against_tables, read_tables

#: the most of sub-task II that word overlap alone may answer
SHORTCUT_CEILING = 0.70


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="?", default="data", help="curated sources folder (default: data)")
    parser.add_argument("--tables", help="folder of the MHWorldData tables (default: SOURCES/reference/mhworlddata)")
    parser.add_argument("--monster", help="report only this monster id (e.g. zinogre)")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def audit(sources_dir: str | Path, tables_dir: str | Path | None = None, monster: str | None = None) -> dict:
    from mhmmkg.graph import KnowledgeGraph
    from mhmmkg.sources import load_sources

    sources = load_sources(sources_dir)
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    if monster is not None and (monster not in kg or kg.entity(monster).type != "monster"):
        known = ", ".join(sorted(m.id for m in kg.monsters())[:20])
        raise UserError(f"--monster {monster!r}: no monster with that id in {sources_dir} (known: {known})")
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


def run(args: argparse.Namespace) -> int:
    findings = audit(args.sources, args.tables, args.monster)
    print(json.dumps(findings, indent=2) if args.json else format_findings(findings))
    return 0 if clean(findings) else 1
