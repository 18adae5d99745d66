"""The RDF export: read back by rdflib, queried with SPARQL, every relation and its condition kept."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from mhmmkg.cli import main
from mhmmkg.loading import load_graph

rdflib = pytest.importorskip("rdflib")
README = Path(__file__).parents[1] / "README.md"

FOLLOWS = """
PREFIX mh: <urn:mhmmkg:vocab:>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
SELECT ?head ?tail ?condition WHERE {
  ?s rdf:subject ?head ; rdf:predicate mh:continues_with ; rdf:object ?tail .
  OPTIONAL { ?s mh:condition ?condition }
}"""


def exported(dataset, tmp_path, fmt) -> "rdflib.Graph":
    out = tmp_path / f"kg.{fmt}"
    assert main(["export", "--format", fmt, "--dataset", str(dataset), "--out", str(out)]) == 0
    return rdflib.Graph().parse(out, format={"turtle": "turtle", "ntriples": "nt"}[fmt])


@pytest.mark.parametrize("fmt", ["turtle", "ntriples"])
def test_every_relation_is_a_triple_and_a_statement_with_its_condition(tiny_dataset, tmp_path, fmt):
    kg = load_graph(tiny_dataset)
    graph = exported(tiny_dataset, tmp_path, fmt)
    entity = rdflib.Namespace("urn:mhmmkg:entity:")
    mh = rdflib.Namespace("urn:mhmmkg:vocab:")
    for r in kg.relations:
        assert (entity[r.head], mh[r.type], entity[r.tail]) in graph
    statements = list(graph.subjects(rdflib.RDF.type, rdflib.RDF.Statement))
    assert len(statements) == len(kg.relations)
    rows = {(str(h).rsplit(":", 1)[1], str(t).rsplit(":", 1)[1], str(c) if c else None)
            for h, t, c in graph.query(FOLLOWS)}
    expected = {(r.head, r.tail, r.condition) for r in kg.relations if r.type == "continues_with"}
    assert rows == expected
    slam = entity["wolf.double-slam"]
    assert (slam, rdflib.RDF.type, mh.AttackAction) in graph
    assert (slam, rdflib.RDFS.label, rdflib.Literal("Double Slam")) in graph
    assert (slam, mh.monster, entity["wolf"]) in graph
    assert (entity["wolf"], rdflib.namespace.SKOS.altLabel, rdflib.Literal("Thunder Wolf")) in graph


def test_provenance_travels_into_rdf(tmp_path):
    kg = load_graph("data")
    sourced = next(e for e in kg.entities if any(s.startswith("https://") for s in e.sources)
                   and any(s.startswith("mhworlddata:") for s in e.sources))
    graph = exported("data", tmp_path, "turtle")
    node = rdflib.URIRef("urn:mhmmkg:entity:" + sourced.id)
    sources = {str(s) for s in graph.objects(node, rdflib.namespace.DCTERMS.source)}
    assert sources == set(sourced.sources)
    unverified = [r for r in kg.relations if r.unverified]
    flagged = {str(o) for s, o in graph.subject_objects(rdflib.URIRef("urn:mhmmkg:vocab:relationId"))
               if graph.value(s, rdflib.URIRef("urn:mhmmkg:vocab:unverified")).toPython() is True}
    assert flagged == {r.id for r in unverified}


def test_the_readme_sparql_example_answers_from_the_default_data(tmp_path):
    query = re.search(r"```sparql\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    graph = exported("data", tmp_path, "turtle")
    rows = [(str(name), str(condition) if condition else None) for name, condition in graph.query(query)]
    kg = load_graph("data")
    expected = sorted((kg.entity(r.tail).name, r.condition) for r in kg.relations
                      if r.head == "zinogre.double-slam" and r.type == "continues_with")
    assert expected and sorted(rows, key=lambda x: (x[0], x[1] or "")) == sorted(expected, key=lambda x: (x[0], x[1] or ""))


def test_same_kg_same_bytes(tiny_dataset, tmp_path):
    for fmt in ("turtle", "ntriples"):
        a, b = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
        for out in (a, b):
            assert main(["export", "--format", fmt, "--dataset", str(tiny_dataset), "--out", str(out)]) == 0
        assert a.read_bytes() == b.read_bytes()
