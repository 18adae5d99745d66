"""Reading a built dataset by the columns a verb needs gives what reading every column gave."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _split_in_two(dataset: Path, config: str, tmp_path: Path) -> Path:
    """A copy of ``dataset`` whose ``config`` table is two Parquet files (the card lists both)."""
    import pyarrow.parquet as pq

    copy = Path(shutil.copytree(dataset, tmp_path / "two-files"))
    (file,) = (copy / "data" / config).glob("*.parquet")
    table = pq.read_table(file)
    half = table.num_rows // 2
    pq.write_table(table.slice(0, half), file.with_name("a-" + file.name))
    pq.write_table(table.slice(half), file.with_name("b-" + file.name))
    file.unlink()
    card = copy / "README.md"
    listed = f"data/{config}/{file.name}"
    card.write_text(card.read_text().replace(
        f"path: {listed}", f"path:\n    - data/{config}/a-{file.name}\n    - data/{config}/b-{file.name}"))
    return copy


def _everything(graph):
    return graph.entities, graph.relations, graph.entity_names()


@pytest.mark.parametrize("config", ["graph", "attributes"])
def test_a_graph_read_column_by_column_from_two_files_equals_the_graph_of_its_sources(tiny_dataset, tmp_path, config):
    from mhmmkg import load_graph

    sources = load_graph(tiny_dataset.parent / "src")
    split = load_graph(_split_in_two(tiny_dataset, config, tmp_path))
    ids = [e.id for e in sources.entities]
    assert {(a, b): split.has_edge(a, b) for a in ids for b in ids} == \
           {(a, b): sources.has_edge(a, b) for a in ids for b in ids}
    assert split.ids_of_type("monster") == sources.ids_of_type("monster")
    assert _everything(split) == _everything(sources) and len(sources.relations) > 10
    heads = {id(r.head) for r in split.relations}
    assert len(heads) == len({r.head for r in split.relations})      # one object per distinct value


def test_checking_walks_reads_only_the_ids_types_heads_and_tails(tiny_dataset, monkeypatch):
    from mhmmkg import load_graph
    from mhmmkg.dataset import loading

    read = []
    real = loading._read_table
    monkeypatch.setattr(loading, "_read_table", lambda source, config, split, columns, dictionary=(): (
        read.append((config, sorted(columns))) or real(source, config, split, columns, dictionary)))
    graph = load_graph(tiny_dataset)
    assert graph.is_walk(["wolf", "wolf.bite"]) and "wolf" in graph.ids_of_type("monster")
    assert read == [("attributes", ["id", "type"]), ("graph", ["head", "tail"])]
    eager = load_graph(tiny_dataset.parent / "src")
    assert _everything(graph) == _everything(eager)
    for config, every in (("attributes", ["id", *loading._Entities.FIELDS]),
                          ("graph", ["head", "tail", *loading.RELATION_FIELDS])):      # each column read once
        assert sorted(c for where, columns in read if where == config for c in columns) == sorted(every)


def test_validate_imports_no_pyarrow_compute(tiny_dataset, tmp_path):
    """``pyarrow.compute`` (20 ms to import) is not needed to check a submission."""
    sub = tmp_path / "sub.jsonl"
    sub.write_text('{"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf", "wolf.bite"]], '
                   '"topic": "wolf"}\n')
    code = ("import sys\nfrom mhmmkg.cli import main\n"
            f"assert main(['validate', {str(sub)!r}, '--dataset', {str(tiny_dataset)!r}]) == 0\n"
            "print(sorted(m for m in sys.modules if m.startswith('pyarrow.compute')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "[]", out


def test_query_ids_read_alone_from_two_files_are_those_of_the_queries(tiny_dataset, tmp_path):
    from mhmmkg.dataset.loading import load_queries, load_query_ids

    split = _split_in_two(tiny_dataset, "queries", tmp_path)
    assert load_query_ids(split) == [q.id for q in load_queries(split)] == [q.id for q in load_queries(tiny_dataset)]


@pytest.mark.parametrize("values", [["a", None, "b", "a"], [None, None], ["x", "y", "x", "z", None]])
def test_shared_strings_of_a_dictionary_column_equal_those_of_the_plain_column(values):
    import pyarrow as pa

    from mhmmkg.dataset.loading import _shared_strings

    plain = pa.chunked_array([pa.array(values[:2], pa.string()), pa.array(values[2:], pa.string())])
    encoded = pa.chunked_array([chunk.dictionary_encode() for chunk in plain.chunks])   # a dictionary per chunk
    assert _shared_strings(encoded) == _shared_strings(plain) == values
    assert _shared_strings(encoded, {"a": "a"}) == values


def test_a_card_changed_between_reads_is_parsed_again(tiny_dataset, tmp_path):
    from mhmmkg.dataset.loading import _data_files

    copy = Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))
    (file,) = (copy / "data" / "graph").glob("*.parquet")
    assert _data_files(copy, "graph", "kg") == [file]
    card = copy / "README.md"
    card.write_text(card.read_text().replace(f"data/graph/{file.name}", "data/graph/other.parquet"))
    assert _data_files(copy, "graph", "kg") == [copy / "data" / "graph" / "other.parquet"]
