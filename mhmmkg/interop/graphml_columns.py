"""GraphML built column by column: the bytes ``graphml.write_graphml_by_elements`` writes, with
each field of every node and edge formatted by Arrow's string kernels (escaping, the ``<data>``
line, the element around them) instead of a few Python string operations per value.

It takes the graph's fields as ``exports.node_attributes`` and ``exports.edge_attributes`` give
them (same names, order and dropping rules); a graph with a field of another type (not a string,
None or a bool where these are expected), a string Arrow cannot hold (a lone surrogate) or two
relations with one id is left to the element writer (``write_graphml_by_columns`` returns False
before writing anything).
"""
from __future__ import annotations

import struct
from itertools import chain
from operator import attrgetter
from typing import IO, NamedTuple

from ..kg.graph import KnowledgeGraph
from .graphml import _XML_TYPES, HEADER, _add_keys, _data, _escape_attribute, _node_ids

#: (name, type) of the fields of a node and of an edge, in the order of ``exports.node_attributes``
#: and ``exports.edge_attributes``
NODE_FIELDS = (("name", str), ("type", str), ("monster", str), ("aliases", str), ("text", str), ("caption", str),
               ("name_origin", str), ("sources", str), ("unverified", bool))
EDGE_FIELDS = (("type", str), ("label", str), ("condition", str), ("info", str), ("sources", str),
               ("unverified", bool))
#: rows formatted and written at a time
_BATCH = 5000


def _joined(values) -> list:
    """Lists of strings joined by LIST_DELIMITER, as the exports join aliases and sources."""
    from .exports import LIST_DELIMITER

    return list(map(LIST_DELIMITER.join, values))


def _node_columns(entities) -> list[list]:
    columns = [list(map(attrgetter(name), entities)) for name, _ in NODE_FIELDS]
    columns[3] = _joined(columns[3])
    columns[7] = _joined(columns[7])
    return columns


def _edge_columns(relations) -> list[list]:
    columns = [list(map(attrgetter(name), relations)) for name, _ in EDGE_FIELDS]
    columns[4] = _joined(columns[4])
    return columns


def _strings(pa, values: list):
    """An Arrow string array of Python strings and Nones. (Not ``pa.array`` or ``pa.scalar``:
    they import pandas, 0.15 s, to ask whether the value is a pandas object.)"""
    builder = pa.lib.StringBuilder()
    builder.append_values(values)
    return builder.finish()


class _Kernels:
    """Arrow's compute functions with the constant strings they take as Arrow scalars (made
    from a string array, see ``_strings``)."""

    def __init__(self):
        import pyarrow as pa
        import pyarrow.compute as pc

        self.pa, self.pc = pa, pc
        self._scalars: dict[str, object] = {}

    def text(self, value: str):
        scalar = self._scalars.get(value)
        if scalar is None:
            scalar = self._scalars[value] = _strings(self.pa, [value])[0]
        return scalar

    def join(self, *parts):
        """The parts (arrays, or strings repeated on every row) joined row by row."""
        return self.pc.binary_join_element_wise(*(self.text(p) if isinstance(p, str) else p for p in parts),
                                                self.text(""))

    def choose(self, condition, if_true, if_false):
        return self.pc.if_else(condition, *(self.text(p) if isinstance(p, str) else p for p in (if_true, if_false)))

    def is_empty(self, array):
        return self.pc.equal(array, self.text(""))

    def escaped_text(self, array):
        for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
            array = self.pc.replace_substring(array, char, entity)
        return array

    def escaped_attribute(self, array):
        """``graphml._escape_attribute`` of every value."""
        array = self.escaped_text(array)
        for char, entity in (('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;")):
            array = self.pc.replace_substring(array, char, entity)
        return array


def _of_types(columns: list[list], fields) -> bool:
    """True when each column holds only its field's type (strings may be None)."""
    return all(set(map(type, column)) <= ({str, type(None)} if kind is str else {bool})
               for column, (_, kind) in zip(columns, fields))


def _present(k: _Kernels, array, kind, keep_empty: bool):
    """Which rows give the field a ``<data>`` line (None: every row): not None (and, for nodes,
    not "")."""
    if kind is bool:
        return None
    valid = k.pc.is_valid(array)
    return valid if keep_empty else k.pc.and_kleene(valid, k.pc.invert(k.is_empty(array)))


def _key_masks(k: _Kernels, presence: list, rows: int) -> list[int]:
    """The distinct sets of fields rows have (bit i: field i), in the order rows first have them
    (``unique`` keeps that order)."""
    if not rows:
        return []
    flags = [k.choose(present, "1", "0") if present is not None else "1" for present in presence]
    if all(isinstance(flag, str) for flag in flags):
        distinct = ["".join(flags)]
    else:
        distinct = k.pc.unique(k.join(*flags)).to_pylist()
    return [sum(1 << i for i, flag in enumerate(mask) if flag == "1") for mask in distinct]


def _number_keys(keys: dict, scope: str, fields, masks: list[int]) -> list[str]:
    """Number the data keys as ``graphml._add_keys`` does for rows with these field sets; each
    field's ``<data key="dN"`` opening ("" for a field no row has)."""
    prefixes = [""] * len(fields)
    for mask in masks:
        for i, (name, kind) in enumerate(fields):
            if mask >> i & 1:
                key = keys.setdefault((name, _XML_TYPES[kind], scope), f"d{len(keys)}")
                prefixes[i] = prefixes[i] or f'\n      <data key="{key}"'
    return prefixes


def _bodies(k: _Kernels, arrays: list, presence: list, prefixes: list[str], fields, keep_empty: bool):
    """The ``<data>`` lines of each row, joined (``graphml._data``)."""
    pieces = []
    for array, present, prefix, (_, kind) in zip(arrays, presence, prefixes, fields):
        if not prefix:
            continue
        if kind is bool:                # "True" or "False": nothing to escape, never empty
            pieces.append(k.join(prefix, ">", array, "</data>"))
            continue
        line = k.join(prefix, ">", k.escaped_text(array), "</data>")
        if keep_empty:
            line = k.choose(k.is_empty(array), f"{prefix} />", line)
        pieces.append(k.choose(present, line, ""))
    return k.join(*pieces) if pieces else None


def _elements(k: _Kernels, tag: str, attributes, bodies):
    """``graphml._element`` of every row: ``attributes`` is the text inside the opening tag."""
    empty = k.join(f"\n    <{tag} ", attributes, " />")
    if bodies is None:
        return empty
    return k.choose(k.is_empty(bodies), empty, k.join(f"\n    <{tag} ", attributes, ">", bodies, f"\n    </{tag}>"))


def _write_all(stream: IO[bytes], pa, lines) -> None:
    """The strings of an Arrow string array (no nulls) one after another, from its data buffer."""
    offsets, data = lines.buffers()[1:3]
    width = "<q" if pa.types.is_large_string(lines.type) else "<i"
    size = struct.calcsize(width)
    start = struct.unpack_from(width, offsets, size * lines.offset)[0]
    end = struct.unpack_from(width, offsets, size * (lines.offset + len(lines)))[0]
    stream.write(memoryview(data)[start:end])


def _edge_order(heads: list[str], tails: list[str], place: dict[str, int]):
    """``graphml._edges``' order of distinct-id relations: by the head's place among the nodes,
    then by where the pair (head, tail) first occurs (a stable sort)."""
    import numpy as np

    size = len(heads)
    h = np.fromiter(map(place.__getitem__, heads), np.int64, size)
    t = np.fromiter(map(place.__getitem__, tails), np.int64, size)
    return _order_of_places(h, t, len(place))


def _order_of_places(h, t, nodes: int):
    """``_edge_order`` of the heads' and tails' places among the nodes (numpy int64 arrays)."""
    import numpy as np

    _, first, inverse = np.unique(h * nodes + t, return_index=True, return_inverse=True)
    return np.argsort(h * len(h) + first[inverse.reshape(-1)], kind="stable")


class _Columns(NamedTuple):
    """What the writer formats: Arrow string arrays (flags as "True"/"False"; dictionary-encoded
    ones are decoded batch by batch); the edges in the order ``order`` (indices) gives, or as
    they are when it is None."""

    entity_ids: object
    nodes: list                 # NODE_FIELDS of each entity
    node_ids: list[str]         # entities, then the ends of relations that name no entity
    ends: list                  # head, tail and id of each relation
    edges: list                 # EDGE_FIELDS of each relation
    order: object = None


def _batch(array, order, rows: slice):
    """Rows ``rows`` of ``array`` (in the order ``order`` gives, if any), as plain strings."""
    part = array[rows] if order is None else array.take(order[rows])
    return part.dictionary_decode() if hasattr(part, "dictionary_decode") else part


def _from_objects(k: _Kernels, kg: KnowledgeGraph) -> _Columns | None:
    entities, relations = kg.entities, kg.relations
    heads, tails, ids = (list(map(attrgetter(name), relations)) for name in ("head", "tail", "id"))
    entity_ids = [e.id for e in entities]
    if len(set(ids)) != len(ids):
        return None
    node_columns = _node_columns(entities)
    if not (_of_types(node_columns, NODE_FIELDS) and all(set(map(type, column)) == {str} or not column
                                                         for column in (heads, tails, ids, entity_ids))):
        return None
    node_ids = _node_ids(kg)
    order = _edge_order(heads, tails, {node: i for i, node in enumerate(node_ids)}).tolist()
    edge_columns = _edge_columns(list(map(relations.__getitem__, order)))
    if not _of_types(edge_columns, EDGE_FIELDS):
        return None
    pa = k.pa
    try:
        return _Columns(_strings(pa, entity_ids),
                        [_strings(pa, column if kind is str else list(map(str, column)))
                         for column, (_, kind) in zip(node_columns, NODE_FIELDS)],
                        node_ids,
                        [_strings(pa, list(map(column.__getitem__, order))) for column in (heads, tails, ids)],
                        [_strings(pa, column if kind is str else list(map(str, column)))
                         for column, (_, kind) in zip(edge_columns, EDGE_FIELDS)])
    except (pa.ArrowException, UnicodeError):
        return None


def _one_array(column):
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _places(k: _Kernels, ends, entity_ids):
    """Each value's row among ``entity_ids`` (a numpy int64 array), or None when some value is
    not an entity id (each distinct value looked up once for a dictionary-encoded column)."""
    import numpy as np

    pc = k.pc
    if k.pa.types.is_dictionary(ends.type):
        places = pc.index_in(ends.dictionary, value_set=entity_ids).take(ends.indices)
    else:
        places = pc.index_in(ends, value_set=entity_ids)
    if places.null_count:
        return None
    return np.frombuffer(places.buffers()[1], dtype=np.int32, count=len(places), offset=4 * places.offset
                         ).astype(np.int64)


def _from_arrow(k: _Kernels, columns: tuple[dict, dict]) -> _Columns | None:
    """The fields from a loaded graph's columns (``KnowledgeGraph.arrow_columns``): what the
    objects would give (a list joined by LIST_DELIMITER, "" for none; a null flag False), or
    None when they may not (an id on two rows, a column of another type, a null in a list)."""
    from .exports import LIST_DELIMITER

    pa, pc = k.pa, k.pc
    entity, relation = ({name: _one_array(column) for name, column in table.items()} for table in columns)

    def string(array) -> bool:
        kind = array.type.value_type if pa.types.is_dictionary(array.type) else array.type
        return pa.types.is_string(kind)

    strings = [entity[name] for name, kind in NODE_FIELDS if kind is str and name not in ("aliases", "sources")]
    strings += [relation[name] for name in ("head", "tail", "id", "type", "label", "condition", "info")]
    lists = [entity["aliases"], entity["sources"], relation["sources"]]
    if not (all(map(string, [entity["id"], *strings]))
            and all(pa.types.is_list(a.type) and pa.types.is_string(a.type.value_type) and not a.flatten().null_count
                    for a in lists)
            and all(pa.types.is_boolean(a.type) for a in (entity["unverified"], relation["unverified"]))):
        return None
    if any(a.null_count for a in (entity["id"], relation["id"], relation["head"], relation["tail"])) or any(
            len(set(a.to_pylist())) != len(a) for a in (entity["id"], relation["id"])):   # (Arrow's hashing keeps 50 MiB)
        return None

    def joined(array):
        text = pc.binary_join(array, k.text(LIST_DELIMITER))
        return k.choose(pc.is_valid(text), text, "")

    def flags(array):
        return k.choose(pc.and_kleene(pc.is_valid(array), array), "True", "False")

    entity_ids = entity["id"]
    heads, tails = (_places(k, relation[name], entity_ids) for name in ("head", "tail"))
    if heads is None or tails is None:         # ends that name no entity: place them as _node_ids does
        heads, tails = (relation[name].to_pylist() for name in ("head", "tail"))
        node_ids = list(dict.fromkeys(chain(entity_ids.to_pylist(), chain.from_iterable(zip(heads, tails)))))
        order = _edge_order(heads, tails, {node: i for i, node in enumerate(node_ids)})
    else:
        node_ids = entity_ids.to_pylist()
        order = _order_of_places(heads, tails, len(node_ids))
    indices = pa.Array.from_buffers(pa.int64(), len(order), [None, pa.py_buffer(order.astype("int64"))])
    nodes = [joined(entity[name]) if name in ("aliases", "sources") else flags(entity[name]) if kind is bool
             else entity[name] for name, kind in NODE_FIELDS]
    nodes = [a.dictionary_decode() if pa.types.is_dictionary(a.type) else a for a in nodes]
    edges = [joined(relation[name]) if name == "sources" else flags(relation[name]) if kind is bool
             else relation[name] for name, kind in EDGE_FIELDS]
    return _Columns(entity_ids, nodes, node_ids, [relation[name] for name in ("head", "tail", "id")], edges, indices)


def write_graphml_by_columns(kg: KnowledgeGraph, stream: IO[bytes]) -> bool:
    """``kg`` as GraphML on ``stream``; False (nothing written) for a graph the element writer must write."""
    from .exports import GRAPH_ATTRIBUTES

    k = _Kernels()
    if not hasattr(k.pa.lib, "StringBuilder"):      # (a pyarrow without it: the element writer)
        return False
    arrow = kg.arrow_columns()
    columns = _from_arrow(k, arrow) if arrow is not None else None
    columns = columns or _from_objects(k, kg)
    if columns is None:
        return False
    entities, relations = len(columns.entity_ids), len(columns.ends[0])
    node_presence = [_present(k, a, kind, False) for a, (_, kind) in zip(columns.nodes, NODE_FIELDS)]
    edge_presence = [_present(k, a, kind, True) for a, (_, kind) in zip(columns.edges, EDGE_FIELDS)]
    if columns.order is not None:       # the keys are numbered in the order the edges are written
        edge_presence = [p if p is None else p.take(columns.order) for p in edge_presence]
    keys: dict[tuple[str, str, str], str] = {}
    graph_prefixes: dict[str, dict] = {"graph": {}}
    _add_keys(keys, graph_prefixes, "graph", [GRAPH_ATTRIBUTES])
    node_prefixes = _number_keys(keys, "node", NODE_FIELDS, _key_masks(k, node_presence, entities))
    edge_prefixes = _number_keys(keys, "edge", EDGE_FIELDS, _key_masks(k, edge_presence, relations))
    head = [HEADER] + [
        f'\n  <key id="{key}" for="{scope}" attr.name="{_escape_attribute(name)}" attr.type="{xml_type}" />'
        for (name, xml_type, scope), key in reversed(keys.items())]
    graph_data = _data(graph_prefixes["graph"], GRAPH_ATTRIBUTES).replace("\n      ", "\n    ")
    if not columns.node_ids and not graph_data:
        stream.write("".join([*head, '\n  <graph edgedefault="directed" />\n</graphml>\n']).encode("utf-8"))
        return True
    stream.write("".join([*head, '\n  <graph edgedefault="directed">']).encode("utf-8"))
    for start in range(0, entities, _BATCH):
        rows = slice(start, start + _BATCH)
        attributes = k.join('id="', k.escaped_attribute(columns.entity_ids[rows]), '"')
        bodies = _bodies(k, [a[rows] for a in columns.nodes], [p if p is None else p[rows] for p in node_presence],
                         node_prefixes, NODE_FIELDS, keep_empty=False)
        _write_all(stream, k.pa, _elements(k, "node", attributes, bodies))
    extra = columns.node_ids[entities:]          # ends of relations that name no entity
    stream.write("".join(f'\n    <node id="{_escape_attribute(node)}" />' for node in extra).encode("utf-8"))
    for start in range(0, relations, _BATCH):
        rows = slice(start, start + _BATCH)
        head_, tail_, id_ = (k.escaped_attribute(_batch(a, columns.order, rows)) for a in columns.ends)
        attributes = k.join('source="', head_, '" target="', tail_, '" id="', id_, '"')
        bodies = _bodies(k, [_batch(a, columns.order, rows) for a in columns.edges],
                         [p if p is None else p[rows] for p in edge_presence],
                         edge_prefixes, EDGE_FIELDS, keep_empty=True)
        _write_all(stream, k.pa, _elements(k, "edge", attributes, bodies))
    stream.write(f"{graph_data}\n  </graph>\n</graphml>\n".encode("utf-8"))
    return True
