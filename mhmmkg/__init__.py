"""MH-MMKG: the Monster Hunter multimodal knowledge graph and the MH benchmark."""
from __future__ import annotations

from . import _moved

_moved.install()      # the flat layout's import paths keep working

from .kg.graph import KnowledgeGraph
from .dataset.loading import load_graph, load_queries
from .kg.model import ENTITY_TYPES, RELATION_LABELS, RELATION_TYPES, SUBTASKS, Entity, Query, Relation
from .benchmark.render import render_key, render_question

__version__ = "0.1.0"

__all__ = [
    "ENTITY_TYPES", "RELATION_LABELS", "RELATION_TYPES", "SUBTASKS",
    "Entity", "KnowledgeGraph", "Query", "Relation",
    "load_graph", "load_queries", "render_key", "render_question", "__version__",
]


def __getattr__(name: str):
    return _moved.old_path(name)      # mhmmkg.graph and the rest, as attributes
