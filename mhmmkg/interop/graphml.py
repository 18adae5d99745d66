"""GraphML written as a stream: the bytes ``networkx.write_graphml`` (its ElementTree writer)
gives for ``exports.to_networkx(kg)``, without building the graph or the XML tree in memory.

networkx numbers the data keys in the order it first meets each (attribute, type, scope) over the
nodes then the edges, and writes them newest first; it lists nodes in insertion order and the
edges of a MultiDiGraph head by head (in node order), then tail by tail (in the order each tail
was first linked from that head), then by key. A first pass over the attributes fixes the keys;
the second writes each element as soon as it is made.
"""
from __future__ import annotations

import re
from typing import IO

from ..kg.graph import KnowledgeGraph

HEADER = ("<?xml version='1.0' encoding='utf-8'?>\n"
          '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
          'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
          'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
          'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">')
_TO_ESCAPE_IN_ATTRIBUTES = re.compile('[&<>"\r\n\t]')
_XML_TYPES = {str: "string", bool: "boolean", int: "int", float: "double"}


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attribute(text: str) -> str:
    if not _TO_ESCAPE_IN_ATTRIBUTES.search(text):
        return text
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
    (a later relation with the same id replaces the earlier one in its place, as ``add_edge`` does).

    With every id distinct (as a build makes them) that order is a stable sort: by the head's place
    among the nodes, then by where the pair (head, tail) first occurs."""
    relations = kg.relations
    if len({r.id for r in relations}) != len(relations):
        adjacency: dict[str, dict[str, dict[str, object]]] = {}
        for r in relations:
            adjacency.setdefault(r.head, {}).setdefault(r.tail, {})[r.id] = r
        return [r for head in node_ids for keyed in adjacency.get(head, {}).values() for r in keyed.values()]
    heads = [r.head for r in relations]
    pairs = list(zip(heads, [r.tail for r in relations]))
    first = dict(zip(reversed(pairs), range(len(pairs) - 1, -1, -1)))
    place = {node: i for i, node in enumerate(node_ids)}
    size = len(pairs)
    order = [place[head] * size + first[pair] for head, pair in zip(heads, pairs)]
    return [relations[i] for i in sorted(range(size), key=order.__getitem__)]


def _data(prefixes: dict, attrs: dict) -> str:
    """The ``<data>`` lines of ``attrs``; ``prefixes`` holds each (name, Python type)'s opening
    ``<data key="dN"``."""
    lines = []
    for name, value in attrs.items():
        prefix = prefixes[name, type(value)]
        text = value if type(value) is str else str(value)
        if "&" in text or "<" in text or ">" in text:
            text = _escape_text(text)
        lines.append(f"{prefix}>{text}</data>" if text else f"{prefix} />")
    return "".join(lines)


def _element(tag: str, attributes: str, body: str) -> str:
    if not body:
        return f"\n    <{tag} {attributes} />"
    return f"\n    <{tag} {attributes}>{body}\n    </{tag}>"


def _add_keys(keys: dict, prefixes: dict, scope: str, attributes) -> None:
    """Number the data keys of ``attributes`` (mappings, in order) as networkx does, and note each
    one's ``<data>`` opening in ``prefixes``; records with the same names and types are looked at once."""
    seen = set()
    for attrs in attributes:
        signature = (tuple(attrs), tuple(map(type, attrs.values())))
        if signature in seen:
            continue
        seen.add(signature)
        for name, kind in zip(*signature):
            key = keys.setdefault((name, _XML_TYPES[kind], scope), f"d{len(keys)}")
            prefixes[scope].setdefault((name, kind), f'\n      <data key="{key}"')


#: elements joined into one write
_BATCH = 2000


def write_graphml(kg: KnowledgeGraph, stream: IO[bytes]) -> None:
    """``kg`` as GraphML, written to a binary stream a few thousand elements at a time: built
    column by column with Arrow's string kernels when every field has its usual type, else
    element by element."""
    from .graphml_columns import write_graphml_by_columns

    if not write_graphml_by_columns(kg, stream):
        write_graphml_by_elements(kg, stream)


def write_graphml_by_elements(kg: KnowledgeGraph, stream: IO[bytes]) -> None:
    """``kg`` as GraphML, each element formatted on its own (any field values)."""
    from .exports import GRAPH_ATTRIBUTES, edge_attributes, node_attributes

    node_ids = _node_ids(kg)
    edges = _edges(kg, node_ids)
    node_attributes_in_order = list(map(node_attributes, kg.entities))
    node_attributes_of = dict(zip((e.id for e in kg.entities), node_attributes_in_order))
    edge_attributes_in_order = list(map(edge_attributes, edges))
    keys: dict[tuple[str, str, str], str] = {}
    prefixes: dict[str, dict] = {"graph": {}, "node": {}, "edge": {}}
    for scope, attributes in (("graph", [GRAPH_ATTRIBUTES]), ("node", node_attributes_in_order),
                              ("edge", edge_attributes_in_order)):
        _add_keys(keys, prefixes, scope, attributes)
    head = [HEADER] + [
        f'\n  <key id="{key}" for="{scope}" attr.name="{_escape_attribute(name)}" attr.type="{xml_type}" />'
        for (name, xml_type, scope), key in reversed(keys.items())]
    graph_data = _data(prefixes["graph"], GRAPH_ATTRIBUTES).replace("\n      ", "\n    ")
    if not node_ids and not graph_data:
        stream.write("".join([*head, '\n  <graph edgedefault="directed" />\n</graphml>\n']).encode("utf-8"))
        return
    stream.write("".join([*head, '\n  <graph edgedefault="directed">']).encode("utf-8"))
    node_prefixes, edge_prefixes = prefixes["node"], prefixes["edge"]
    escaped = {node: _escape_attribute(node) for node in node_ids}
    for start in range(0, len(node_ids), _BATCH):
        stream.write("".join(
            _element("node", f'id="{escaped[node]}"',
                     _data(node_prefixes, node_attributes_of[node]) if node in node_attributes_of else "")
            for node in node_ids[start:start + _BATCH]).encode("utf-8"))
    for start in range(0, len(edges), _BATCH):
        stream.write("".join(
            _element("edge", f'source="{escaped[r.head]}" target="{escaped[r.tail]}" '
                             f'id="{_escape_attribute(r.id)}"', _data(edge_prefixes, attrs))
            for r, attrs in zip(edges[start:start + _BATCH], edge_attributes_in_order[start:start + _BATCH])
        ).encode("utf-8"))
    stream.write(f"{graph_data}\n  </graph>\n</graphml>\n".encode("utf-8"))
