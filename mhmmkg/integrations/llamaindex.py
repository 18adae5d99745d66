"""The KG as LlamaIndex documents, text nodes and a property graph (``pip install 'mhmmkg[llamaindex]'``).

Runs offline as written (a mock LLM and embedding stand in for yours):

  from llama_index.core import PropertyGraphIndex
  from llama_index.core.embeddings import MockEmbedding
  from llama_index.core.indices.property_graph import LLMSynonymRetriever
  from llama_index.core.llms import MockLLM
  from mhmmkg import load_graph
  from mhmmkg.integrations import llamaindex

  kg = load_graph("data")
  nodes = llamaindex.text_nodes(kg)                       # one node per entity, for a VectorStoreIndex
  store = llamaindex.property_graph(kg)
  index = PropertyGraphIndex.from_existing(property_graph_store=store, llm=MockLLM(),
                                           embed_model=MockEmbedding(embed_dim=8), embed_kg_nodes=False)
  synonyms = LLMSynonymRetriever(store, llm=MockLLM(), output_parsing_fn=lambda reply: ["zinogre"])
  found = index.as_retriever(sub_retrievers=[synonyms]).retrieve("What does Zinogre do when charged?")
"""
from __future__ import annotations

from ..interop.exports import entity_document
from ..kg.graph import KnowledgeGraph
from . import require

EXTRA = "llamaindex"


def _fields(kg: KnowledgeGraph, embed_metadata: bool) -> list[dict]:
    """Keyword arguments of one node per entity: stable ``id_`` (the entity id), the entity's text,
    its metadata, kept out of what is embedded unless ``embed_metadata``."""
    out = []
    for entity in kg.entities:
        doc = entity_document(kg, entity.id)
        excluded = [] if embed_metadata else list(doc["metadata"])
        out.append({"id_": doc["id"], "text": doc["text"], "metadata": doc["metadata"],
                    "excluded_embed_metadata_keys": excluded})
    return out


def documents(kg: KnowledgeGraph, *, embed_metadata: bool = False) -> list:
    """One ``llama_index.core.Document`` per entity."""
    schema = require("llama_index.core.schema", EXTRA)
    return [schema.Document(**fields) for fields in _fields(kg, embed_metadata)]


def text_nodes(kg: KnowledgeGraph, *, embed_metadata: bool = False) -> list:
    """One ``llama_index.core.schema.TextNode`` per entity (ready for a ``VectorStoreIndex`` without splitting)."""
    schema = require("llama_index.core.schema", EXTRA)
    return [schema.TextNode(**fields) for fields in _fields(kg, embed_metadata)]


def node_names(kg: KnowledgeGraph) -> dict[str, str]:
    """The property-graph node name of each entity id, as LlamaIndex's stock retrievers look nodes up.

    LlamaIndex finds graph nodes by name, capitalising each keyword first (``"zinogre"`` ->
    ``"Zinogre"``), as its extractors name the nodes they ingest. So a node is named by the
    entity's display name in that form; an entity a monster owns gets the monster's name in front
    (``"Zinogre double slam"``), since names such as "Roar" repeat across monsters.
    """
    names = {}
    for e in kg.entities:
        owner = kg.entity(e.monster).name if e.monster and e.monster != e.id and e.monster in kg else None
        name = (f"{owner} {e.name}" if owner else e.name).capitalize()
        names[e.id] = name if name not in names.values() else f"{name} ({e.id})"
    return names


def property_graph(kg: KnowledgeGraph):
    """A ``SimplePropertyGraphStore`` holding every entity and relation.

    Entities are ``EntityNode``s named as :func:`node_names` says, labelled with the entity type,
    with the entity id, display name, monster, aliases, text, caption and provenance as properties.
    Relations are labelled with their type and carry the surface phrase, conditions, information,
    relation ids and provenance. LlamaIndex keeps one relation per (head, type, tail): parallel
    relations of one type (the same move following under two conditions) are merged, their
    conditions listed.
    """
    stores = require("llama_index.core.graph_stores", EXTRA)
    types = require("llama_index.core.graph_stores.types", EXTRA)
    names = node_names(kg)
    nodes = []
    for e in kg.entities:
        properties = {"id": e.id, "name": e.name, "monster": e.monster, "aliases": list(e.aliases), "text": e.text,
                      "caption": e.caption, "sources": list(e.sources), "unverified": e.unverified}
        nodes.append(types.EntityNode(name=names[e.id], label=e.type,
                                      properties={k: v for k, v in properties.items() if v not in (None, "", [])}))
    merged: dict[tuple[str, str, str], dict] = {}
    for r in kg.relations:
        entry = merged.setdefault((r.head, r.type, r.tail), {"phrase": r.label, "conditions": [], "info": [],
                                                             "relation_ids": [], "sources": [], "unverified": False})
        entry["relation_ids"].append(r.id)
        entry["unverified"] = entry["unverified"] or r.unverified
        for key, values in (("conditions", [r.condition]), ("info", [r.info]), ("sources", r.sources)):
            for value in values:
                if value and value not in entry[key]:
                    entry[key].append(value)
    relations = [types.Relation(label=label, source_id=names[head], target_id=names[tail], properties=properties)
                 for (head, label, tail), properties in merged.items()]
    store = stores.SimplePropertyGraphStore()
    store.upsert_nodes(nodes)
    store.upsert_relations(relations)
    return store
