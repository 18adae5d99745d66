"""The benchmark as a retrieval task in the BEIR layout: a corpus, queries and graded relevance.

Retrieval work (BEIR, MTEB, KILT) scores a ranking of documents against relevance judgements,
without any reader model. Here:

- **corpus**: one document per KG entity: ``_id`` = entity id, ``title`` = its name, ``text`` = the
  entity rendered with its caption, context and outgoing relations (the ``jsonl-docs`` text);
- **queries**: one per benchmark query: ``_id`` = query id, ``text`` = the question as the model
  sees it (monster named, auxiliary information included) followed by the human scene description;
- **qrels**: the entities on the query's ground-truth paths, graded: 2 for the entity a path ends
  on (the knowledge the answer needs), 1 for an entity on the way. The topic monster, the root of
  every path, is judged only when a path holds nothing else (it is found from the question's name
  alone, and would otherwise lift every ranking for free).

``mhmmkg export --format beir --out DIR`` writes ``corpus.jsonl``, ``queries.jsonl`` and
``qrels/test.tsv`` (query-id, corpus-id, score with a header line), the files BEIR's
``GenericDataLoader`` and MTEB read; ``mhmmkg evaluate-retrieval`` scores a run against the qrels.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path

from .exports import entity_document
from ..kg.graph import KnowledgeGraph
from ..kg.model import Query
from ..benchmark.render import render_question

ANSWER_GRADE = 2
ON_PATH_GRADE = 1
SPLIT = "test"


def corpus(kg: KnowledgeGraph) -> list[dict]:
    """One ``{"_id", "title", "text"}`` per entity, in the graph's order."""
    return [{"_id": e.id, "title": e.name, "text": entity_document(kg, e.id)["text"]} for e in kg.entities]


def query_text(query: Query, kg: KnowledgeGraph) -> str:
    """The question as a model sees it, then the human description of the scene."""
    name = kg.entity(query.monster).name if query.monster in kg else None
    return "\n".join(part for part in (render_question(query, name), query.perception) if part)


def retrieval_queries(queries: Iterable[Query], kg: KnowledgeGraph) -> list[dict]:
    return [{"_id": q.id, "text": query_text(q, kg)} for q in queries]


def relevance(query: Query) -> dict[str, int]:
    """Graded relevance of the entities on ``query``'s ground-truth paths (see the module docstring)."""
    grades: dict[str, int] = {}
    for path in query.paths:
        steps = path[1:] if len(path) > 1 else path
        for i, entity in enumerate(steps):
            grade = ANSWER_GRADE if i == len(steps) - 1 else ON_PATH_GRADE
            grades[entity] = max(grades.get(entity, 0), grade)
    return grades


def qrels(queries: Iterable[Query]) -> dict[str, dict[str, int]]:
    return {q.id: relevance(q) for q in queries}


def write_beir(kg: KnowledgeGraph, queries: list[Query], folder: Path) -> None:
    """The three files of the BEIR layout into ``folder`` (which must exist)."""
    _write_jsonl(folder / "corpus.jsonl", corpus(kg))
    _write_jsonl(folder / "queries.jsonl", retrieval_queries(queries, kg))
    (folder / "qrels").mkdir()
    with open(folder / "qrels" / f"{SPLIT}.tsv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(["query-id", "corpus-id", "score"])
        for qid, grades in qrels(queries).items():
            for doc, grade in sorted(grades.items()):
                writer.writerow([qid, doc, grade])


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
