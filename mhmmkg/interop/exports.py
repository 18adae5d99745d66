"""Export the knowledge graph for other stacks.

Formats:
  graphml     one GraphML file for Gephi, yEd or networkx; every relation kept as its own edge,
              entity and relation fields as data keys
  triples     TSV head<TAB>relation<TAB>tail, one line per relation and no header line, as
              knowledge-graph-embedding libraries (PyKEEN, DGL-KE, ...) read it (--header adds
              one); --out names the file. --relation kind writes the relation's kind instead of
              its base type (the condition in brackets), so relations that differ only by
              condition stay apart
  completion  the KG as a link-prediction task: a folder with train.tsv, valid.tsv, test.tsv
              (head, relation kind, tail; a seeded 80/10/10 split, --seed, see mhmmkg.completion)
  turtle      RDF (Turtle) via rdflib: entities with their classes, names, aliases, texts and
  ntriples    provenance; each relation as a plain triple and as a reified statement carrying
              its phrase, condition, information and provenance (see mhmmkg.rdf); needs
              pip install 'mhmmkg[rdf]'
  jsonl-docs  one JSON object per entity: {"id", "text", "metadata"} where text holds the name,
              caption, context and the entity's relations as sentences; the shape the document
              loaders of LlamaIndex and LangChain ingest
  beir        the benchmark as a retrieval task, a folder in the BEIR layout: corpus.jsonl (one
              document per entity), queries.jsonl (question and scene), qrels/test.tsv (graded
              relevance: 2 for the entity a ground-truth path ends on, 1 on the way), and a
              manifest.json; score a ranking with 'mhmmkg evaluate-retrieval'
  neo4j       a folder of node and relationship CSV files with `neo4j-admin database import`
              headers (entities.csv, relations.csv, import.sh with the command, which runs
              from any folder) and a manifest.json; an existing --out folder is replaced only
              when it holds that manifest

Lists (aliases; Neo4j labels) are joined with '|' in every format.

--format MODULE:FUNCTION (or FILE.py:FUNCTION) runs an export of your own: FUNCTION(kg, out)
writes the file or folder --out names (see docs/architecture.md).

Example:
  mhmmkg export --format graphml --out mh-mmkg.graphml
  mhmmkg export --format neo4j --out neo4j-import/ --dataset mh-mmkg
"""
from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..files.atomic import atomic_path, staged_folder
from ..errors import UserError
from ..kg.graph import KnowledgeGraph
from ..files.outputs import (GENERATOR, add_force_argument, check_output_file, claim_output_file, claim_output_folder,
                      write_output_manifest)
from ..registry import Registry, guarded

if TYPE_CHECKING:
    import networkx as nx

ENTITY_FIELDS = ("name", "type", "monster", "aliases", "text", "caption")
LIST_DELIMITER = "|"
RELATION_FIELDS = ("type", "label", "condition", "info")


def _provenance(fact) -> dict:
    """``sources`` joined by LIST_DELIMITER and the ``unverified`` flag, as flat attributes."""
    return {"sources": LIST_DELIMITER.join(fact.sources), "unverified": fact.unverified}


def node_attributes(e) -> dict:
    """An entity's fields as graph attributes (None and empty dropped, lists joined by LIST_DELIMITER)."""
    attrs = {"name": e.name, "type": e.type, "monster": e.monster, "aliases": LIST_DELIMITER.join(e.aliases),
             "text": e.text, "caption": e.caption, "name_origin": e.name_origin, **_provenance(e)}
    return {k: v for k, v in attrs.items() if v not in (None, "")}


def edge_attributes(r) -> dict:
    """A relation's fields as graph attributes (None dropped)."""
    attrs = {"type": r.type, "label": r.label, "condition": r.condition, "info": r.info, **_provenance(r)}
    return {k: v for k, v in attrs.items() if v is not None}


#: graph-level data of every GraphML export: marks the file as ours (``mhmmkg.outputs``)
GRAPH_ATTRIBUTES = {"generator": GENERATOR}


def to_networkx(kg: KnowledgeGraph) -> nx.MultiDiGraph:
    """A plain MultiDiGraph with entity and relation fields as attributes (None dropped, lists joined
    by LIST_DELIMITER)."""
    import networkx as nx

    graph = nx.MultiDiGraph(**GRAPH_ATTRIBUTES)
    for e in kg.entities:
        graph.add_node(e.id, **node_attributes(e))
    for r in kg.relations:
        graph.add_edge(r.head, r.tail, key=r.id, **edge_attributes(r))
    return graph


def write_graphml(kg: KnowledgeGraph, out: Path) -> None:
    """The bytes ``nx.write_graphml_xml(to_networkx(kg))`` writes, streamed (see ``mhmmkg.graphml``)."""
    from .graphml import write_graphml as stream_graphml

    with atomic_path(out) as tmp, open(tmp, "wb") as f:
        stream_graphml(kg, f)


def write_triples(kg: KnowledgeGraph, out: Path, *, header: bool = False, relation: str = "type") -> None:
    """One head<TAB>relation<TAB>tail line per relation; no header unless asked, because the
    readers of KG-embedding libraries take every line for a triple. ``relation="kind"`` names each
    relation by its kind (``mhmmkg.completion.relation_kind``), keeping conditions apart."""
    from .completion import relation_kind

    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        if header:
            writer.writerow(["head", "relation", "tail"])
        for r in kg.relations:
            writer.writerow([r.head, relation_kind(r) if relation == "kind" else r.type, r.tail])


def entity_document(kg: KnowledgeGraph, entity_id: str) -> dict:
    """One entity as a retrievable document: its description plus its relations as sentences."""
    e = kg.entity(entity_id)
    sentences = [kg.render_relation(n.relation) for n in kg.neighbours(entity_id)]
    text = kg.render_entity(entity_id)
    if sentences:
        text += "\n" + "\n".join(sentences)
    metadata = {"id": e.id, "name": e.name, "type": e.type, "monster": e.monster, "aliases": list(e.aliases),
                "name_origin": e.name_origin, "sources": list(e.sources), "unverified": e.unverified,
                "neighbours": [n.entity.id for n in kg.neighbours(entity_id)]}
    return {"id": e.id, "text": text, "metadata": metadata}


def write_jsonl_docs(kg: KnowledgeGraph, out: Path) -> None:
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for e in kg.entities:
            f.write(json.dumps(entity_document(kg, e.id), ensure_ascii=False) + "\n")


NEO4J_ENTITY_HEADER = ["id:ID", ":LABEL", "name", "monster", "aliases:string[]", "text", "caption", "name_origin",
                       "sources:string[]", "unverified:boolean"]
NEO4J_RELATION_HEADER = [":START_ID", ":END_ID", ":TYPE", "id", "label", "condition", "info", "sources:string[]",
                         "unverified:boolean"]
#: The same two CSV files as kuzu tables (kuzu copies CSV columns by position; the Neo4j header
#: line is skipped): one node table and one relationship table, the type a property.
KUZU_SCHEMA = """\
// Load the Neo4j CSV files of this folder into kuzu: run this file in kuzu's shell or with
// conn.execute() statement by statement, from this folder.
CREATE NODE TABLE Entity(id STRING, label STRING, name STRING, monster STRING, aliases STRING, text STRING,
                         caption STRING, name_origin STRING, sources STRING, unverified BOOLEAN, PRIMARY KEY (id));
CREATE REL TABLE Relation(FROM Entity TO Entity, type STRING, id STRING, label STRING, condition STRING,
                          info STRING, sources STRING, unverified BOOLEAN);
COPY Entity FROM 'entities.csv' (HEADER=true);
COPY Relation FROM 'relations.csv' (HEADER=true);
"""


NEO4J_IMPORT = f"""\
#!/bin/sh
# Import entities.csv and relations.csv into Neo4j 5 with neo4j-admin; works from any folder.
# The database must be stopped (Community edition: stop the server first) and empty, or given
# --overwrite-destination among the arguments. It is Neo4j's default database 'neo4j' unless
# NEO4J_DATABASE names another (Enterprise can hold several; Community only the default one).
set -e
cd "$(dirname "$0")"
neo4j-admin database import full "${{NEO4J_DATABASE:-neo4j}}" --nodes=entities.csv --relationships=relations.csv \\
    --array-delimiter='{LIST_DELIMITER}' --multiline-fields=true "$@"
"""


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
                                 e.text or "", e.caption or "", e.name_origin or "", LIST_DELIMITER.join(e.sources),
                                 str(e.unverified).lower()])
        with open(tmp / "relations.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(NEO4J_RELATION_HEADER)
            for r in kg.relations:
                writer.writerow([r.head, r.tail, r.type.upper(), r.id, r.label, r.condition or "", r.info or "",
                                 LIST_DELIMITER.join(r.sources), str(r.unverified).lower()])
        (tmp / "import.sh").write_text(NEO4J_IMPORT, encoding="utf-8")
        (tmp / "kuzu.cypher").write_text(KUZU_SCHEMA, encoding="utf-8")
        (tmp / "import.sh").chmod(0o755)
        write_output_manifest(tmp, "neo4j")


def write_beir_folder(kg: KnowledgeGraph, out: Path, *, queries) -> None:
    """The retrieval task (:mod:`mhmmkg.beir`) in a folder a later export may replace."""
    from .beir import write_beir

    claim_output_folder(out, "beir")
    with staged_folder(out) as tmp:
        write_beir(kg, queries, tmp)
        write_output_manifest(tmp, "beir")


def write_completion_folder(kg: KnowledgeGraph, out: Path, *, seed: int = 0) -> None:
    """The link-prediction split (:mod:`mhmmkg.completion`) in a folder a later export may replace."""
    from .completion import write_split

    claim_output_folder(out, "completion")
    with staged_folder(out) as tmp:
        write_split(kg, tmp, seed=seed)
        write_output_manifest(tmp, "completion")


def write_turtle(kg: KnowledgeGraph, out: Path) -> None:
    from .rdf import write_rdf

    write_rdf(kg, out, serialisation="turtle")


def write_ntriples(kg: KnowledgeGraph, out: Path) -> None:
    from .rdf import write_rdf

    write_rdf(kg, out, serialisation="ntriples")


EXPORTS = Registry("export", "--format", {
    "beir": write_beir_folder,
    "completion": write_completion_folder,
    "turtle": write_turtle,
    "ntriples": write_ntriples,
    "graphml": write_graphml,
    "triples": write_triples,
    "jsonl-docs": write_jsonl_docs,
    "neo4j": write_neo4j,
}, plugins=True)


FOLDER_FORMATS = ("beir", "completion", "neo4j")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", required=True, type=EXPORTS.check,
                        metavar="{" + ",".join(sorted(EXPORTS)) + "}|MODULE:FUNCTION",
                        help="export format (see above)")
    parser.add_argument("--out", required=True, help="file to write (a folder for beir, completion and neo4j)")
    parser.add_argument("--dataset", default="mh-mmkg",
                        help="built dataset folder, Hub repo id, or sources folder (default: mh-mmkg)")
    parser.add_argument("--header", action="store_true",
                        help="triples only: start the file with a head/relation/tail header line")
    parser.add_argument("--relation", choices=("type", "kind"), default="type",
                        help="triples only: name relations by base type (default) or by kind (type and condition)")
    parser.add_argument("--seed", type=int, default=0, help="completion only: seed of the split (default 0)")
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    from ..dataset.loading import load_graph

    if args.header and args.format != "triples":
        raise UserError(f"--header applies to --format triples only, not {args.format}")
    if args.relation != "type" and args.format != "triples":
        raise UserError(f"--relation applies to --format triples only, not {args.format}")
    if args.format not in EXPORTS:
        return _run_plugin(args)
    if args.format in FOLDER_FORMATS:
        claim_output_folder(args.out, args.format, inputs=[args.dataset])
    else:
        kind = "triples-kind" if args.format == "triples" and args.relation == "kind" else args.format
        claim_output_file(args.out, kind, inputs=[args.dataset], force=args.force)
    kg = load_graph(args.dataset)
    options = {"header": True} if args.header else {}
    if args.format == "triples":
        options["relation"] = args.relation
    if args.format == "completion":
        options["seed"] = args.seed
    if args.format == "beir":
        from ..dataset.loading import load_queries

        options["queries"] = load_queries(args.dataset)
    EXPORTS[args.format](kg, Path(args.out), **options)
    print(f"wrote {args.format} export of {kg} to {args.out}")
    return 0


def _run_plugin(args: argparse.Namespace) -> int:
    """An export of the user's own: FUNCTION(kg, out) writes what --out names."""
    from ..dataset.loading import load_graph

    writer = guarded(EXPORTS.resolve(args.format), f"--format {args.format}", "export")
    out = check_output_file(args.out, inputs=[args.dataset])
    kg = load_graph(args.dataset)
    writer(kg, out)
    print(f"wrote {args.format} export of {kg} to {args.out}")
    return 0
