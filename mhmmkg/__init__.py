"""MH-MMKG: the Monster Hunter multimodal knowledge graph and the MH benchmark."""
from __future__ import annotations

from .graph import KnowledgeGraph
from .loading import load_graph, load_queries
from .model import ENTITY_TYPES, RELATION_LABELS, RELATION_TYPES, SUBTASKS, Entity, Query, Relation
from .render import render_key, render_question

__version__ = "0.1.0"

__all__ = [
    "ENTITY_TYPES", "RELATION_LABELS", "RELATION_TYPES", "SUBTASKS",
    "Entity", "KnowledgeGraph", "Query", "Relation",
    "load_graph", "load_queries", "render_key", "render_question", "__version__",
]
