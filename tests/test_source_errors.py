"""Malformed curated sources: each ends in exit code 2 with a message naming file, place and
reason, and the previous dataset folder stays as it was."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import write_json
from media_factory import make_video
from mhmmkg.cli import main


def edit(rel: str, change):
    """A case that loads ``rel`` as JSON, lets ``change`` mutate it, and writes it back."""
    def apply(src: Path):
        doc = json.loads((src / rel).read_text())
        change(doc)
        write_json(src / rel, doc)
    return apply


def write_text(rel: str, text: str):
    def apply(src: Path):
        (src / rel).write_text(text)
    return apply


def wolf_entity(i: int, **fields):
    return edit("monsters/wolf.json", lambda d: d["entities"][i].update(fields))


def wolf_relation(i: int, **fields):
    return edit("monsters/wolf.json", lambda d: d["relations"][i].update(fields))


def query(i: int, **fields):
    return edit("queries/wolf.json", lambda d: d["queries"][i].update(fields))


def with_media(media: dict, make=None):
    def apply(src: Path):
        if make:
            make(src)
        wolf_entity(2, media=media)(src)
    return apply


def corrupt_file(rel: str, data: bytes):
    def apply(src: Path):
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return apply


def chain(*steps):
    def apply(src: Path):
        for step in steps:
            step(src)
    return apply


CASES = {
    # file-level
    "bad json": (write_text("monsters/wolf.json", '{"monster": "wolf",'), "monsters/wolf.json", "invalid JSON at line"),
    "not utf-8": (corrupt_file("queries/wolf.json", b"\xff\xfe{}"), "queries/wolf.json", "not UTF-8"),
    "missing shared file": (lambda s: (s / "shared.json").unlink(), "shared.json", "missing"),
    "top level not object": (write_text("shared.json", "[]"), "shared.json", "is not of type 'object'"),
    "unknown top-level field": (edit("shared.json", lambda d: d.update(extra=1)), "shared.json", "Additional properties"),
    "no monster files": (lambda s: [p.unlink() for p in (s / "monsters").glob("*.json")], "monsters", "no monster subgraph files"),
    # entities
    "missing entity name": (edit("monsters/wolf.json", lambda d: d["entities"][2].pop("name")), "/entities/2", "'name' is a required property"),
    "entity name wrong type": (wolf_entity(2, name=7), "/entities/2/name", "is not of type 'string'"),
    "empty entity name": (wolf_entity(2, name=""), "/entities/2/name", "should be non-empty"),
    "unknown entity field (typo)": (wolf_entity(2, captoin="x"), "/entities/2", "'captoin' was unexpected"),
    "unknown entity type": (wolf_entity(2, type="attack"), "/entities/2/type", "is not one of"),
    "shared type in monster file": (wolf_entity(2, type="element"), "/entities/2/type", "is not one of"),
    "bad id characters": (wolf_entity(2, id="wolf.Double Slam"), "/entities/2/id", "does not match"),
    "id not owned by monster": (wolf_entity(2, id="bear.double-slam"), "/entities/2/id", "must start with 'wolf.'"),
    "second monster in file": (wolf_entity(2, type="monster"), "/entities/2/type", "exactly one monster"),
    "monster entity missing": (edit("monsters/wolf.json", lambda d: d.update(monster="wolfy")), "/monster", "no entity of type 'monster'"),
    "duplicate id in file": (wolf_entity(3, id="wolf.double-slam"), "/entities/3/id", "duplicate id"),
    "duplicate id across files": (edit("monsters/dark-wolf.json", lambda d: d["entities"].append(
        {"id": "dark-wolf", "name": "Again", "type": "monster"})), "monsters/dark-wolf.json", "duplicate id 'dark-wolf'"),
    "aliases not unique": (wolf_entity(0, aliases=["A", "A"]), "/entities/0/aliases", "non-unique"),
    # relations
    "unknown relation type": (wolf_relation(4, type="follows"), "/relations/4/type", "is not one of"),
    "dangling edge tail": (wolf_relation(4, tail="wolf.tail-spin"), "/relations/4/tail", "dangling edge"),
    "head not in file": (wolf_relation(4, head="dark-wolf"), "/relations/4/head", "owned by this file"),
    "unknown head": (wolf_relation(4, head="wolf.nothing"), "/relations/4/head", "unknown entity"),
    "self loop": (wolf_relation(4, tail="wolf.double-slam"), "/relations/4", "self-loop"),
    "duplicate relation": (edit("monsters/wolf.json", lambda d: d["relations"].append(dict(d["relations"][4]))), "/relations/11", "duplicate relation"),
    "condition wrong type": (wolf_relation(4, condition=3), "/relations/4/condition", "is not of type"),
    "relation unknown field": (wolf_relation(4, when="x"), "/relations/4", "'when' was unexpected"),
    # queries
    "query missing answer": (edit("queries/wolf.json", lambda d: d["queries"][1].pop("answer")), "/queries/1", "'answer' is a required"),
    "subtask out of range": (query(1, subtask=7), "/queries/1/subtask", "maximum of 6"),
    "subtask as string": (query(1, subtask="II"), "/queries/1/subtask", "is not of type 'integer'"),
    "duplicate query id": (query(2, id="wolf-001"), "/queries/2/id", "duplicate id"),
    "query monster unknown": (query(1, monster="bear"), "/queries/1/monster", "not a monster"),
    "query monster not a monster": (query(1, monster="element.fire"), "/queries/1/monster", "not a monster"),
    "path not starting at topic": (query(1, paths=[["dark-wolf", "dark-wolf.double-slam"]]), "/queries/1/paths/0/0", "must start at the topic"),
    "path unknown entity": (query(1, paths=[["wolf", "wolf.tail-spin"]]), "/queries/1/paths/0/1", "unknown entity"),
    "path not a walk": (query(1, paths=[["wolf", "wolf.double-slam"]]), "/queries/1/paths/0/1", "not a walk"),
    "path against edge direction": (query(3, paths=[["wolf", "wolf.back-slam", "wolf"]]), "/queries/3/paths/0/2", "not a walk"),
    "empty path list": (query(1, paths=[]), "/queries/1/paths", "should be non-empty"),
    "unknown placeholder": (query(1, question="What is {name} doing?"), "/queries/1/question", "unknown placeholder {name}"),
    # media
    "missing media file": (with_media({"images": ["media/none.png"]}), "/entities/2/media/images/0", "media file not found"),
    "absolute media path": (with_media({"images": ["/etc/passwd"]}), "/entities/2/media/images/0", "does not match"),
    "keyframe times without video": (with_media({"images": ["a.png"], "keyframe_times": [1]}), "/entities/2/media", "'video' is a dependency"),
    "corrupt image": (with_media({"images": ["media/bad.png"]}, corrupt_file("media/bad.png", b"not a png")), "/entities/2/media/images/0", "cannot decode image"),
    "corrupt video": (with_media({"video": "media/bad.mp4"}, corrupt_file("media/bad.mp4", b"\x00" * 64)), "/entities/2/media/video", "cannot decode video"),
    "keyframe beyond video end": (with_media({"video": "media/v.mp4", "keyframe_times": [0.5, 9]}, lambda s: make_video(s / "media" / "v.mp4", seconds=2)), "/entities/2/media/video", "beyond the video's duration"),
    "empty media object": (with_media({}), "/entities/2/media", "should be non-empty"),
}


@pytest.fixture(scope="module")
def previous_output(tmp_path_factory):
    from conftest import write_tiny_sources
    from mhmmkg.builders.build import build_dataset

    root = tmp_path_factory.mktemp("prev")
    out = root / "mh-mmkg"
    build_dataset(write_tiny_sources(root / "src"), out, quiet=True)
    return out


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_source_exits_2_naming_file_and_place(case, tiny_sources, previous_output, capsys):
    mutate, where, reason = CASES[case]
    mutate(tiny_sources)
    before = {p: p.read_bytes() for p in previous_output.rglob("*") if p.is_file()}
    code = main(["build", "--src", str(tiny_sources), "--out", str(previous_output), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert where in err and reason in err, err
    assert "Traceback" not in err
    assert {p: p.read_bytes() for p in previous_output.rglob("*") if p.is_file()} == before


def test_all_problems_reported_in_one_run(tiny_sources, capsys):
    chain(wolf_entity(2, name=7), wolf_relation(4, tail="wolf.none"), query(1, subtask=9))(tiny_sources)
    assert main(["build", "--src", str(tiny_sources), "--out", str(tiny_sources.parent / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "3 problem(s)" in err
    for where in ("/entities/2/name", "/relations/4/tail", "/queries/1/subtask"):
        assert where in err
