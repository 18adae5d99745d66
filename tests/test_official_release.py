"""Importing the authors' full release (Excel KG, media, question list) and building it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mhmmkg.cli import main
from mhmmkg.sources import load_sources

from official_release import (EXPECTED_ENTITIES, EXPECTED_PATHS, EXPECTED_RELATIONS, NODE_HEADER, NODES,
                              RELATION_HEADER, RELATIONS, write_release, write_sheet)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("release") / "MH-MMKG")


@pytest.fixture(scope="module")
def imported(release, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("imported") / "official-src"
    assert main(["import-official", str(release), "--out", str(out), "--quiet"]) == 0
    return out


def _graph_facts(entities, relations):
    ents = {e.id: (e.name, e.type, e.monster) for e in entities}
    rels = {(r.head, r.type, r.tail, r.label, r.condition, r.info) for r in relations}
    return ents, rels


def test_release_round_trips_into_a_built_dataset_whose_graph_matches(imported, tmp_path):
    from mhmmkg import load_graph, load_queries
    from mhmmkg.builders.build import build_dataset

    out = tmp_path / "mh-mmkg-official"
    build_dataset(imported, out, quiet=True)
    kg = load_graph(out)
    entities, relations = _graph_facts(kg.entities, kg.relations)
    assert entities == EXPECTED_ENTITIES
    assert relations == EXPECTED_RELATIONS
    queries = {q.id: q for q in load_queries(out, with_images=True)}
    assert {qid: [list(p) for p in q.paths] for qid, q in queries.items()} == EXPECTED_PATHS
    assert len(queries["Zinogre_Double-Slam"].images) == 10  # 12 frames in the folder, 10 kept
    assert queries["Zinogre_Subspecies"].has_media and len(queries["Zinogre_Subspecies"].images) == 1
    assert not queries["Zinogre_Pure-Text1"].has_media


def test_entities_keep_text_captions_and_media(imported):
    sources = load_sources(imported)
    slam = sources.entities["zinogre.double-slam"]
    assert (slam.caption, slam.text) == ("Rears up and slams both paws twice.", "Deals thunder damage.")
    media = sources.entity_media["zinogre.double-slam"]
    assert [Path(p).name for p in media.keyframe_images] == ["frame1.png", "frame2.png", "frame10.png"]
    assert media.video.endswith("Knowledge_Videos/Double Slam.mp4")
    assert sources.entity_media["zinogre.back-slam"].images[0].endswith("Back Slam.png")  # entry said "back slam.PNG"
    assert "zinogre.ghost-move" not in sources.entity_media  # its video is missing: a warning, no media
    assert sources.entities["element.thunder"].text == "Lightning damage."  # a global row inside a monster's sheet
    flash = sources.entities["prop.flash-pod"]  # listed by both monsters: merged into one shared prop
    assert (flash.text, flash.caption) == ("Blinds it while it flies.", "A flash of light.")
    for media in list(sources.entity_media.values()) + list(sources.query_media.values()):
        for rel in media.images + media.keyframe_images + ((media.video,) if media.video else ()):
            assert (imported / rel).is_file()


def test_queries_convert_templates_types_and_answers(imported):
    doc = json.loads((imported / "queries" / "official.json").read_text())
    queries = {q["id"]: q for q in doc["queries"]}
    first = queries["Zinogre_Double-Slam"]
    assert first["subtask"] == 3 and first["monster"] == "zinogre"
    assert first["question"] == "What will{monster} do next?"  # kept as written: the official style needs it
    assert first["extra"] == "{monster} is under Charged Phase"
    assert queries["Zinogre_Count"]["subtask"] == 2 and queries["Zinogre_Count"]["answer"] == "2"
    assert "perception" not in queries["Zinogre_Pure-Text1"] and "media" not in queries["Zinogre_Pure-Text1"]
    assert queries["Stygian-Zinogre_Stop"]["media"]["keyframe_images"][0].endswith("Stop Frames/a.jpg")


def test_import_reports_what_it_did_and_warns_about_gaps(release, tmp_path, capsys):
    out = tmp_path / "src"
    assert main(["import-official", str(release), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "KG: 2 monsters, 27 entities, 20 relations" in captured.out
    assert "queries: 5/5 rows imported (I 1, II 1, III 1, IV 0, V 1, VI 1; 2 text-only)" in captured.out
    assert "routes: 8/8 resolved to walks in the KG (100.0%)" in captured.out
    assert "Ghost Move.mp4" in captured.err  # missing video
    assert "'Zinogre Spark Trail' has no row in Node.xlsx" in captured.err
    assert "keyframe folder has 12 images; kept 10" in captured.err


def test_import_is_deterministic(release, imported, tmp_path):
    again = tmp_path / "again"
    assert main(["import-official", str(release), "--out", str(again), "--quiet"]) == 0
    files = sorted(p.relative_to(imported) for p in imported.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert all((imported / f).read_bytes() == (again / f).read_bytes() for f in files)


def test_existing_output_is_kept_unless_forced(release, tmp_path, capsys):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["import-official", str(release), "--out", str(out), "--quiet"]) == 2
    assert "exists and is not a sources folder" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"
    assert main(["import-official", str(release), "--out", str(out), "--quiet", "--force"]) == 2
    assert "not a sources folder made by 'mhmmkg import-official'" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"
    imported = tmp_path / "imported"
    assert main(["import-official", str(release), "--out", str(imported), "--quiet"]) == 0
    assert main(["import-official", str(release), "--out", str(imported), "--quiet"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["import-official", str(release), "--out", str(imported), "--quiet", "--force"]) == 0
    assert (imported / "shared.json").is_file()


def test_without_mmkg_the_command_asks_for_a_kg(tmp_path, capsys):
    (tmp_path / "questions_mh").mkdir()
    assert main(["import-official", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "--kg" in capsys.readouterr().err


def _release_with_relation(tmp_path: Path, phrase: str) -> Path:
    root = write_release(tmp_path / "rel", with_media=False)
    rows = RELATIONS["Zinogre"] + [("Double Slam", phrase, None, None, "Bite")]
    write_sheet(root / "mmkg" / "Zinogre" / "Relations.xlsx", RELATION_HEADER, rows)
    return root


def test_unknown_relation_phrase_fails_with_file_and_row_until_mapped(tmp_path, capsys):
    root = _release_with_relation(tmp_path, "zaps into")
    out = tmp_path / "out"
    assert main(["import-official", str(root), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Zinogre/Relations.xlsx:row 17: unknown relation phrase 'zaps into'" in err
    assert not out.exists()
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"zaps into": "causes"}))
    assert main(["import-official", str(root), "--out", str(out), "--quiet", "--relation-map", str(mapping)]) == 0
    relations = load_sources(out).relations
    assert any(r.head == "zinogre.double-slam" and r.tail == "zinogre.bite" and r.label == "zaps into"
               and r.type == "causes" for r in relations)


def test_relation_map_with_an_unknown_base_type_is_refused(tmp_path, capsys):
    root = _release_with_relation(tmp_path, "zaps into")
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"zaps into": "zaps"}))
    assert main(["import-official", str(root), "--out", str(tmp_path / "o"), "--relation-map", str(mapping)]) == 2
    assert "unknown base type 'zaps'" in capsys.readouterr().err


def test_node_sheet_with_missing_columns_names_file_and_row(tmp_path, capsys):
    root = write_release(tmp_path / "rel", with_media=False)
    write_sheet(root / "mmkg" / "Zinogre" / "Node.xlsx", NODE_HEADER[:3], [r[:3] if r else None for r in NODES["Zinogre"]])
    assert main(["import-official", str(root), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Zinogre/Node.xlsx:row 1: missing column(s): expected 5 columns" in err and "found 3" in err


def test_problems_of_several_files_are_reported_together(tmp_path, capsys):
    root = write_release(tmp_path / "rel", with_media=False)
    (root / "mmkg" / "Stygian Zinogre" / "Relations.xlsx").write_bytes(b"not a workbook")
    write_sheet(root / "mmkg" / "Zinogre" / "Node.xlsx", NODE_HEADER, [("Bite", None, None, None, None), (None, "x.png")])
    assert main(["import-official", str(root), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Stygian Zinogre/Relations.xlsx: not a readable .xlsx workbook" in err
    assert "Zinogre/Node.xlsx:row 3: entity name (column 1) is empty" in err


@pytest.mark.parametrize("phrase, expected", [
    ("has attack action", "has_attack_action"), ("Continues With", "continues_with"),
    ("has attack variant", "has_attack_variant"), ("has phase", "has_attack_phase"),
    ("change phase to", "changes_phase_to"), ("is mostly weak to", "mostly_weak_to"),
    ("is weak to", "weak_to"), ("is resistant to", "resistant_to"),
    ("provides materials for", "provides_materials_for"), ("can be stopped by", "can_be_stopped_by"),
    ("generates", "generates"), ("causes", "causes"), ("turns to", "turns_to"),
    ("is mated pair with", "mated_pair_with"), ("has subspecies", "has_subspecies"),
    ("is subspecies of", "subspecies_of"), ("mated_pair_with", "mated_pair_with"),
    ("continues with (if the hunter is close)", "continues_with"), ("levitates", None),
    ("gives material to", "provides_materials_for"), ("mates with", "mated_pair_with"),
    ("has variation", "has_attack_variant"), ("can be interrupted by", "can_be_stopped_by"),
])
def test_relation_phrases_map_to_base_types(phrase, expected):
    from mhmmkg.builders.official.kg import relation_type

    assert relation_type(phrase) == expected


@pytest.mark.parametrize("phrase, expected", [
    ("continues with", ("continues with", None)),
    ("continues with (if the hunter is close)", ("continues with", "if the hunter is close")),
    ("continues with  when enraged", ("continues with", "when enraged")),
])
def test_a_constraint_inside_a_relation_phrase_becomes_the_condition(phrase, expected):
    from mhmmkg.builders.official.kg import split_constraint

    assert split_constraint(phrase) == expected
