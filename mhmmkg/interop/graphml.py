"""GraphML written as a stream: the bytes ``networkx.write_graphml`` (its ElementTree writer)
gives for ``exports.to_networkx(kg)``, without building the graph or the XML tree in memory.

networkx numbers the data keys in the order it first meets each (attribute, type, scope) over the
nodes then the edges, and writes them newest first; it lists nodes in insertion order and the
edges of a MultiDiGraph head by head (in node order), then tail by tail (in the order each tail
was first linked from that head), then by key. A first pass over the attributes fixes the keys;
the second writes each element as soon as it is made.
"""
from __future__ import annotations

from typing import IO

from ..kg.graph import KnowledgeGraph

HEADER = ("<?xml version='1.0' encoding='utf-8'?>\n"
          '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
          'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
          'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
          'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">')
_XML_TYPES = {str: "string", bool: "boolean", int: "int", float: "double"}


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attribute(text: str) -> str:
    return (_escape_text(text).replace('"', "&quot;").replace("\r", "&#13;")
            .replace("\n", "&#10;").replace("\t", "&#09;"))


def _node_ids(kg: KnowledgeGraph) -> list[str]:
    """Entities, then the ends of relations that name no entity (``add_edge`` adds those)."""
    ids = dict.fromkeys(e.id for e in kg.entities)
    for r in kg.relations:
        ids.setdefault(r.head)
        ids.setdefault(r.tail)
    return list(ids)


def _edges(kg: KnowledgeGraph, node_ids: list[str]) -> list:
    """Relations in the order networkx lists the edges of the MultiDiGraph ``to_networkx`` builds
    (a later relation with the same id replaces the earlier one in its place, as ``add_edge`` does)."""
    adjacency: dict[str, dict[str, dict[str, object]]] = {}
    for r in kg.relations:
        adjacency.setdefault(r.head, {}).setdefault(r.tail, {})[r.id] = r
    return [r for head in node_ids for keyed in adjacency.get(head, {}).values() for r in keyed.values()]


def _data(keys: dict, scope: str, attrs: dict) -> str:
    lines = []
    for name, value in attrs.items():
        key = keys[name, _XML_TYPES[type(value)], scope]
        text = _escape_text(str(value))
        lines.append(f'\n      <data key="{key}">{text}</data>' if text else f'\n      <data key="{key}" />')
    return "".join(lines)


def _element(tag: str, attributes: str, body: str) -> str:
    if not body:
        return f"\n    <{tag} {attributes} />"
    return f"\n    <{tag} {attributes}>{body}\n    </{tag}>"


def write_graphml(kg: KnowledgeGraph, stream: IO[bytes]) -> None:
    """``kg`` as GraphML, written to a binary stream one element at a time."""
    from .exports import GRAPH_ATTRIBUTES, edge_attributes, node_attributes

    node_ids = _node_ids(kg)
    edges = _edges(kg, node_ids)
    keys: dict[tuple[str, str, str], str] = {}
    for scope, attributes in (("graph", [GRAPH_ATTRIBUTES]), ("node", map(node_attributes, kg.entities)),
                              ("edge", map(edge_attributes, edges))):
        for attrs in attributes:
            for name, value in attrs.items():
                keys.setdefault((name, _XML_TYPES[type(value)], scope), f"d{len(keys)}")
    head = [HEADER] + [
        f'\n  <key id="{key}" for="{scope}" attr.name="{_escape_attribute(name)}" attr.type="{xml_type}" />'
        for (name, xml_type, scope), key in reversed(keys.items())]
    graph_data = _data(keys, "graph", GRAPH_ATTRIBUTES).replace("\n      ", "\n    ")
    if not node_ids and not graph_data:
        stream.write("".join([*head, '\n  <graph edgedefault="directed" />\n</graphml>\n']).encode("utf-8"))
        return
    stream.write("".join([*head, '\n  <graph edgedefault="directed">']).encode("utf-8"))
    entities = {e.id: e for e in kg.entities}
    for node in node_ids:
        body = _data(keys, "node", node_attributes(entities[node])) if node in entities else ""
        stream.write(_element("node", f'id="{_escape_attribute(node)}"', body).encode("utf-8"))
    for r in edges:
        ends = f'source="{_escape_attribute(r.head)}" target="{_escape_attribute(r.tail)}" id="{_escape_attribute(r.id)}"'
        stream.write(_element("edge", ends, _data(keys, "edge", edge_attributes(r))).encode("utf-8"))
    stream.write(f"{graph_data}\n  </graph>\n</graphml>\n".encode("utf-8"))
