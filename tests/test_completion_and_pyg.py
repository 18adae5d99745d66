"""The KG for graph learning: labelled triples whose relation kinds keep conditions apart, a seeded
train/valid/test split, and a PyTorch Geometric HeteroData (real torch_geometric when installed)."""
from __future__ import annotations

import csv

import pytest

from mhmmkg.cli import main
from mhmmkg.completion import relation_kind, split_triples, triples
from mhmmkg.loading import load_graph


def test_relations_that_differ_only_by_condition_stay_apart(tiny_sources, tmp_path):
    import json

    wolf = tiny_sources / "monsters" / "wolf.json"
    doc = json.loads(wolf.read_text())
    doc["relations"].append({"head": "wolf.double-slam", "type": "continues_with", "tail": "wolf.back-slam",
                             "condition": "when enraged"})
    wolf.write_text(json.dumps(doc))
    kg = load_graph(tiny_sources)
    labelled = [t for t in triples(kg) if t[0] == "wolf.double-slam" and t[2] == "wolf.back-slam"]
    assert sorted(labelled) == [("wolf.double-slam", "continues_with [if the hunter is behind it]", "wolf.back-slam"),
                                ("wolf.double-slam", "continues_with [when enraged]", "wolf.back-slam")]
    out = tmp_path / "kinds.tsv"
    assert main(["export", "--format", "triples", "--relation", "kind", "--dataset", str(tiny_sources),
                 "--out", str(out)]) == 0
    rows = list(csv.reader(out.open(encoding="utf-8"), delimiter="\t"))
    assert len(rows) == len(kg.relations) and {r[1] for r in rows} == {relation_kind(r) for r in kg.relations}


def test_the_split_is_seeded_covers_every_triple_once_and_holds_out_only_known_ids():
    kg = load_graph("data")
    first, again, other = split_triples(kg, seed=0), split_triples(kg, seed=0), split_triples(kg, seed=1)
    assert first == again and first != other
    every = [t for name in ("train", "valid", "test") for t in first[name]]
    assert sorted(every) == sorted(triples(kg)) and len(set(every)) == len(every)
    train_entities = {e for h, _, t in first["train"] for e in (h, t)}
    train_relations = {r for _, r, _ in first["train"]}
    for name in ("valid", "test"):
        assert first[name], f"the {name} split is empty"
        assert all(h in train_entities and t in train_entities and r in train_relations for h, r, t in first[name])
    assert 0.05 < len(first["test"]) / len(every) <= 0.1


def test_completion_export_writes_the_three_files(tiny_dataset, tmp_path):
    out = tmp_path / "kgc"
    assert main(["export", "--format", "completion", "--dataset", str(tiny_dataset), "--out", str(out),
                 "--seed", "3"]) == 0
    kg = load_graph(tiny_dataset)
    split = split_triples(kg, seed=3)
    for name in ("train", "valid", "test"):
        rows = [tuple(r) for r in csv.reader((out / f"{name}.tsv").open(encoding="utf-8"), delimiter="\t")]
        assert rows == split[name]


def test_hetero_data_has_every_type_edge_and_condition(tiny_dataset):
    pytest.importorskip("torch_geometric", reason="needs torch and torch_geometric ('make test-extras')")
    import torch

    from mhmmkg.integrations import pyg

    kg = load_graph(tiny_dataset)
    data = pyg.hetero_data(kg, features=lambda entities: [[float(len(e.name)), 1.0] for e in entities])
    present = {e.type for e in kg.entities}
    assert set(data.node_types) == present
    assert sum(data[t].num_nodes for t in data.node_types) == len(kg.entities)
    assert data["attack_action"].x.shape == (data["attack_action"].num_nodes, 2)
    assert sum(data[et].edge_index.shape[1] for et in data.edge_types) == len(kg.relations)
    store = data["attack_action", "continues_with", "attack_action"]
    ids = data["attack_action"].entity_id
    pairs = {(ids[s], ids[d], c) for (s, d), c in zip(store.edge_index.t().tolist(), store.condition)}
    assert ("wolf.double-slam", "wolf.back-slam", "if the hunter is behind it") in pairs
    assert ("wolf.double-slam", "wolf.bite", "") in pairs
    assert store.edge_index.dtype == torch.long
    data.validate(raise_on_error=True)
