"""``mhmmkg info`` on a built folder prints the statistics its build stored in the manifest, only
when every file is the build's; they are what computing them from the loaded files gives."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from mhmmkg import load_graph, load_queries
from mhmmkg.builders.build import build_dataset
from mhmmkg.cli import main
from mhmmkg.kg import stats as stats_module
from mhmmkg.kg.stats import compute_stats, format_stats, stored_stats
from test_build import add_media


def _info(capsys, folder, *flags) -> str:
    assert main(["info", str(folder), *flags]) == 0
    return capsys.readouterr().out


def _computed(folder) -> dict:
    """The slow path: the statistics of what loading the folder gives."""
    return compute_stats(load_graph(folder), load_queries(folder))


@pytest.fixture
def built(tiny_sources, tmp_path):
    add_media(tiny_sources)
    out = tmp_path / "ds"
    build_dataset(tiny_sources, out, quiet=True)
    return out


def test_stored_statistics_are_those_computed_from_the_loaded_files(built, capsys):
    assert stored_stats(built) == _computed(built)
    assert _info(capsys, built) == format_stats(_computed(built)) + "\n"
    assert _info(capsys, built, "--json") == json.dumps(_computed(built), indent=2) + "\n"


def test_an_edited_parquet_file_is_never_reported_with_stale_statistics(built, capsys):
    stale = _info(capsys, built, "--json")
    graph = next((built / "data" / "graph").glob("*.parquet"))
    table = pq.read_table(graph)
    pq.write_table(table.slice(0, table.num_rows - 1), graph)     # one relation fewer
    assert stored_stats(built) is None
    fresh = _info(capsys, built, "--json")
    assert fresh != stale
    assert json.loads(fresh) == _computed(built)
    assert json.loads(fresh)["relations"] == json.loads(stale)["relations"] - 1


def test_statistics_stored_by_other_code_are_computed_again(built, capsys, monkeypatch):
    monkeypatch.setattr(stats_module, "stats_code_hash", lambda: "0" * 64)
    assert stored_stats(built) is None
    assert _info(capsys, built) == format_stats(_computed(built)) + "\n"


def test_a_manifest_without_statistics_or_a_sources_folder_computes_them(built, tiny_sources, capsys):
    manifest = json.loads((built / "manifest.json").read_text())
    expected = manifest.pop("stats")["figures"]
    (built / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    assert stored_stats(built) is None
    assert json.loads(_info(capsys, built, "--json")) == expected
    assert stored_stats(tiny_sources) is None
