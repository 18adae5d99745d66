"""The KG inside LlamaIndex and LangChain, tested with the real libraries (the test extra installs them)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from mhmmkg import load_graph
from mhmmkg.exports import entity_document


@pytest.fixture
def kg(tiny_sources):
    return load_graph(tiny_sources)


def test_llamaindex_nodes_have_stable_ids_and_keep_metadata_out_of_the_embedding(kg):
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import Document, MetadataMode, TextNode

    from mhmmkg.integrations import llamaindex

    nodes = llamaindex.text_nodes(kg)
    assert all(type(n) is TextNode for n in nodes)
    by_id = {n.id_: n for n in nodes}
    assert set(by_id) == {e.id for e in kg.entities}
    assert [n.id_ for n in llamaindex.text_nodes(kg)] == [n.id_ for n in nodes]
    slam = by_id["wolf.double-slam"]
    text = entity_document(kg, "wolf.double-slam")["text"]
    assert slam.get_content(metadata_mode=MetadataMode.EMBED) == text
    assert slam.metadata["type"] == "attack_action" and slam.metadata["monster"] == "wolf"
    assert "attack_action" in slam.get_content(metadata_mode=MetadataMode.LLM)
    embedded = {n.id_: n for n in llamaindex.text_nodes(kg, embed_metadata=True)}["wolf.double-slam"]
    assert "attack_action" in embedded.get_content(metadata_mode=MetadataMode.EMBED)
    docs = llamaindex.documents(kg)
    assert all(isinstance(d, Document) for d in docs) and docs[0].id_ == kg.entities[0].id


def test_llamaindex_property_graph_holds_entities_relations_labels_and_conditions(kg):
    pytest.importorskip("llama_index.core")
    from mhmmkg.integrations import llamaindex

    store = llamaindex.property_graph(kg)
    names = llamaindex.node_names(kg)
    assert names["wolf"] == "Wolf" and names["wolf.double-slam"] == "Wolf double slam"
    assert names["dark-wolf.double-slam"] == "Dark wolf double slam" and len(set(names.values())) == len(names)
    nodes = {n.properties["id"]: n for n in store.get(ids=list(names.values()))}
    assert set(nodes) == {e.id for e in kg.entities}
    assert nodes["wolf.double-slam"].label == "attack_action"
    assert nodes["wolf.double-slam"].properties["name"] == "Double Slam"
    triplets = store.get_triplets(entity_names=[names["wolf.double-slam"]])
    follow = {(s.properties["id"], r.label, t.properties["id"]): r.properties for s, r, t in triplets}
    back = follow[("wolf.double-slam", "continues_with", "wolf.back-slam")]
    assert back["conditions"] == ["if the hunter is behind it"] and back["phrase"] == "continues with"
    ids = {name: entity for entity, name in names.items()}
    assert {(r.head, r.type, r.tail) for r in kg.relations} == \
        {(ids[r.source_id], r.label, ids[r.target_id]) for r in store.graph.relations.values()}


def test_parallel_relations_of_one_type_are_merged_with_all_conditions(tiny_sources):
    pytest.importorskip("llama_index.core")
    import json

    from mhmmkg.integrations import llamaindex

    wolf = tiny_sources / "monsters" / "wolf.json"
    doc = json.loads(wolf.read_text())
    doc["relations"].append({"head": "wolf.double-slam", "type": "continues_with", "tail": "wolf.back-slam",
                             "condition": "when enraged"})
    wolf.write_text(json.dumps(doc))
    store = llamaindex.property_graph(load_graph(tiny_sources))
    follow = {(s.name, r.label, t.name): r.properties for s, r, t in store.get_triplets(entity_names=["Wolf double slam"])}
    props = follow[("Wolf double slam", "continues_with", "Wolf back slam")]
    assert props["conditions"] == ["if the hunter is behind it", "when enraged"] and len(props["relation_ids"]) == 2


def test_the_llamaindex_docstring_example_runs_offline_and_the_stock_retriever_finds_nodes():
    pytest.importorskip("llama_index.core")
    from mhmmkg.integrations import llamaindex

    example = "\n".join(line[2:] for line in llamaindex.__doc__.splitlines() if line.startswith("  "))
    scope: dict = {}
    exec(compile(example, "llamaindex docstring", "exec"), scope)
    found = scope["found"]
    assert found, "the stock LLMSynonymRetriever found no node for 'zinogre'"
    assert any("Zinogre" in n.node.get_content() for n in found)


def test_langchain_documents(kg):
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from mhmmkg.integrations import langchain

    docs = langchain.documents(kg)
    assert all(isinstance(d, Document) for d in docs)
    by_id = {d.id: d for d in docs}
    assert set(by_id) == {e.id for e in kg.entities}
    assert by_id["wolf.double-slam"].page_content == entity_document(kg, "wolf.double-slam")["text"]
    assert by_id["wolf"].metadata["aliases"] == ["Thunder Wolf"]


def test_frameworks_are_imported_only_when_called_and_a_missing_one_names_its_extra(kg, tiny_sources):
    code = ("import sys; sys.modules['llama_index'] = sys.modules['langchain_core'] = None\n"
            "import mhmmkg.integrations.llamaindex, mhmmkg.integrations.langchain\n"
            "from mhmmkg import load_graph; from mhmmkg.errors import UserError\n"
            f"kg = load_graph({str(tiny_sources)!r})\n"
            "for call in (mhmmkg.integrations.llamaindex.text_nodes, mhmmkg.integrations.langchain.documents):\n"
            "    try: call(kg)\n"
            "    except UserError as exc: print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["this needs llama_index: pip install 'mhmmkg[llamaindex]'",
                                "this needs langchain_core: pip install 'mhmmkg[langchain]'"]
