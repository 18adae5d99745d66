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


@pytest.mark.parametrize("values", [["a", None, "b", "a", "é", None, "ゾラ", "a", "b"] * 3, ["x"] * 17, [None] * 9, []])
def test_strings_spread_from_a_dictionary_array_and_its_slices_are_those_of_the_plain_lists(values):
    """The NumPy gather of ``_spread`` (nulls read from the validity bitmap, also past a slice's
    offset that is no multiple of 8) gives what the plain list conversion gives."""
    import pyarrow as pa

    from mhmmkg.dataset.loading import _spread

    encoded = pa.array(values, pa.string()).dictionary_encode()
    for start, stop in [(0, len(values)), (3, len(values)), (5, 14), (9, 10), (2, 2)]:
        stop = min(stop, len(values))
        start = min(start, stop)
        part = encoded.slice(start, stop - start)
        spread = _spread([*part.dictionary.to_pylist(), None], part.indices)
        assert spread == values[start:stop]
        strings = [value for value in spread if value is not None]
        assert len(set(map(id, strings))) == len(set(strings))         # one object per distinct value


def test_a_card_changed_between_reads_is_parsed_again(tiny_dataset, tmp_path):
    from mhmmkg.dataset.loading import _data_files

    copy = Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))
    (file,) = (copy / "data" / "graph").glob("*.parquet")
    assert _data_files(copy, "graph", "kg") == [file]
    card = copy / "README.md"
    card.write_text(card.read_text().replace(f"data/graph/{file.name}", "data/graph/other.parquet"))
    assert _data_files(copy, "graph", "kg") == [copy / "data" / "graph" / "other.parquet"]


# --- GraphML column by column: the bytes of the element writer and of networkx --------------------

def _networkx_graphml(kg) -> bytes:
    import io

    import networkx as nx

    from mhmmkg.interop.exports import to_networkx

    out = io.BytesIO()
    nx.write_graphml_xml(to_networkx(kg), out)
    return out.getvalue()


def _awkward_objects():
    from mhmmkg.kg.model import Entity, Relation

    entities = [
        Entity("m", 'Rath & "Co" <x>', "monster", aliases=("a|b", "c\td"), text="line\nbreak\r\n& <tag>",
               sources=("s1", "s2"), unverified=True, name_origin="game"),
        Entity("m.x", "X", "attack_action", monster="m", caption="", text=None),
        Entity("lonely", "Lonely", "element"),
        Entity("q\"<&>", "Q", "element", caption="a > b", text=""),
    ]
    relations = [
        Relation("m|has|m.x", "m", "m.x", "has_attack_action", "has", condition="", info="i & j"),
        Relation("m.x|to|m", "m.x", "m", "related_to", "to", sources=("s",), unverified=True),
        Relation("m|also|m.x", "m", "m.x", "has_attack_action", "also"),
        Relation("q|to|m", "q\"<&>", "m", "related_to", "to", info=""),
        Relation("m|has|lonely", "m", "lonely", "related_to", "has"),
    ]
    return entities, relations


def _as_loaded(entities, relations, *, ends_of_no_entity=(), null_lists=False, encoded=True):
    """A graph whose ``arrow_columns`` hold these objects' fields, as ``load_graph`` gives them."""
    import pyarrow as pa

    from mhmmkg.kg.graph import KnowledgeGraph
    from mhmmkg.kg.model import Relation

    relations = [*relations, *(Relation(f"m|to|{end}", "m", end, "related_to", "to") for end in ends_of_no_entity)]
    strings = pa.list_(pa.string())

    def column(values, kind=pa.string(), encode=False):
        array = pa.array(values, kind)
        return pa.chunked_array([array.dictionary_encode() if encode and encoded else array])

    def listed(values):
        return column([list(v) if v or not null_lists else None for v in values], strings)

    attributes = {"id": column([e.id for e in entities]), "name": column([e.name for e in entities]),
                  "type": column([e.type for e in entities], encode=True),
                  "monster": column([e.monster for e in entities]), "aliases": listed(e.aliases for e in entities),
                  "text": column([e.text for e in entities]), "caption": column([e.caption for e in entities]),
                  "has_media": column([e.has_media for e in entities], pa.bool_()),
                  "sources": listed(e.sources for e in entities),
                  "unverified": column([e.unverified or (None if null_lists else False) for e in entities], pa.bool_()),
                  "name_origin": column([e.name_origin for e in entities])}
    graph = {"head": column([r.head for r in relations], encode=True),
             "tail": column([r.tail for r in relations], encode=True),
             "id": column([r.id for r in relations]), "type": column([r.type for r in relations]),
             "label": column([r.label for r in relations]), "condition": column([r.condition for r in relations]),
             "info": column([r.info for r in relations]), "sources": listed(r.sources for r in relations),
             "unverified": column([r.unverified for r in relations], pa.bool_())}
    loaded = KnowledgeGraph.deferred(lambda: list(entities), lambda: list(relations),
                                     [(r.head, r.tail) for r in relations], columns=lambda: (attributes, graph))
    return loaded, KnowledgeGraph(entities, relations)


@pytest.mark.parametrize("options", [{}, {"null_lists": True}, {"encoded": False}, {"ends_of_no_entity": ["ghost", "m"]}])
def test_graphml_from_the_columns_is_the_graphml_of_the_objects(options):
    import io

    from mhmmkg.interop.graphml import write_graphml_by_elements
    from mhmmkg.interop.graphml_columns import write_graphml_by_columns

    loaded, objects = _as_loaded(*_awkward_objects(), **options)
    columns, elements = io.BytesIO(), io.BytesIO()
    assert write_graphml_by_columns(loaded, columns)
    assert "_entities" not in loaded.__dict__ and "_given_relations" not in loaded.__dict__    # no object made
    write_graphml_by_elements(objects, elements)
    assert columns.getvalue() == elements.getvalue() == _networkx_graphml(objects)
    assert b"&amp;" in columns.getvalue() and b'<data key="d' in columns.getvalue()


def test_graphml_of_objects_by_columns_and_of_unusual_values_by_elements():
    import io

    from mhmmkg.interop.graphml import write_graphml, write_graphml_by_elements
    from mhmmkg.interop.graphml_columns import write_graphml_by_columns
    from mhmmkg.kg.graph import KnowledgeGraph
    from mhmmkg.kg.model import Entity

    entities, relations = _awkward_objects()
    graph = KnowledgeGraph(entities, relations)
    out = io.BytesIO()
    assert write_graphml_by_columns(graph, out) and out.getvalue() == _networkx_graphml(graph)
    odd = KnowledgeGraph([*entities, Entity("n", "N", "element", unverified=1)], relations)    # an int flag
    out = io.BytesIO()
    assert not write_graphml_by_columns(odd, out) and not out.getvalue()      # left to the element writer
    write_graphml(odd, out)
    elements = io.BytesIO()
    write_graphml_by_elements(odd, elements)
    assert out.getvalue() == elements.getvalue() and b"<data" in out.getvalue()


def test_graphml_of_a_loaded_graph_with_an_id_on_two_rows_is_that_of_its_objects(tiny_dataset, tmp_path):
    import io

    from mhmmkg import load_graph
    from mhmmkg.interop.graphml_columns import write_graphml_by_columns

    entities, relations = _awkward_objects()
    loaded, _ = _as_loaded([*entities, entities[0]], relations)     # "m" twice: the graph keeps one
    out = io.BytesIO()
    assert write_graphml_by_columns(loaded, out) and out.getvalue() == _networkx_graphml(loaded)
    for source in (tiny_dataset, _split_in_two(tiny_dataset, "graph", tmp_path)):
        kg = load_graph(source)
        out = io.BytesIO()
        assert write_graphml_by_columns(kg, out) and out.getvalue() == _networkx_graphml(load_graph(source))
        assert repr(load_graph(source)) == repr(load_graph(tiny_dataset.parent / "src"))


def test_loading_turns_the_collector_off_while_it_makes_objects_and_restores_it(tiny_dataset, monkeypatch):
    import gc

    from mhmmkg import load_graph, load_queries
    from mhmmkg.dataset import loading
    from mhmmkg.kg import model

    seen = []
    real = loading.from_columns      # how the queries are made (each field set in one pass, not by __init__)
    monkeypatch.setattr(loading, "from_columns", lambda cls, *columns: (
        seen.append(gc.isenabled()) if cls is model.Query else None, real(cls, *columns))[1])
    before = gc.get_threshold()
    assert gc.isenabled()
    queries = load_queries(tiny_dataset)
    graph = load_graph(tiny_dataset)
    assert graph.entities and graph.relations and queries
    assert seen and not any(seen)             # no collector pass while the queries were made
    assert gc.isenabled() and gc.get_threshold() == before
