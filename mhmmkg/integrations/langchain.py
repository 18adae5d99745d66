"""The KG as LangChain documents (``pip install 'mhmmkg[langchain]'``).

  from mhmmkg import load_graph
  from mhmmkg.integrations import langchain
  docs = langchain.documents(load_graph("mh-mmkg"))     # then any LangChain vector store or retriever
"""
from __future__ import annotations

from ..interop.exports import entity_document
from ..kg.graph import KnowledgeGraph
from . import require


def documents(kg: KnowledgeGraph) -> list:
    """One ``langchain_core.documents.Document`` per entity: ``id`` = entity id, ``page_content`` the
    entity's text (name, caption, context, relations as sentences), ``metadata`` its fields."""
    lc = require("langchain_core.documents", "langchain")
    return [lc.Document(page_content=doc["text"], metadata=doc["metadata"], id=doc["id"])
            for doc in (entity_document(kg, e.id) for e in kg.entities)]
