"""The KG as LlamaIndex documents, text nodes and a property graph (``pip install 'mhmmkg[llamaindex]'``).

  from mhmmkg import load_graph
  from mhmmkg.integrations import llamaindex
  kg = load_graph("mh-mmkg")
  index = VectorStoreIndex(llamaindex.text_nodes(kg))                    # one node per entity
  graph_index = PropertyGraphIndex.from_existing(llamaindex.property_graph(kg))
"""
from __future__ import annotations

from ..exports import entity_document
from ..graph import KnowledgeGraph
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


def property_graph(kg: KnowledgeGraph):
    """A ``SimplePropertyGraphStore`` holding every entity and relation.

    Entities are ``EntityNode``s named by entity id (names repeat across monsters), labelled with
    the entity type, with the display name, monster, aliases, text and caption as properties.
    Relations are labelled with their type and carry the surface phrase, conditions, information
    and relation ids. LlamaIndex keeps one relation per (head, type, tail): parallel relations of
    one type (the same move following under two conditions) are merged, their conditions listed.
    """
    stores = require("llama_index.core.graph_stores", EXTRA)
    types = require("llama_index.core.graph_stores.types", EXTRA)
    nodes = []
    for e in kg.entities:
        properties = {"name": e.name, "monster": e.monster, "aliases": list(e.aliases), "text": e.text,
                      "caption": e.caption}
        nodes.append(types.EntityNode(name=e.id, label=e.type,
                                      properties={k: v for k, v in properties.items() if v not in (None, "", [])}))
    merged: dict[tuple[str, str, str], dict] = {}
    for r in kg.relations:
        entry = merged.setdefault((r.head, r.type, r.tail), {"phrase": r.label, "conditions": [], "info": [],
                                                             "relation_ids": []})
        entry["relation_ids"].append(r.id)
        for key, value in (("conditions", r.condition), ("info", r.info)):
            if value and value not in entry[key]:
                entry[key].append(value)
    relations = [types.Relation(label=label, source_id=head, target_id=tail, properties=properties)
                 for (head, label, tail), properties in merged.items()]
    store = stores.SimplePropertyGraphStore()
    store.upsert_nodes(nodes)
    store.upsert_relations(relations)
    return store
