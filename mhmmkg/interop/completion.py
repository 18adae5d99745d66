"""The KG as a knowledge-graph completion task: labelled triples and a fixed train/valid/test split.

A triple is (head id, relation, tail id). The relation is the relation *kind*: its base type, and
where the relation holds only under a condition, the condition in brackets
(``continues_with [if the hunter is behind it]``). Relations that differ only by condition are
thus different relations, as the paper counts edge kinds; with the bare type a KG-embedding
library would merge them into one fact.

The split is seeded and documented: the triples are shuffled with ``random.Random(seed)``; the
first ``valid`` and ``test`` shares (10% each by default) are held out, then every held-out
triple whose head, tail or relation does not occur in the training triples moves back to
training, so each held-out triple can be scored by a model trained on the rest (as PyKEEN's and
OGB's link-prediction splits require). The same KG and seed always give the same split.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

from ..kg.graph import KnowledgeGraph
from ..kg.model import Relation

SPLITS = ("train", "valid", "test")
Triple = tuple[str, str, str]


def relation_kind(relation: Relation) -> str:
    return f"{relation.type} [{relation.condition}]" if relation.condition else relation.type


def triples(kg: KnowledgeGraph) -> list[Triple]:
    """One (head, relation kind, tail) per distinct fact, in the graph's order."""
    seen: dict[Triple, None] = {}
    for r in kg.relations:
        seen.setdefault((r.head, relation_kind(r), r.tail), None)
    return list(seen)


def split_triples(kg: KnowledgeGraph, *, seed: int = 0, valid: float = 0.1,
                  test: float = 0.1) -> dict[str, list[Triple]]:
    """{train, valid, test} triples (see the module docstring)."""
    if not (0 <= valid < 1 and 0 <= test < 1 and valid + test < 1):
        raise ValueError(f"valid ({valid}) and test ({test}) must be shares that leave some triples to train on")
    shuffled = triples(kg)
    random.Random(seed).shuffle(shuffled)
    n_valid, n_test = round(len(shuffled) * valid), round(len(shuffled) * test)
    held = {"valid": shuffled[:n_valid], "test": shuffled[n_valid:n_valid + n_test]}
    train = shuffled[n_valid + n_test:]
    known_entities = {e for h, _, t in train for e in (h, t)}
    known_relations = {r for _, r, _ in train}
    out = {"train": train}
    for name in ("valid", "test"):
        kept = []
        for triple in held[name]:
            head, relation, tail = triple
            if head in known_entities and tail in known_entities and relation in known_relations:
                kept.append(triple)
            else:
                train.append(triple)
                known_entities |= {head, tail}
                known_relations.add(relation)
        out[name] = kept
    return {name: sorted(out[name]) for name in SPLITS}


def write_split(kg: KnowledgeGraph, folder: Path, *, seed: int = 0) -> None:
    """train.tsv, valid.tsv and test.tsv (head, relation kind, tail; no header) into ``folder``."""
    for name, rows in split_triples(kg, seed=seed).items():
        with open(folder / f"{name}.tsv", "w", encoding="utf-8", newline="") as f:
            csv.writer(f, delimiter="\t", lineterminator="\n").writerows(rows)
