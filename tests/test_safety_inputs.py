"""Nothing let in, and no crash: inputs stay inside their root after resolving symlinks, only
plain media containers are decoded, and hostile files end in exit code 2 with file, place and
reason (issue 11)."""
from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path

import pytest

from conftest import TINY_QUERIES, write_json
from media_factory import make_image, make_video
from mhmmkg.cli import main


def build(src: Path, out: Path, capsys) -> tuple[int, str]:
    code = main(["build", "--src", str(src), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def set_media(src: Path, media: dict, entity: int = 2) -> None:
    path = src / "monsters" / "wolf.json"
    doc = json.loads(path.read_text())
    doc["entities"][entity]["media"] = media
    write_json(path, doc)


def png_claiming(width: int, height: int) -> bytes:
    """A valid little PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


# ---------------------------------------------------------------------------------------------
# containment of source files and media

def test_symlinked_media_file_outside_the_sources_is_refused(tiny_sources, tmp_path, capsys):
    secret = make_image(tmp_path / "private" / "secret.png")
    (tiny_sources / "media").mkdir()
    (tiny_sources / "media" / "slam.png").symlink_to(secret)
    set_media(tiny_sources, {"images": ["media/slam.png"]})
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "/entities/2/media/images/0" in err and "outside the sources folder" in err, err
    assert not (tmp_path / "ds").exists()


def test_symlinked_media_folder_outside_the_sources_is_refused(tiny_sources, tmp_path, capsys):
    make_image(tmp_path / "private" / "secret.png")
    (tiny_sources / "media").symlink_to(tmp_path / "private")
    set_media(tiny_sources, {"keyframe_images": ["media/secret.png"]})
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "/entities/2/media/keyframe_images/0" in err and "outside the sources folder" in err, err


def test_symlinked_source_file_outside_the_sources_is_refused(tiny_sources, tmp_path, capsys):
    outside = write_json(tmp_path / "elsewhere" / "bear.json", {
        "monster": "bear", "entities": [{"id": "bear", "name": "Bear", "type": "monster"}], "relations": []})
    (tiny_sources / "monsters" / "bear.json").symlink_to(outside)
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "monsters/bear.json" in err and "outside the sources folder" in err, err


def test_a_fifo_as_media_is_not_opened(tiny_sources, tmp_path, capsys):
    (tiny_sources / "media").mkdir()
    os.mkfifo(tiny_sources / "media" / "pipe.png")
    set_media(tiny_sources, {"images": ["media/pipe.png"]})
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "not a regular file: media/pipe.png" in err, err


def test_an_hls_playlist_is_not_followed(tiny_sources, tmp_path, capsys):
    clip = make_video(tmp_path / "private" / "clip.mp4", seconds=1)
    playlist = (f"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n{clip}\n#EXT-X-ENDLIST\n")
    (tiny_sources / "media").mkdir()
    (tiny_sources / "media" / "clip.m3u8").write_text(playlist)
    (tiny_sources / "media" / "disguised.mp4").write_text(playlist)
    set_media(tiny_sources, {"video": "media/clip.m3u8"}, entity=2)
    set_media(tiny_sources, {"video": "media/disguised.mp4"}, entity=3)
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2, err
    assert "/entities/2/media/video: media/clip.m3u8: not an accepted video container format" in err
    assert "/entities/3/media/video: media/disguised.mp4: cannot decode video" in err


def test_a_decompression_bomb_png_is_refused(tiny_sources, tmp_path, capsys):
    (tiny_sources / "media").mkdir()
    (tiny_sources / "media" / "bomb.png").write_bytes(png_claiming(60_000, 60_000))
    set_media(tiny_sources, {"images": ["media/bomb.png"]})
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "/entities/2/media/images/0: media/bomb.png: image" in err and "pixels" in err, err


def test_import_official_copies_nothing_from_outside_the_release(tmp_path, capsys):
    from official_release import NODE_HEADER, NODES, write_release, write_sheet

    secret = tmp_path / "secret.png"
    make_image(secret, color=(1, 2, 3))
    root = write_release(tmp_path / "rel")
    images = root / "mmkg" / "Zinogre" / "Knowledge_Images"
    (images / "linked.png").symlink_to(secret)
    rows = [list(r) if r else r for r in NODES["Zinogre"]]
    rows[2][1] = str(secret)                                      # an absolute path
    rows[4][1] = "../../../../secret.png"                         # climbing out
    rows[5][1] = "linked.png"                                     # a symlink inside the release
    write_sheet(root / "mmkg" / "Zinogre" / "Node.xlsx", NODE_HEADER, [tuple(r) if r else r for r in rows])
    out = tmp_path / "imported"
    assert main(["import-official", str(root), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("refused, media are copied from inside the release only") == 3, err
    copied = [p for p in out.rglob("*") if p.is_file() and p.read_bytes() == secret.read_bytes()]
    assert copied == []


# ---------------------------------------------------------------------------------------------
# hostile JSON in sources

@pytest.mark.parametrize("text, where, reason", [
    ('{"monster": "wolf", "monster": "bear", "entities": [], "relations": []}', "monsters/wolf.json",
     "duplicate key 'monster'"),
    ("[" * 1500 + "]" * 1500, "monsters/wolf.json", "nested more than 64 levels deep"),
    ('{"monster": "wolf", "entities": [{"id": "wolf", "name": "Wolf\\ud800", "type": "monster"}], "relations": []}',
     "monsters/wolf.json:/entities/0/name", "lone UTF-16 surrogate"),
    ('{"monster": "wolf", "entities": [{"id": "wolf", "name": "Wo\\u0000lf", "type": "monster"}], "relations": []}',
     "monsters/wolf.json:/entities/0/name", "control character U+0000"),
    ('{"monster": "wolf", "entities": [{"id": "wolf", "name": "Wolf", "type": "monster", "text": "a\\u001bb"}], '
     '"relations": []}', "monsters/wolf.json:/entities/0/text", "control character U+001B"),
])
def test_hostile_json_in_sources(tiny_sources, tmp_path, capsys, text, where, reason):
    (tiny_sources / "monsters" / "wolf.json").write_text(text)
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and where in err and reason in err, err


def test_a_broken_monster_file_is_reported_once_without_knock_on_errors(tiny_sources, tmp_path, capsys):
    (tiny_sources / "monsters" / "wolf.json").write_text('{"monster": "wolf",')
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "1 problem(s) in the sources" in err, err
    assert "monsters/wolf.json: invalid JSON at line 1" in err


def test_a_query_that_repeats_a_ground_truth_path_is_refused(tiny_sources, tmp_path, capsys):
    doc = json.loads(json.dumps(TINY_QUERIES))
    doc["queries"][1]["paths"] = doc["queries"][1]["paths"] * 2
    write_json(tiny_sources / "queries" / "wolf.json", doc)
    code, err = build(tiny_sources, tmp_path / "ds", capsys)
    assert code == 2 and "queries/wolf.json:/queries/1/paths/1: repeats the ground-truth path /paths/0" in err, err


# ---------------------------------------------------------------------------------------------
# damaged dataset folders, submissions and run folders

def copy_dataset(tiny_dataset: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))


def test_a_corrupt_parquet_file_is_named(tiny_dataset, tmp_path, capsys, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")   # not the tables cached before
    ds = copy_dataset(tiny_dataset, tmp_path)
    parquet = next((ds / "data" / "graph").glob("*.parquet"))
    data = parquet.read_bytes()
    parquet.write_bytes(data[: len(data) // 2])
    assert main(["info", str(ds)]) == 2
    err = capsys.readouterr().err
    message = err.strip().splitlines()[-1]          # (datasets logs the failure too, above ours)
    assert message.startswith("mhmmkg info: error:"), err
    assert "cannot read config 'graph'" in message and parquet.name in message


@pytest.mark.parametrize("text", ["[1, 2]", "{", '{"format": "mh-mmkg/1", "files": []}'])
def test_a_corrupt_manifest_is_a_clear_error(tiny_dataset, tmp_path, capsys, text):
    ds = copy_dataset(tiny_dataset, tmp_path)
    (ds / "manifest.json").write_text(text)
    sub = tmp_path / "sub.jsonl"
    sub.write_text('{"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]}\n')
    assert main(["validate", str(sub), "--dataset", str(ds)]) in (0, 2)
    assert "Traceback" not in capsys.readouterr().err
    assert main(["push", "--repo-id", "org/x", "--dataset", str(ds)]) == 2
    assert "manifest" in capsys.readouterr().err


def test_broken_card_yaml_is_named(tiny_dataset, tmp_path, capsys):
    ds = copy_dataset(tiny_dataset, tmp_path)
    card = ds / "README.md"
    card.write_text(card.read_text().replace("configs:", "configs: [", 1))
    assert main(["info", str(ds)]) == 2
    err = capsys.readouterr().err
    assert f"{card}: the dataset card's YAML header is broken at line" in err, err


@pytest.mark.parametrize("line, reason", [
    ('{"query_id": "wolf-001", "answer": "x", "paths": [], "meta": ' + "[" * 1500 + "]" * 1500 + "}",
     "nested more than 64 levels deep"),
    ('{"query_id": "wolf-001", "answer": "\\udc80", "paths": []}', "/answer: string holds a lone UTF-16 surrogate"),
])
def test_hostile_submission_lines(tiny_sources, tmp_path, capsys, line, reason):
    sub = tmp_path / "sub.jsonl"
    sub.write_text(line + "\n")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    err = capsys.readouterr().err
    assert f"{sub}:1" in err and reason in err and "Traceback" not in err, err


def test_deeply_nested_run_metadata(tiny_sources, tmp_path, capsys):
    sub = tmp_path / "sub.jsonl"
    sub.write_text('{"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]}\n')
    (tmp_path / "sub.meta.json").write_text("{\"a\": " + "[" * 1500 + "]" * 1500 + "}")
    assert main(["validate", str(sub), "--dataset", str(tiny_sources)]) == 2
    err = capsys.readouterr().err
    assert "sub.meta.json" in err and "nested more than 64 levels deep" in err, err


def test_a_fifo_given_to_validate_does_not_block(tiny_sources, tmp_path, capsys):
    fifo = tmp_path / "sub.jsonl"
    os.mkfifo(fifo)
    assert main(["validate", str(fifo), "--dataset", str(tiny_sources)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_huge_bootstrap_is_refused_before_any_work(tiny_sources, tmp_path, capsys):
    sub = tmp_path / "sub.jsonl"
    sub.write_text('{"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]}\n')
    assert main(["evaluate", str(sub), "--dataset", str(tiny_sources), "--bootstrap", "2000000000"]) == 2
    assert "--bootstrap 2000000000: expected 0 (no intervals) to 100,000" in capsys.readouterr().err


def test_a_results_line_without_query_id_is_named(tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["run", "--setting", "know", "--dataset", str(tiny_sources), "--out", str(out), "--quiet", "--limit", "2"]
    assert main(argv) == 0
    results = out / "results.jsonl"
    lines = results.read_text().splitlines()
    lines[1] = json.dumps({k: v for k, v in json.loads(lines[1]).items() if k != "query_id"})
    results.write_text("\n".join(lines) + "\n")
    assert main([*argv, "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"{results}: line 2: no query_id" in err and "Traceback" not in err, err


@pytest.mark.parametrize("flag, value", [("--timeout", "0"), ("--timeout", "-1"), ("--max-retries", "-1"),
                                         ("--limit", "-1"), ("--limit", "0")])
def test_bad_numbers_for_run_are_refused(tiny_sources, tmp_path, capsys, flag, value):
    out = tmp_path / "run"
    assert main(["run", "--setting", "know", "--dataset", str(tiny_sources), "--out", str(out), flag, value]) == 2
    assert flag in capsys.readouterr().err
    assert not out.exists()
