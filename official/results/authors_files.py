"""The authors' own files where ``mhmmkg evaluate`` meets them: their result files, and the
routes of their question list spelt as their evaluation.py compares them.

Their script reads each ``Search Route`` cell by splitting on ';' and '>' (nothing stripped;
a trailing ';' leaves an empty route that still counts as a ground-truth route) and names each
node as their KG keys it: the current monster's name, a space and the node, except for monster
names and names holding "Element" or "Pierce Pod"; a monster on the route becomes the prefix
of the nodes after it. Names are compared as strings, so a misspelt node matches nothing.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.files.jsontext import read_head, read_json_file
from mhmmkg.kg.model import Query

GLOBAL_MARKERS = ("Element", "Pierce Pod")
_DECODER = json.JSONDecoder()


def authors_route_names(search_route: str, monster_name: str, monsters: Sequence[str]) -> list[list[str]]:
    """A question list's ``Search Route`` cell as the entity keys the authors' script compares."""
    routes = []
    for route in search_route.split(";"):
        current, keys = monster_name, []
        for node in route.split(">"):
            if node == current or node == "" or any(m in node for m in GLOBAL_MARKERS) or node in monsters:
                keys.append(node)
                if node in monsters:
                    current = node
            else:
                keys.append(f"{current} {node}")
        routes.append(keys)
    return routes


def question_list_routes(path: Path, queries: Sequence[Query]) -> dict[str, list[list[str]]]:
    """Query id -> its ground-truth routes as the authors' script spells them, from their question list
    (ids numbered as ``mhmmkg import-official`` numbers a repeated File)."""
    from ..protocol import official_query_id, repeated_id
    from ..release.routes import OFFICIAL_MONSTERS
    from ..release.workbooks import read_question_list

    rows: dict[str, dict] = {}
    for row in read_question_list(path):
        if row.get("File") is None:
            continue
        qid = official_query_id(str(row["File"]))
        rows[repeated_id(qid, rows) if qid in rows else qid] = row
    known = {q.id for q in queries}
    routes = {qid: authors_route_names(str(row.get("Search Route") or ""), str(row.get("Monster Name") or ""),
                                       OFFICIAL_MONSTERS)
              for qid, row in rows.items() if qid in known}
    if not routes:
        raise UserError(f"{path}: none of its Files is a query of this dataset; give the question list the "
                        f"dataset was imported from")
    return routes


def is_authors_result(data: object) -> bool:
    """True for the JSON object the authors' main.py writes: File -> answer string or
    {"Answer": ..., "Route": ..., ...}; never for a line of a submission (it has a query_id)."""
    if not isinstance(data, dict) or not data or "query_id" in data:
        return False
    return all(isinstance(v, str) or (isinstance(v, dict) and "Answer" in v) for v in data.values())


def refuse_authors_result(path: str | Path, dataset: str) -> None:
    """Stop with the command that converts an authors' result file, instead of a schema error on it."""
    if _more_than_its_first_value(path):
        return          # JSON Lines: no single JSON document
    try:
        data = read_json_file(path, "submission")
    except UserError:
        return          # not one strict JSON document: the submission checker reports what it is
    if is_authors_result(data):
        raise UserError(f"{path}: a result file of the authors' code (a JSON object keyed by File), not a "
                        f"submission; convert it first:\n  mhmmkg import-official-results '{path}' --kg {dataset} "
                        f"--out SUB.jsonl\nthen run: mhmmkg evaluate SUB.jsonl --dataset {dataset} --protocol authors")


#: how much of a file ``_more_than_its_first_value`` reads
_HEAD_BYTES = 1 << 16


def _more_than_its_first_value(path: str | Path) -> bool:
    """True when the regular file ``path`` begins with one whole JSON value on its first line and
    more than white space follows that value, as in a submission's JSON Lines: then the file is no
    single JSON document, known from its first 64 KiB (a file of 23,800 lines took 6 ms to read
    and decode whole). False when that cannot be told from them."""
    try:
        first, _, rest = read_head(path, _HEAD_BYTES).partition(b"\n")
        text = first.decode("utf-8")
        _, end = _DECODER.raw_decode(text)
    except (OSError, ValueError, RecursionError):
        return False
    return bool(text[end:].strip(" \t\r") or rest.strip(b" \t\r\n"))
