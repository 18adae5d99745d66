"""The built folder as Hub tools read it: one folder per config, and a card that is true for what
was built (files, row and byte counts, size category, origin and license, citation)."""
from __future__ import annotations

import json

import datasets
import pyarrow.dataset as pads
import pytest
import yaml

from mhmmkg.builders.build import build_dataset
from mhmmkg.builders.card import provenance_text, size_category
from mhmmkg.builders.origin import AUTHORS_REPOSITORY
from mhmmkg.cli import main
from mhmmkg.features import CONFIGS, FEATURES

from test_build import add_media


def card_of(folder) -> tuple[dict, str]:
    _, header, body = (folder / "README.md").read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(header), body


def test_each_config_has_its_own_folder_that_tools_read_alone(tiny_dataset):
    front, _ = card_of(tiny_dataset)
    paths = {c["config_name"]: c["data_files"][0]["path"] for c in front["configs"]}
    assert set(paths) == set(CONFIGS)
    rows = {"queries": 6, "graph": 14, "attributes": 12}
    for config, split in CONFIGS.items():
        folder = tiny_dataset / "data" / config
        assert paths[config].startswith(f"data/{config}/{split}-") and paths[config].endswith(".parquet")
        assert [p.name for p in folder.iterdir()] == [paths[config].split("/")[-1]]
        table = pads.dataset(folder, format="parquet").to_table()
        assert table.num_rows == rows[config] and table.column("id").null_count == 0
        assert table.schema.names == list(FEATURES[config])
    assert not list((tiny_dataset / "data").glob("*.parquet"))


def test_byte_counts_are_the_ones_datasets_computes(tiny_sources, tmp_path):
    add_media(tiny_sources)
    out = build_dataset(tiny_sources, tmp_path / "mh-mmkg", quiet=True).out
    front, _ = card_of(out)
    for info in front["dataset_info"]:
        builder = datasets.load_dataset_builder(str(out), info["config_name"], cache_dir=str(tmp_path / "cache"))
        builder.download_and_prepare()
        split = info["splits"][0]
        computed = builder.info.splits[split["name"]]
        assert (split["num_bytes"], split["num_examples"]) == (computed.num_bytes, computed.num_examples)
        assert info["dataset_size"] == builder.info.dataset_size
        assert info["download_size"] == builder.info.download_size


def test_size_category_follows_the_row_counts(tiny_dataset):
    assert [size_category(n) for n in (0, 999, 1000, 9999, 10_000, 250_000)] == \
        ["n<1K", "n<1K", "1K<n<10K", "1K<n<10K", "10K<n<100K", "100K<n<1M"]
    front, _ = card_of(tiny_dataset)
    assert front["size_categories"] == ["n<1K"]
    assert sum(i["splits"][0]["num_examples"] for i in front["dataset_info"]) == 32


def test_curated_card_licenses_its_own_content_and_cites_the_paper(tiny_dataset):
    front, body = card_of(tiny_dataset)
    assert front["license"] == "cc-by-4.0"
    assert "curated by the mhmmkg project" in body
    assert "@inproceedings{wang2025taming" in body and "Taming the Untamed" in body and "2506.17589" in body
    assert "- share of facts with a source: " in body and "- unverified count: " in body


def test_imported_release_claims_no_license_and_points_to_the_authors(tmp_path):
    from official_release import write_release

    release = write_release(tmp_path / "MH-MMKG")
    src = tmp_path / "official-src"
    assert main(["import-official", str(release), "--out", str(src), "--quiet"]) == 0
    assert json.loads((src / "origin.json").read_text())["content"] == "authors-release"
    out = build_dataset(src, tmp_path / "mh-mmkg-official", quiet=True).out
    front, body = card_of(out)
    assert front["license"] == "unknown"
    assert "cc-by-4.0" not in (out / "README.md").read_text().lower().replace("cc by 4.0", "")
    assert "curated by the mhmmkg project" not in body
    assert AUTHORS_REPOSITORY in body and "carries no license" in body


def test_questions_imported_onto_a_curated_kg_are_not_claimed_as_ours(tmp_path):
    import shutil

    from official_release import write_release

    release = write_release(tmp_path / "MH-MMKG", with_media=False)
    xlsx = release / "questions_mh" / "question_list.xlsx"
    assert main(["import-official", str(release), "--out", str(tmp_path / "release-src"), "--quiet"]) == 0
    curated = tmp_path / "curated-src"  # the same KG, as if curated for this project
    shutil.copytree(tmp_path / "release-src", curated, ignore=shutil.ignore_patterns("origin.json", "queries"))
    for kg, expected in ((curated, "authors-questions"), (tmp_path / "release-src", "authors-release")):
        out = tmp_path / f"questions-on-{kg.name}"
        assert main(["import-official", str(xlsx), "--kg", str(kg), "--out", str(out)]) == 0
        assert json.loads((out / "origin.json").read_text())["content"] == expected
    front, body = card_of(build_dataset(tmp_path / "questions-on-curated-src", tmp_path / "out", quiet=True).out)
    assert front["license"] == "unknown"
    assert "question list of the paper's authors" in body and AUTHORS_REPOSITORY in body


def test_unknown_origin_is_a_clear_error_naming_the_file(tiny_sources, tmp_path, capsys):
    (tiny_sources / "origin.json").write_text(json.dumps({"content": "ours-really"}))
    assert main(["build", "--src", str(tiny_sources), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "origin.json:/content" in err and "'ours-really'" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("figures, expected", [
    ({"with_source": 0.8125, "unverified": 3}, ["share of facts with a source: 81.2%", "unverified count: 3"]),
    ({"unverified": {"entities": 2, "relations": 5}, "queries_on_unverified": 4,
      "entities_with_source": {"monster": 1.0, "prop": 0.5}},
     ["unverified count: 7 (entities 2, relations 5)", "queries on unverified: 4",
      "entities with source: monster 100.0%, prop 50.0%"]),
])
def test_provenance_figures_are_shown_when_the_statistics_hold_them(figures, expected):
    text = provenance_text({"provenance": figures})
    assert text.splitlines() == [f"- {line}" for line in expected]
