"""The KG as a PyTorch Geometric ``HeteroData`` (``pip install 'mhmmkg[pyg]'``; install torch first).

  from mhmmkg import load_graph
  from mhmmkg.integrations import pyg
  kg = load_graph("mh-mmkg")
  data = pyg.hetero_data(kg)                                   # no node features: bring your own
  data = pyg.hetero_data(kg, features=lambda entities: my_encoder([e.name for e in entities]))
  data["monster"].entity_id, data["attack_action"].text        # ids and texts, for your encoder
  data["attack_action", "continues_with", "attack_action"].condition   # one string per edge ('' if none)

Node types are the entity types (7); an edge type is (head type, relation type, tail type), one
per combination present in the KG. Every relation is an edge, parallel ones included; each edge
store holds ``edge_index``, ``relation_id`` and ``condition`` (the relation's condition, or ''),
so conditions are kept without multiplying edge types. ``features`` receives the entities of one
node type, in order, and returns a tensor (or nested list) with one row per entity: it becomes
``x`` of that node type.

For KG completion, :func:`mhmmkg.completion.split_triples` gives the seeded train/valid/test split
of the labelled triples (relation kinds keep conditions apart).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..kg.graph import KnowledgeGraph
from ..kg.model import ENTITY_TYPES, Entity
from . import require

EXTRA = "pyg"


def hetero_data(kg: KnowledgeGraph, *, features: Callable[[Sequence[Entity]], Any] | None = None):
    """A ``torch_geometric.data.HeteroData`` of the KG (see the module docstring)."""
    torch = require("torch", EXTRA)
    data_module = require("torch_geometric.data", EXTRA)
    data = data_module.HeteroData()
    position: dict[str, tuple[str, int]] = {}
    for entity_type in ENTITY_TYPES:
        entities = [e for e in kg.entities if e.type == entity_type]
        if not entities:
            continue
        store = data[entity_type]
        store.num_nodes = len(entities)
        store.entity_id = [e.id for e in entities]
        store.name = [e.name for e in entities]
        store.text = [kg.render_entity(e.id) for e in entities]
        if features is not None:
            store.x = torch.as_tensor(features(entities), dtype=torch.float)
        position.update({e.id: (entity_type, i) for i, e in enumerate(entities)})
    edges: dict[tuple[str, str, str], dict[str, list]] = {}
    for r in kg.relations:
        (head_type, head), (tail_type, tail) = position[r.head], position[r.tail]
        entry = edges.setdefault((head_type, r.type, tail_type), {"src": [], "dst": [], "id": [], "condition": []})
        entry["src"].append(head)
        entry["dst"].append(tail)
        entry["id"].append(r.id)
        entry["condition"].append(r.condition or "")
    for edge_type, entry in sorted(edges.items()):
        store = data[edge_type]
        store.edge_index = torch.tensor([entry["src"], entry["dst"]], dtype=torch.long)
        store.relation_id = entry["id"]
        store.condition = entry["condition"]
    return data
