"""The builder: determinism, atomic replace, fresh loads after a rebuild, and the media pipeline."""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import datasets
import pytest
from PIL import Image

from conftest import write_json
from media_factory import make_image, make_video
from mhmmkg import load_graph, load_queries
from mhmmkg.builders.build import build_dataset
from mhmmkg.manifest import dataset_fingerprint
from mhmmkg.builders.media import MAX_KEYFRAMES, sample_times


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def add_media(src: Path) -> None:
    """Attach an image, a large image, chosen keyframes and a sampled video to the tiny sources."""
    make_image(src / "media" / "bite.png")
    make_image(src / "media" / "big.jpg", size=(2048, 1000), fmt="JPEG")
    make_video(src / "media" / "slam.mp4", seconds=3)
    make_video(src / "media" / "long.mp4", seconds=8)
    doc = json.loads((src / "monsters" / "wolf.json").read_text())
    ents = {e["id"]: e for e in doc["entities"]}
    ents["wolf.bite"]["media"] = {"images": ["media/bite.png", "media/big.jpg"]}
    ents["wolf.double-slam"]["media"] = {"video": "media/slam.mp4", "keyframe_times": [0, 1.0, 2.5]}
    ents["wolf.back-slam"]["media"] = {"video": "media/long.mp4"}
    write_json(src / "monsters" / "wolf.json", doc)


def test_two_builds_are_byte_identical(tiny_sources, tmp_path):
    add_media(tiny_sources)
    first = build_dataset(tiny_sources, tmp_path / "a", quiet=True)
    second = build_dataset(tiny_sources, tmp_path / "b", quiet=True)
    assert tree_bytes(tmp_path / "a") == tree_bytes(tmp_path / "b")
    assert first.fingerprint == second.fingerprint == dataset_fingerprint(tmp_path / "a")


def test_manifest_lists_every_file_with_its_hash(tiny_dataset):
    import hashlib

    manifest = json.loads((tiny_dataset / "manifest.json").read_text())
    on_disk = {p.relative_to(tiny_dataset).as_posix() for p in tiny_dataset.rglob("*") if p.is_file()}
    assert set(manifest["files"]) == on_disk - {"manifest.json"}
    for rel, entry in manifest["files"].items():
        assert hashlib.sha256((tiny_dataset / rel).read_bytes()).hexdigest() == entry["sha256"]


def test_all_configs_load_offline_with_declared_features(tiny_dataset, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tiny_dataset.parent)
    queries = datasets.load_dataset(tiny_dataset.name, "queries", split="test")
    graph = datasets.load_dataset(tiny_dataset.name, "graph", split="kg")
    attributes = datasets.load_dataset(tiny_dataset.name, "attributes", split="kg")
    default = datasets.load_dataset(tiny_dataset.name)
    assert list(default) == ["test"] and default["test"].num_rows == queries.num_rows == 6
    assert graph.num_rows == 14 and attributes.num_rows == 12
    keyframes = attributes.features["keyframes"]
    item = keyframes[0] if isinstance(keyframes, list) else keyframes.feature  # datasets 3.x: [Image()]
    assert isinstance(item, datasets.Image)
    assert queries[1]["paths"] == [["wolf", "wolf.charged-phase", "wolf.double-slam"]]


def test_rebuild_after_a_source_change_loads_the_new_data(tiny_sources, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)        # a name of its own: no test makes a cache entry named mh-mmkg
    build_dataset(tiny_sources, tmp_path / "tiny-kg", quiet=True)
    assert datasets.load_dataset("./tiny-kg", "queries", split="test")[0]["answer"] == "Thunder Wolf"
    doc = json.loads((tiny_sources / "queries" / "wolf.json").read_text())
    doc["queries"][0]["answer"] = "Thunder Hound"  # same length: sizes in the YAML stay the same
    write_json(tiny_sources / "queries" / "wolf.json", doc)
    build_dataset(tiny_sources, tmp_path / "tiny-kg", quiet=True)
    assert datasets.load_dataset("./tiny-kg", "queries", split="test")[0]["answer"] == "Thunder Hound"


def test_failed_build_leaves_previous_output_untouched(tiny_sources, tmp_path):
    out = tmp_path / "mh-mmkg"
    build_dataset(tiny_sources, out, quiet=True)
    before = tree_bytes(out)
    (tiny_sources / "monsters" / "wolf.json").write_text("{ broken")
    with pytest.raises(Exception):
        build_dataset(tiny_sources, out, quiet=True)
    assert tree_bytes(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_media_pipeline_sizes_and_keyframes(tiny_sources, tmp_path):
    add_media(tiny_sources)
    out = build_dataset(tiny_sources, tmp_path / "out", quiet=True).out
    rows = {r["id"]: r for r in datasets.load_dataset(str(out), "attributes", split="kg")}
    bite = rows["wolf.bite"]
    assert [im.size for im in bite["images"]] == [(64, 48), (1024, 500)]
    assert bite["keyframes"] == [] and bite["keyframe_source"] is None
    slam = rows["wolf.double-slam"]
    assert slam["keyframe_source"] == "human" and len(slam["keyframes"]) == 3
    assert slam["video"] == (tiny_sources / "media" / "slam.mp4").read_bytes()
    gray = [im.convert("L").getpixel((5, 5)) for im in slam["keyframes"]]
    assert abs(gray[0] - 0) <= 8 and abs(gray[1] - 100) <= 8 and abs(gray[2] - 0) <= 8  # frames 0, 10, 25
    back = rows["wolf.back-slam"]
    assert back["keyframe_source"] == "sampled" and len(back["keyframes"]) == MAX_KEYFRAMES
    assert rows["wolf"]["video"] is None and rows["wolf"]["has_media"] is False


def test_sampling_is_two_fps_capped_at_ten_over_the_whole_clip():
    assert sample_times(3.0) == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert sample_times(0.2) == [0.0]
    long = sample_times(8.0)
    assert len(long) == 10 and long[0] == 0.0 and long[-1] == 7.5
    assert long == sorted(set(long))


def test_load_graph_and_queries_from_built_folder_match_sources(tiny_sources, tmp_path):
    out = build_dataset(tiny_sources, tmp_path / "out", quiet=True).out
    built, direct = load_graph(out), load_graph(tiny_sources)
    assert sorted(built.entities, key=lambda e: e.id) == sorted(direct.entities, key=lambda e: e.id)
    assert sorted(built.relations, key=lambda r: r.id) == sorted(direct.relations, key=lambda r: r.id)
    assert load_queries(out) == load_queries(tiny_sources)


def test_build_cli_reports_and_info_prints_statistics(tiny_sources, tmp_path, capsys):
    from mhmmkg.cli import main

    assert main(["build", "--src", str(tiny_sources), "--out", str(tmp_path / "ds"), "--quiet"]) == 0
    assert "built" in capsys.readouterr().out
    assert main(["info", str(tmp_path / "ds")]) == 0
    text = capsys.readouterr().out
    assert "12 entities, 14 relations" in text and "II Attack Recognition" in text


@pytest.mark.parametrize("source, reason", [
    ("not-built-here", "no dataset folder here"),
    ("someorg/not-on-this-machine", "cannot reach the dataset on the Hub"),
])
def test_loading_a_missing_dataset_is_a_clear_user_error(source, reason, tmp_path, monkeypatch):
    from mhmmkg.errors import UserError

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match=reason):
        load_graph(source)
