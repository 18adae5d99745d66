"""Export the knowledge graph for other stacks.

Formats:
  graphml     one GraphML file for Gephi, yEd or networkx; every relation kept as its own edge,
              entity and relation fields as data keys
  triples     TSV head<TAB>relation<TAB>tail, one line per relation and no header line, as
              knowledge-graph-embedding libraries (PyKEEN, DGL-KE, ...) read it (--header adds
              one); --out names the file
  jsonl-docs  one JSON object per entity: {"id", "text", "metadata"} where text holds the name,
              caption, context and the entity's relations as sentences; the shape the document
              loaders of LlamaIndex and LangChain ingest
  neo4j       a folder of node and relationship CSV files with `neo4j-admin database import`
              headers (entities.csv, relations.csv, import.sh with the command, which runs
              from any folder) and a manifest.json; an existing --out folder is replaced only
              when it holds that manifest

Lists (aliases; Neo4j labels) are joined with '|' in every format.

Example:
  mhmmkg export --format graphml --out mh-mmkg.graphml
  mhmmkg export --format neo4j --out neo4j-import/ --dataset mh-mmkg
"""
from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Callable
from pathlib import Path

import networkx as nx

from .atomic import atomic_path, staged_folder
from .errors import UserError
from .graph import KnowledgeGraph
from .outputs import GENERATOR, add_force_argument, claim_output_file, claim_output_folder, write_output_manifest

ENTITY_FIELDS = ("name", "type", "monster", "aliases", "text", "caption")
LIST_DELIMITER = "|"
RELATION_FIELDS = ("type", "label", "condition", "info")


def to_networkx(kg: KnowledgeGraph) -> nx.MultiDiGraph:
    """A plain MultiDiGraph with entity and relation fields as attributes (None dropped, lists joined
    by LIST_DELIMITER)."""
    graph = nx.MultiDiGraph(generator=GENERATOR)
    for e in kg.entities:
        attrs = {"name": e.name, "type": e.type, "monster": e.monster, "aliases": LIST_DELIMITER.join(e.aliases),
                 "text": e.text, "caption": e.caption}
        graph.add_node(e.id, **{k: v for k, v in attrs.items() if v not in (None, "")})
    for r in kg.relations:
        attrs = {"type": r.type, "label": r.label, "condition": r.condition, "info": r.info}
        graph.add_edge(r.head, r.tail, key=r.id, **{k: v for k, v in attrs.items() if v is not None})
    return graph


def write_graphml(kg: KnowledgeGraph, out: Path) -> None:
    with atomic_path(out) as tmp:
        nx.write_graphml(to_networkx(kg), tmp)


def write_triples(kg: KnowledgeGraph, out: Path, *, header: bool = False) -> None:
    """One head<TAB>relation<TAB>tail line per relation; no header unless asked, because the
    readers of KG-embedding libraries take every line for a triple."""
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        if header:
            writer.writerow(["head", "relation", "tail"])
        for r in kg.relations:
            writer.writerow([r.head, r.type, r.tail])


def entity_document(kg: KnowledgeGraph, entity_id: str) -> dict:
    """One entity as a retrievable document: its description plus its relations as sentences."""
    e = kg.entity(entity_id)
    sentences = [kg.render_relation(n.relation) for n in kg.neighbours(entity_id)]
    text = kg.render_entity(entity_id)
    if sentences:
        text += "\n" + "\n".join(sentences)
    metadata = {"id": e.id, "name": e.name, "type": e.type, "monster": e.monster, "aliases": list(e.aliases),
                "neighbours": [n.entity.id for n in kg.neighbours(entity_id)]}
    return {"id": e.id, "text": text, "metadata": metadata}


def write_jsonl_docs(kg: KnowledgeGraph, out: Path) -> None:
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for e in kg.entities:
            f.write(json.dumps(entity_document(kg, e.id), ensure_ascii=False) + "\n")


NEO4J_ENTITY_HEADER = ["id:ID", ":LABEL", "name", "monster", "aliases:string[]", "text", "caption"]
NEO4J_RELATION_HEADER = [":START_ID", ":END_ID", ":TYPE", "id", "label", "condition", "info"]


def neo4j_label(entity_type: str) -> str:
    return "Entity" + LIST_DELIMITER + "".join(part.title() for part in entity_type.split("_"))


def write_neo4j(kg: KnowledgeGraph, out: Path) -> None:
    """entities.csv and relations.csv for `neo4j-admin database import full`, plus the command and
    a manifest.json that lets a later export replace the folder."""
    claim_output_folder(out, "neo4j")
    with staged_folder(out) as tmp:
        with open(tmp / "entities.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(NEO4J_ENTITY_HEADER)
            for e in kg.entities:
                writer.writerow([e.id, neo4j_label(e.type), e.name, e.monster or "", LIST_DELIMITER.join(e.aliases),
                                 e.text or "", e.caption or ""])
        with open(tmp / "relations.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(NEO4J_RELATION_HEADER)
            for r in kg.relations:
                writer.writerow([r.head, r.tail, r.type.upper(), r.id, r.label, r.condition or "", r.info or ""])
        (tmp / "import.sh").write_text(
            "#!/bin/sh\n# Import into an empty database named mhmmkg (Neo4j 5); works from any folder.\n"
            "set -e\ncd \"$(dirname \"$0\")\"\n"
            "neo4j-admin database import full mhmmkg --nodes=entities.csv --relationships=relations.csv "
            f"--array-delimiter='{LIST_DELIMITER}' --multiline-fields=true\n", encoding="utf-8")
        (tmp / "import.sh").chmod(0o755)
        write_output_manifest(tmp, "neo4j")


WRITERS: dict[str, Callable[[KnowledgeGraph, Path], None]] = {
    "graphml": write_graphml,
    "triples": write_triples,
    "jsonl-docs": write_jsonl_docs,
    "neo4j": write_neo4j,
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", required=True, choices=sorted(WRITERS), help="export format (see above)")
    parser.add_argument("--out", required=True, help="file to write (a folder for neo4j)")
    parser.add_argument("--dataset", default="mh-mmkg",
                        help="built dataset folder, Hub repo id, or sources folder (default: mh-mmkg)")
    parser.add_argument("--header", action="store_true",
                        help="triples only: start the file with a head/relation/tail header line")
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    from .loading import load_graph

    if args.header and args.format != "triples":
        raise UserError(f"--header applies to --format triples only, not {args.format}")
    if args.format == "neo4j":
        claim_output_folder(args.out, "neo4j", inputs=[args.dataset])
    else:
        claim_output_file(args.out, args.format, inputs=[args.dataset], force=args.force)
    kg = load_graph(args.dataset)
    options = {"header": True} if args.header else {}
    WRITERS[args.format](kg, Path(args.out), **options)
    print(f"wrote {args.format} export of {kg} to {args.out}")
    return 0
