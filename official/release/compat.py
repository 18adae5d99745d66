"""Compatibility of a KG with the official search routes: which routes resolve and are walks.

    python -m mhmmkg.official.release.compat QUESTION_LIST.xlsx [SOURCES_OR_DATASET] [--monster NAME]
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from mhmmkg.errors import UserError
from mhmmkg.kg.graph import KnowledgeGraph

from .routes import Unresolved, resolve_route, split_routes, walk_problem


@dataclass(frozen=True)
class RouteReport:
    row: int
    monster: str
    route: str
    ids: list[str] | None
    problem: str | None


def check_routes(kg: KnowledgeGraph, rows: list[dict]) -> list[RouteReport]:
    """One report per official route: rows are dicts with 'row', 'Monster Name', 'Search Route'."""
    reports = []
    for row in rows:
        for names in split_routes(row["Search Route"]):
            route = ">".join(names)
            resolved = resolve_route(kg, names, row["Monster Name"])
            if isinstance(resolved, Unresolved):
                reports.append(RouteReport(row["row"], row["Monster Name"], route, None,
                                           f"{resolved.reason} (under {resolved.monster})"))
                continue
            reports.append(RouteReport(row["row"], row["Monster Name"], route, resolved, walk_problem(kg, resolved)))
    return reports


def read_question_rows(path) -> list[dict]:
    from .workbooks import read_question_list

    return read_question_list(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("question_list")
    parser.add_argument("kg", nargs="?", default="data")
    parser.add_argument("--monster", help="only rows of this official monster name")
    args = parser.parse_args(argv)
    from mhmmkg.dataset.loading import load_graph

    try:
        kg = load_graph(args.kg)
        rows = read_question_rows(args.question_list)
    except UserError as exc:
        print(f"compat: error: {exc}", file=sys.stderr)
        return 2
    if args.monster:
        rows = [r for r in rows if r["Monster Name"] == args.monster]
    reports = check_routes(kg, rows)
    bad = [r for r in reports if r.problem]
    for r in bad:
        print(f"row {r.row} [{r.monster}] {r.route}: {r.problem}")
    ok = len(reports) - len(bad)
    print(f"{ok}/{len(reports)} official routes are walks in the KG ({100 * ok / max(len(reports), 1):.1f}%)")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
