"""The shortcuts of the sources reader (issue 23) answer as the full checks they skip: a
relation passing every check, a source file's place inside the folder, the placeholder search."""
from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import write_json
from mhmmkg import sources
from mhmmkg.model import MONSTER_PLACEHOLDER


def _read(root, *, shortcuts: bool):
    """(relations, problems) of the reader; without ``shortcuts`` every relation goes through the
    full checks (an id set aside that nothing refers to turns the shortcut off)."""
    reader = sources._Reader(root)
    pending = reader.read_kg()
    if not shortcuts:
        reader.unusable.add("no-such-entity-is-referred-to")
    reader.add_relations(pending)
    return reader.out.relations, [str(p) for p in reader.problems]


def test_relations_checked_in_full_or_by_the_shortcut_give_the_same_result(tiny_sources):
    path = tiny_sources / "monsters" / "wolf.json"
    wolf = json.loads(path.read_text())
    first = wolf["relations"][0]
    wolf["relations"] += [
        dict(first),                                          # duplicate
        {**first, "tail": first["head"]},                     # self-loop
        {**first, "head": "dark-wolf"},                       # head owned by another file
        {**first, "head": "nobody"},                          # unknown head
        {**first, "tail": "nothing"},                         # dangling edge
        {**first, "condition": "when enraged"},               # a parallel edge: valid
        {**first, "condition": "when tired", "label": "x"},   # another parallel edge: valid
    ]
    write_json(path, wolf)
    fast, slow = _read(tiny_sources, shortcuts=True), _read(tiny_sources, shortcuts=False)
    assert fast == slow
    relations, problems = fast
    assert len(problems) == 5
    assert {r.id for r in relations} >= {f"{first['head']}|{first['type']}|{first['tail']}#3"}


def test_a_source_file_is_inside_exactly_when_its_resolved_path_is(tmp_path):
    root = tmp_path / "src"
    outside = tmp_path / "elsewhere"
    (root / "monsters").mkdir(parents=True)
    outside.mkdir()
    (outside / "far.json").write_text("{}")
    (root / "monsters" / "near.json").write_text("{}")
    os.symlink(outside / "far.json", root / "monsters" / "link-out.json")
    os.symlink(root / "monsters" / "near.json", root / "monsters" / "link-in.json")
    os.symlink(outside, root / "queries")                      # a folder that leads outside
    os.symlink(root / "monsters", root / "more")               # a folder that stays inside
    reader = sources._Reader(root)
    paths = [root / "monsters" / "near.json", root / "monsters" / "link-out.json",
             root / "monsters" / "link-in.json", root / "queries" / "far.json", root / "more" / "near.json"]
    for _ in range(2):                                         # the second time from the folder cache
        assert [reader.contains(p) for p in paths] == [p.resolve().is_relative_to(root.resolve()) for p in paths]
    assert [reader.contains(p) for p in paths] == [True, False, True, False, True]


def test_placeholders_are_searched_only_where_one_can_be_wrong(tmp_path):
    texts = ["plain", "of {monster}", "{monster} and {monster}", "{{monster}", "{monster}}", "{mon{monster}",
             "ends with {", "{monster}{x}", "{monster", "}{monster}{", "{element}", ""]
    reader = sources._Reader(tmp_path)
    for text in texts:
        obj = {"monster": "m", "question": text, "extra": text, "paths": []}
        reader.unusable = {"m"}
        found = [p.reason for p in reader.query_problems(obj, set(), "f", "/queries/0")]
        wrong = [ph for ph in sources._PLACEHOLDER.findall(text) if ph != MONSTER_PLACEHOLDER]
        assert found == [f"unknown placeholder {ph} (only {MONSTER_PLACEHOLDER} is filled in)" for ph in wrong] * 2


def test_items_of_a_file_without_bad_items_are_those_the_checking_path_gives(tmp_path):
    doc = {"entities": [{"id": "a"}, {"id": "b"}, {"id": "c"}], "relations": []}
    reader = sources._Reader(tmp_path)
    for key in ("entities", "relations", "missing"):
        fast = reader.items(doc, key, set())
        checked = reader.items(doc, key, {"/nothing/0"})       # a set that names no item: the checking path
        assert fast == checked == [(f"/{key}/{i}", obj) for i, obj in enumerate(doc.get(key, []))]
    assert reader.items(doc, "entities", {"/entities/1"}) == [("/entities/0", {"id": "a"}), ("/entities/2", {"id": "c"})]
    assert reader.unusable == {"b"}


def test_file_names_sorted_and_shown_by_their_text_are_those_of_the_path_computations(tmp_path, monkeypatch):
    from mhmmkg.curation.sources import _Reader, json_files

    folder = tmp_path / "src" / "monsters"
    folder.mkdir(parents=True)
    for name in ("b.json", "a-b.json", "a.json", "A.json", "é.json", "a b.json", "_x.json", "a.b.json", "ヘ.json"):
        (folder / name).write_text("{}", encoding="utf-8")
    assert json_files(folder) == sorted(folder.glob("*.json"))

    def by_paths(root: Path, path: Path) -> str:
        try:
            return str(path.relative_to(root.parent)) if root.parent != path else str(path)
        except ValueError:
            return str(path)

    monkeypatch.chdir(tmp_path / "src")
    for root in (Path("."), Path(".."), Path("../src"), Path("/"), tmp_path / "src", Path("a/b"), Path("monsters")):
        reader = _Reader(root)
        for path in (root, root.parent, root / "shared.json", root / "monsters" / "é.json", Path("/etc/x"),
                     Path("x/y"), Path("."), Path("/"), root.parent / "other", Path("../src/monsters/a.json")):
            assert reader.display(path) == by_paths(root, path), (root, path)
