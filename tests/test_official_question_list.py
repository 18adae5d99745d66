"""The authors' real question list (../shared/official/question_list.xlsx), when it is present.

It is not ours to commit: the tests read it where it lies and skip without it. The KG the
routes resolve against is generated here from the routes themselves, so the figures do not
depend on how far the curation of data/ has come.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import OFFICIAL_DIR, write_json
from mhmmkg.builders.official.workbooks import read_question_list
from mhmmkg.builders.official.kg import global_type, shared_id, slugify
from mhmmkg.builders.official.queries import convert_template, is_text_only
from mhmmkg.builders.official.routes import OFFICIAL_MONSTERS, route_syntax_problem, split_routes
from mhmmkg.cli import main
from mhmmkg.model import Query
from mhmmkg.render import render_question

QUESTION_LIST = OFFICIAL_DIR / "question_list.xlsx"
pytestmark = pytest.mark.skipif(not QUESTION_LIST.is_file(), reason=f"{QUESTION_LIST} not present")


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return read_question_list(QUESTION_LIST)


def kg_from_routes(rows: list[dict], root: Path) -> Path:
    """A sources folder holding exactly the entities and edges the routes walk, named as the routes name them."""
    shared: dict[str, list] = {"entities": [], "relations": []}
    files: dict[str, dict] = {}
    edges: set[tuple[str, str]] = set()

    def monster(name: str) -> str:
        mid = slugify(name)
        files.setdefault(mid, {"monster": mid, "entities": [{"id": mid, "name": name, "type": "monster"}],
                               "relations": []})
        return mid

    def entity(doc_entities: list, eid: str, name: str, type_: str) -> None:
        for e in doc_entities:
            if e["id"] == eid:
                if name != e["name"] and name not in e.setdefault("aliases", []):
                    e["aliases"].append(name)
                return
        doc_entities.append({"id": eid, "name": name, "type": type_})

    for row in rows:
        for names in split_routes(row["Search Route"]):
            current, previous = row["Monster Name"], None
            for name in names:
                if name in OFFICIAL_MONSTERS:
                    current, eid = name, monster(name)
                elif global_type(name):
                    eid = shared_id(global_type(name), name)
                    entity(shared["entities"], eid, name, global_type(name))
                else:
                    eid = f"{monster(current)}.{slugify(name)}"
                    entity(files[monster(current)]["entities"], eid, name, "attack_action")
                if previous and previous != eid and (previous, eid) not in edges:
                    edges.add((previous, eid))
                    shared_head = any(e["id"] == previous for e in shared["entities"])
                    owner = shared if shared_head else files[previous.split(".")[0]]
                    owner["relations"].append({"head": previous, "type": "has_attack_action", "tail": eid})
                previous = eid
    write_json(root / "shared.json", shared)
    for mid, doc in files.items():
        write_json(root / "monsters" / f"{mid}.json", doc)
    return root


def test_every_row_and_route_parses(rows):
    assert len(rows) == 238
    assert [r["row"] for r in rows if route_syntax_problem(r["Search Route"])] == []
    assert sum(len(split_routes(r["Search Route"])) for r in rows) == 265


def test_all_rows_import_against_a_kg_holding_their_routes(rows, tmp_path, capsys):
    kg = kg_from_routes(rows, tmp_path / "kg")
    out = tmp_path / "out"
    assert main(["import-official", str(QUESTION_LIST), "--kg", str(kg), "--out", str(out), "--quiet"]) == 0
    summary = capsys.readouterr().out
    assert "queries: 238/238 rows imported (I 24, II 109, III 28, IV 29, V 35, VI 13; 25 text-only), " \
           "topic monsters: 22" in summary
    assert "routes: 265/265 resolved to walks in the KG (100.0%)" in summary
    queries = json.loads((out / "queries" / "official.json").read_text())["queries"]
    assert Counter(q["subtask"] for q in queries) == {1: 24, 2: 109, 3: 28, 4: 29, 5: 35, 6: 13}
    assert len({q["monster"] for q in queries}) == 22
    assert sum(1 for q in queries if "perception" not in q) == 25
    assert len({q["id"] for q in queries}) == 238
    keyed = [q for q in queries if "key" in q]
    kinds = Counter(q["key"]["kind"] for q in keyed)
    assert (f"answer keys: {len(keyed)} derived from Answer and Search Route (entity {kinds['entity']}, "
            f"yes_no {kinds['yes_no']}), {238 - len(keyed)} left without a key") in summary
    assert set(kinds) == {"entity", "yes_no"} and len(keyed) > 100 and all(q["key"]["origin"] == "derived" for q in keyed)
    for q in keyed:
        if q["key"]["kind"] == "yes_no":
            assert q["answer"].lower().startswith(q["key"]["polarity"])
        else:
            assert q["key"]["entities"][0] in {p[-1] for p in q["paths"]}


def _query(row: dict) -> Query:
    return Query(id="q", subtask=1, question=convert_template(row["Question"]), monster=slugify(row["Monster Name"]),
                 answer="a", paths=(("m",),), extra=convert_template(row["Extra Information"]),
                 perception=row["Perception"], has_media=not is_text_only(row["File"]))


def _words(text: str) -> list[str]:
    """Words, ignoring case, spacing, punctuation and possessive endings."""
    return re.findall(r"[a-z0-9]+", re.sub(r"['’]s\b|['’]", "", text.lower()))


def test_open_style_of_every_row_is_the_authors_text_put_right(rows):
    for row in rows:
        name = row["Monster Name"]
        text = render_question(_query(row), name)
        assert _words(text) == _words(render_question(_query(row), name, style="official")), row["row"]
        assert text.startswith(f"I am playing 'Monster Hunter: World' and fighting with {name}. "), row["row"]
        assert "  " not in text and "{" not in text and "}" not in text and text == text.strip(), row["row"]
        assert not re.search(r"[A-Za-z0-9]" + re.escape(name) + "|" + re.escape(name) + r"[A-Za-z0-9]", text), row["row"]
        assert not re.search(r"[.?!] [a-z]", text), row["row"]
        assert not re.search(re.escape(name) + r"['’](?!s)", text) or name.endswith("s"), row["row"]


def test_open_style_without_names_withholds_the_name_except_for_text_only_rows(rows):
    for row in rows:
        name = row["Monster Name"]
        text = render_question(_query(row), name, use_name=False)
        if is_text_only(row["File"]):
            assert text.startswith(f"I am playing 'Monster Hunter: World' and fighting with {name}. "), row["row"]
            continue
        assert text.startswith("I am playing 'Monster Hunter: World'. "), row["row"]
        literal = name in (row["Question"] + (row["Extra Information"] or ""))
        assert literal or name not in text, row["row"]


def _authors_question_function():
    """The authors' own ``question_organize`` from their data_loading.py, compiled alone from its
    syntax tree (nothing else of their module runs), or a skip when their code is absent."""
    import ast

    source = OFFICIAL_DIR / "code" / "things" / "data_loading.py"
    if not source.is_file():
        pytest.skip(f"{source} not present")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "question_organize"]
    assert found, f"{source} has no question_organize"
    namespace: dict = {}
    exec(compile(ast.Module(body=found, type_ignores=[]), str(source), "exec"), namespace)
    return namespace["question_organize"]


@pytest.fixture(scope="module")
def imported(rows, tmp_path_factory):
    """The question list imported with `mhmmkg import-official`, as loaded queries by row."""
    from mhmmkg.loading import load_queries

    root = tmp_path_factory.mktemp("imported")
    out = root / "out"
    assert main(["import-official", str(QUESTION_LIST), "--kg", str(kg_from_routes(rows, root / "kg")),
                 "--out", str(out), "--quiet"]) == 0
    queries = load_queries(out)
    assert len(queries) == len(rows)
    return dict(zip((r["row"] for r in rows), queries))


@pytest.mark.parametrize("use_name, use_extra", [(True, True), (False, True), (True, False), (False, False)])
def test_official_style_of_every_imported_row_is_what_the_authors_code_builds(rows, imported, use_name, use_extra):
    """Their code reads the list with pandas: empty cells are NaN, text keeps its spaces."""
    pandas = pytest.importorskip("pandas")
    authors = _authors_question_function()
    frame = pandas.read_excel(QUESTION_LIST)
    assert len(frame) == len(rows)
    differ = 0
    for row, (_, cells) in zip(rows, frame.iterrows()):
        expected = authors(cells["File"], cells["Question"], cells["Monster Name"], cells["Extra Information"],
                           use_name, use_extra)
        query = imported[row["row"]]
        assert render_question(query, cells["Monster Name"], use_name=use_name, use_extra=use_extra,
                               style="official") == expected, row["row"]
        differ += render_question(query, cells["Monster Name"], use_name=use_name, use_extra=use_extra) != expected
    assert differ > 0      # the open style really is a different text
