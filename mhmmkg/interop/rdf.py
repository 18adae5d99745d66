"""The KG as RDF (Turtle or N-Triples), for rdflib, SPARQL endpoints and triple stores.

Vocabulary (prefix ``mh:`` = ``urn:mhmmkg:vocab:``, entities ``urn:mhmmkg:entity:<id>``):

- each entity has an ``rdf:type`` of its class (``mh:Monster``, ``mh:AttackAction``, ...),
  ``rdfs:label`` (the name), ``skos:altLabel`` (each alias), ``mh:text``, ``mh:caption``,
  ``mh:monster`` (the owning monster), ``mh:nameOrigin``, provenance (``dcterms:source``: a
  page as an IRI, a game table or a row of the authors' list as a literal) and ``mh:unverified``;
- each relation is a plain triple ``head mh:<type> tail`` (so simple SPARQL patterns work) and
  also a reified ``rdf:Statement`` (IRI ``urn:mhmmkg:relation:<relation id, percent-encoded>``)
  carrying what a plain triple cannot: ``mh:label`` (the surface phrase), ``mh:condition``,
  ``mh:info``, ``mh:relationId``, provenance. Parallel relations (the same pair and type under
  two conditions) stay two statements.

``pip install 'mhmmkg[rdf]'``; ``mhmmkg export --format turtle|ntriples --out FILE``.
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from ..files.atomic import atomic_path
from ..kg.graph import KnowledgeGraph
from ..integrations import require

VOCAB = "urn:mhmmkg:vocab:"
ENTITY = "urn:mhmmkg:entity:"
RELATION = "urn:mhmmkg:relation:"
SERIALISATIONS = {"turtle": "turtle", "ntriples": "nt"}


def class_name(entity_type: str) -> str:
    return "".join(part.title() for part in entity_type.split("_"))


def to_rdf(kg: KnowledgeGraph):
    """An ``rdflib.Graph`` of the KG (see the module docstring)."""
    rdflib = require("rdflib", "rdf")
    from rdflib.namespace import DCTERMS, RDF, RDFS, SKOS, XSD

    mh, entity = rdflib.Namespace(VOCAB), rdflib.Namespace(ENTITY)
    graph = rdflib.Graph()
    for prefix, namespace in (("mh", mh), ("e", entity), ("skos", SKOS), ("dcterms", DCTERMS)):
        graph.bind(prefix, namespace)

    def literal(value, datatype=None):
        return rdflib.Literal(value, datatype=datatype)

    def provenance(node, sources, unverified):
        for source in sources:
            is_page = source.startswith(("http://", "https://"))
            graph.add((node, DCTERMS.source, rdflib.URIRef(source) if is_page else literal(source)))
        graph.add((node, mh.unverified, literal(bool(unverified), XSD.boolean)))

    for e in kg.entities:
        node = entity[e.id]
        graph.add((node, RDF.type, mh[class_name(e.type)]))
        graph.add((node, RDFS.label, literal(e.name)))
        for alias in e.aliases:
            graph.add((node, SKOS.altLabel, literal(alias)))
        for field, value in (("text", e.text), ("caption", e.caption), ("nameOrigin", e.name_origin)):
            if value:
                graph.add((node, mh[field], literal(value)))
        if e.monster:
            graph.add((node, mh.monster, entity[e.monster]))
        provenance(node, e.sources, e.unverified)
    for r in kg.relations:
        head, predicate, tail = entity[r.head], mh[r.type], entity[r.tail]
        graph.add((head, predicate, tail))
        statement = rdflib.URIRef(RELATION + quote(r.id, safe=""))
        graph.add((statement, RDF.type, RDF.Statement))
        graph.add((statement, RDF.subject, head))
        graph.add((statement, RDF.predicate, predicate))
        graph.add((statement, RDF.object, tail))
        graph.add((statement, mh.relationId, literal(r.id)))
        graph.add((statement, mh.label, literal(r.label)))
        for field, value in (("condition", r.condition), ("info", r.info)):
            if value:
                graph.add((statement, mh[field], literal(value)))
        provenance(statement, r.sources, r.unverified)
    return graph


def write_rdf(kg: KnowledgeGraph, out: Path, *, serialisation: str) -> None:
    """Write the KG in one of SERIALISATIONS; the same KG always gives the same bytes (rdflib sorts
    Turtle by itself; N-Triples lines are sorted here)."""
    text = to_rdf(kg).serialize(format=SERIALISATIONS[serialisation])
    if serialisation == "ntriples":
        text = "".join(sorted(line + "\n" for line in text.splitlines() if line))
    with atomic_path(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
