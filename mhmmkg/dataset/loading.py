"""Loading the KG and the benchmark from a built dataset folder, a Hub repo id or a sources folder."""
from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from itertools import accumulate, chain, islice
from operator import add
from pathlib import Path

from ..collector import fewer_collections
from ..errors import UserError
from ..kg.graph import CodedLinks, EntityNames, KnowledgeGraph
from ..kg.model import AnswerKey, Entity, Query, Relation
from ..records import from_columns
from .plain_yaml import read_plain


def _kind(source: str | Path) -> str:
    path = Path(source)
    if path.is_dir() and (path / "shared.json").is_file():
        return "sources"
    if path.is_dir():
        if not (path / "README.md").is_file():
            raise UserError(f"{path}: not a built dataset folder (no README.md) nor a sources folder (no shared.json)")
        return "folder"
    if path.exists() or "/" not in str(source) or str(source).startswith((".", "/")):
        raise UserError(f"{source}: no dataset folder here; build one with 'mhmmkg build --out {source}', "
                        "or give a Hub dataset repo id ORG/NAME")
    return "hub"


def _load_config(source: str | Path, config: str, split: str):
    import datasets
    import yaml
    from datasets.exceptions import DatasetsError

    try:
        return datasets.load_dataset(str(source), config, split=split)
    except yaml.YAMLError as exc:
        raise _broken_card(Path(source), exc) from None
    except DatasetsError as exc:
        raise UserError(f"{source}: cannot read config {config!r}: {_root_cause(exc)}{_damage(source)}") from None
    except FileNotFoundError as exc:
        raise UserError(f"{source}: dataset not found ({exc})") from None
    except ConnectionError as exc:
        raise UserError(f"{source}: cannot reach the dataset on the Hub ({exc}); "
                        "check the repo id and your connection, or unset HF_HUB_OFFLINE") from None
    except ValueError as exc:
        raise UserError(f"{source}: cannot load config {config!r}: {exc}") from None


def _broken_card(folder: Path, exc: Exception) -> UserError:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 2} column {mark.column + 1}" if mark else ""  # +1: the opening ---
    return UserError(f"{folder / 'README.md'}: the dataset card's YAML header is broken{where}: "
                     f"{getattr(exc, 'problem', None) or exc}")


def _root_cause(exc: BaseException) -> str:
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _damage(source: str | Path) -> str:
    """For a local dataset folder, which file differs from its manifest (the likely culprit)."""
    if not Path(source).is_dir():
        return ""
    from .manifest import verified_files

    try:
        verified_files(source)
    except UserError as exc:
        return f"; {exc}"
    return ""


def _card_configs(folder: Path) -> list | None:
    """The ``configs`` list of a dataset card's YAML front matter, or None when there is none."""
    from ..files.jsontext import read_text_file

    text = read_text_file(folder / "README.md", "dataset card")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end < 0:
        return None
    front = _front_matter(text[4:end], folder)
    configs = front.get("configs") if isinstance(front, dict) else None
    return configs if isinstance(configs, list) else None


@lru_cache(maxsize=4)
def _front_matter(text: str, folder: Path):
    """A card's YAML front matter, parsed once per process for each distinct text (loading a
    graph and its queries reads the card three times). Callers only read what it gives. The
    plain header the builder writes is read without PyYAML; any other goes to PyYAML."""
    front = read_plain(text)
    if front is not None:
        return front
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise _broken_card(folder, exc) from None


def _data_files(folder: Path, config: str, split: str) -> list[Path] | None:
    """The Parquet files a built folder's card declares for ``config``/``split``, as
    ``datasets.load_dataset`` would resolve them; None when the card says nothing usable."""
    for entry in _card_configs(folder) or ():
        if not isinstance(entry, dict) or entry.get("config_name") != config:
            continue
        for item in entry.get("data_files") or ():
            if not isinstance(item, dict) or item.get("split") != split:
                continue
            patterns = item.get("path")
            patterns = [patterns] if isinstance(patterns, str) else patterns
            if not isinstance(patterns, list):
                return None
            files: list[Path] = []
            for pattern in patterns:
                if any(c in pattern for c in "*?["):
                    files += sorted(folder.glob(pattern))
                else:
                    files.append(folder / pattern)
            if not files or not all(f.suffix == ".parquet" for f in files):
                return None
            return files
    return None


def _read_table(source: str | Path, config: str, split: str, columns: list[str], dictionary: Collection[str] = ()):
    """Columns of one config as an Arrow table. A built folder's Parquet files are read straight
    with pyarrow (what ``datasets`` reads too, without its start-up and row-by-row formatting);
    a Hub id goes through ``datasets.load_dataset``. The string columns named in ``dictionary``
    come dictionary-encoded from a built folder's files (as Parquet stores them: no hashing of
    every value, and no ``pyarrow.compute`` to import for ``dictionary_encode``); the strings of
    a nested column are named by their Parquet path (``paths.list.element.list.element``)."""
    files = _data_files(Path(source), config, split) if _kind(source) == "folder" else None
    if files is None:
        return _load_config(source, config, split).select_columns(columns).with_format("arrow")[:]
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    encoded = [name for name in dictionary if name.partition(".")[0] in columns] or None
    for file in files:
        try:
            with _system_memory(), pq.ParquetFile(file, read_dictionary=encoded) as parquet:   # not pq.read_table: that imports pyarrow.dataset and pandas
                tables.append(parquet.read(columns=columns))
        except FileNotFoundError:
            raise UserError(f"{file}: missing, but the dataset card lists it for {config}/{split}; "
                            "rebuild the dataset") from None
        except (OSError, pa.ArrowException) as exc:
            raise UserError(f"{file}: cannot read config {config!r}: {exc}{_damage(source)}") from None
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


@contextmanager
def _system_memory():
    """Arrow's allocations from the C library's malloc while a table is read. pyarrow's default
    pool (mimalloc) keeps the memory a read frees for its next reads, which a process that reads
    its tables once never makes: at 100x, reading the graph and queries left 100 MiB of RSS
    behind (the peak of ``mhmmkg report`` of 2 runs 446 -> 381 MiB). The buffers of a table go
    back to the pool that gave them, whichever pool is the default then."""
    import pyarrow as pa

    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def _shared_strings(column, known: dict[str, str] | None = None) -> list[str | None]:
    """A string column as Python strings, one object per distinct value (``known``'s object where
    it has the value): the types, labels and heads of 100k relations are a few thousand strings."""
    encoded = _one_array(column)
    if not hasattr(encoded, "dictionary"):
        encoded = _kernel("dictionary_encode", encoded)
    values = encoded.dictionary.to_pylist()
    if known:
        values = [known.get(v, v) for v in values]
    return _spread([*values, None], encoded.indices)


def _shared_tuples(column) -> list[tuple[str, ...]]:
    """A column of string lists as tuples (``()`` for null), one tuple per distinct list: facts
    share a few hundred lists of sources."""
    column = _one_array(column)
    values = _shared_strings(_kernel("list_flatten", column))
    shared: dict[tuple[str, ...], tuple[str, ...]] = {(): ()}
    return [shared.setdefault(key, key) for key in map(tuple, _pieces(values, column))]


def _name_tuples(names, aliases) -> list[tuple[str, ...]]:
    """(name, *aliases) of each row (no alias for a null list). The alias lists are read as they
    are, not shared as ``_shared_tuples`` shares lists: nearly every list of aliases is distinct."""
    aliases = _one_array(aliases)
    lists = aliases.to_pylist()
    if aliases.null_count:
        lists = [found or () for found in lists]
    return list(map(add, zip(names.to_pylist()), map(tuple, lists)))


def _pieces(values: list, column) -> Iterator[list]:
    """The slice of ``values`` (``column`` flattened) that each row of the list array ``column``
    holds (an empty one for null), cut by the column's offsets in C."""
    if column.null_count:       # a null row may still span values that flattening dropped
        lengths = [length or 0 for length in _kernel("list_value_length", column).to_pylist()]
        offsets = [0, *accumulate(lengths)]
    else:
        offsets = column.offsets.to_pylist()
        if offsets and offsets[0]:       # a slice of a longer array
            offsets = [offset - offsets[0] for offset in offsets]
    return map(values.__getitem__, map(slice, offsets, islice(offsets, 1, None)))


def _kernel(name: str, *arrays, options=None):
    """The Arrow compute function ``name`` (its default options) on ``arrays``, such as what the
    Array methods ``dictionary_encode``, ``flatten`` (of a list array), ``value_lengths`` and
    ``is_valid`` call, without importing ``pyarrow.compute`` as they do (its Python wrapper of
    every kernel takes 25 ms to make; loading a benchmark needs a few kernels)."""
    try:
        from pyarrow._compute import call_function
    except ImportError:         # a pyarrow that moved it: the public name
        from pyarrow.compute import call_function
    return call_function(name, list(arrays), options)


def _one_array(column):
    """A chunked column as one array (an array as it is; a column of one chunk, that chunk)."""
    if not hasattr(column, "combine_chunks"):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _spread(values: list, indices) -> list:
    """``values[i]`` for each index, the last value where an index is null: the objects gathered
    by NumPy from the indices' buffer, with no Python int made per index (a third of the time).
    (Not ``fill_null`` or ``to_numpy``: they import pandas, 0.15 s.)"""
    import numpy as np

    lookup = np.empty(len(values), dtype=object)
    lookup[:] = values
    rows = _integers(indices)
    if indices.null_count:
        rows = np.where(_valid(indices), rows, len(values) - 1)
    return lookup[rows].tolist()


def _valid(array):
    """Whether each slot of an Arrow array that has nulls holds a value, as a NumPy bool array
    (read from the array's validity bitmap)."""
    import numpy as np

    bits = np.frombuffer(array.buffers()[0], dtype=np.uint8)
    return np.unpackbits(bits, count=array.offset + len(array), bitorder="little")[array.offset:].view(bool)


def _flags(column) -> list[bool]:
    """A boolean column as Python bools, False for null (as ``bool(None)``)."""
    return list(map(bool, column.to_pylist()))


def load_graph(source: str | Path = "mh-mmkg") -> KnowledgeGraph:
    """The KG of a built dataset folder, a Hub dataset repo id, or a curated sources folder."""
    if _kind(source) == "sources":
        from ..curation.sources import graph_from_sources

        return graph_from_sources(source)
    a = _Columns(source, "attributes", "kg", ["id", *_Entities.FIELDS], dictionary=("type",)).select(["id", "type"])
    table = _Columns(source, "graph", "kg", ["head", "tail", *RELATION_FIELDS],
                     dictionary=("head", "tail")).select(["head", "tail"])
    with _system_memory():
        ids = a.column("id").to_pylist()

    @cache
    def heads_and_tails() -> tuple[list[str], list[str]]:
        with _system_memory():
            known = dict(zip(ids, ids))
            return _shared_strings(table.column("head"), known), _shared_strings(table.column("tail"), known)

    def relations() -> list[Relation]:
        heads, tails = heads_and_tails()
        fields = table.select(RELATION_FIELDS)
        with _system_memory(), fewer_collections(off=True):
            return list(map(Relation, fields.column("id").to_pylist(), heads, tails,
                            *(_shared_strings(fields.column(name)) for name in ("type", "label", "condition", "info")),
                            _shared_tuples(fields.column("sources")), _flags(fields.column("unverified"))))

    def relations_among(pairs: Collection[tuple[str, str]]) -> list[Relation] | None:
        """``relations()`` of the rows linking one of ``pairs`` only; None when an id is on two
        rows (the graph keeps one of them: ``relations()`` says which)."""
        import pyarrow as pa

        heads, tails = heads_and_tails()
        rows = [row for row, pair in enumerate(zip(heads, tails)) if pair in pairs]
        with _system_memory(), fewer_collections(off=True):
            ids = table.passing("id")
            if len(set(ids.to_pylist())) != len(heads):     # (Arrow's hash table of the ids would take more memory)
                return None
            # the rows as an Arrow array from their bytes: pa.array(rows) would import pandas
            taken = pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(array("q", rows))])
            chosen = {name: (ids if name == "id" else table.passing(name)).take(taken) for name in RELATION_FIELDS}
            return list(map(Relation, chosen["id"].to_pylist(), [heads[row] for row in rows], [tails[row] for row in rows],
                            *(_shared_strings(chosen[name]) for name in ("type", "label", "condition", "info")),
                            _shared_tuples(chosen["sources"]), _flags(chosen["unverified"])))

    def columns() -> tuple[dict, dict]:
        entity_fields = a.select(_Entities.FIELDS)
        return ({name: entity_fields.column(name) for name in ["id", *_Entities.FIELDS]},
                {name: table.select(RELATION_FIELDS).column(name) for name in ["head", "tail", *RELATION_FIELDS]})

    entities = _Entities(a, ids)

    def links() -> CodedLinks | None:
        with _system_memory():
            return _coded_links(table.column("head"), table.column("tail"), a.column("id"), entities.rows)

    return KnowledgeGraph.deferred(entities.all, relations, _Pairs(heads_and_tails), ids=entities.rows,
                                   entity=entities.one, names=entities.names, types=entities.types, columns=columns,
                                   count_relations=lambda: len(set(table.column("id").to_pylist())),
                                   relations_among=relations_among, links=links)


def _coded_links(heads, tails, ids, rows: dict[str, int]) -> CodedLinks | None:
    """The (head, tail) of every relation as CodedLinks, each end numbered by its entity's row in
    the column ``ids`` (``rows``: id -> row; an end that is no entity, after them): Arrow finds the
    rows of the distinct ends, NumPy makes the codes, with no string hashed in Python and no
    object per relation. None when an end is null (then the pairs themselves say what is linked)."""
    import numpy as np

    heads, tails = (_dictionary_array(column) for column in (heads, tails))
    if any(array.null_count or array.dictionary.null_count for array in (heads, tails)):
        return None
    numbers, size = rows, len(ids)
    ends = [_rows_in(array.dictionary, ids) for array in (heads, tails)] if len(rows) == len(ids) else [None]
    if any(found is None for found in ends):       # an id on two rows, or an end that is no entity
        numbers, size = dict(rows), max(rows.values(), default=-1) + 1
        values = [array.dictionary.to_pylist() for array in (heads, tails)]
        for end in chain.from_iterable(values):
            if end not in numbers:
                numbers[end], size = size, size + 1
        ends = [np.array(list(map(numbers.__getitem__, distinct)), dtype=np.int64) for distinct in values]
    head_rows, tail_rows = (found.astype(np.int64)[_integers(array.indices)] for found, array in zip(ends, (heads, tails)))
    return CodedLinks(numbers, size, np.sort(head_rows * size + tail_rows))


def _dictionary_array(column):
    """A string column as one dictionary-encoded array."""
    array = _one_array(column)
    return array if hasattr(array, "dictionary") else _kernel("dictionary_encode", array)


def _rows_in(values, ids):
    """The row of each of ``values`` in the Arrow column ``ids`` (a NumPy array); None when one is not there."""
    try:
        from pyarrow._compute import SetLookupOptions
    except ImportError:
        from pyarrow.compute import SetLookupOptions
    found = _kernel("index_in", values, options=SetLookupOptions(value_set=_one_array(ids)))
    return None if found.null_count else _integers(found)


def _integers(array):
    """An integer Arrow array without nulls as a NumPy view of its values (``to_numpy`` imports pandas)."""
    import numpy as np

    dtype = np.dtype(str(array.type))
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


RELATION_FIELDS = ["id", "type", "label", "condition", "info", "sources", "unverified"]


class _Columns:
    """The columns of one config of a dataset, each read on first use (``select``) and kept: a
    verb reads only the columns it needs (checking walks: the ids, types, heads and tails).
    Opening every file at the first ``select`` finds a missing or truncated file at once."""

    def __init__(self, source: str | Path, config: str, split: str, columns: list[str],
                 dictionary: Collection[str] = ()):
        self._where = (source, config, split)
        self._dictionary = dictionary
        self._read: dict[str, object] = {}
        self._columns = columns
        self._by_parts = _kind(source) == "folder"       # a Hub dataset is loaded once, with every column

    def select(self, names: list[str]) -> _Columns:
        """These columns read (those not read yet, in one pass over the files); ``self``."""
        missing = [name for name in names if name not in self._read]
        if missing:
            if not self._by_parts:
                missing = [name for name in self._columns if name not in self._read]
            table = _read_table(*self._where, missing, self._dictionary)
            self._read.update(zip(missing, table.columns))
        return self

    def column(self, name: str):
        return self.select([name])._read[name]

    def passing(self, name: str):
        """One column, read for the caller alone when it is not kept (its memory goes with the
        caller's last use): for a few rows of it, needed once."""
        if name in self._read or not self._by_parts:
            return self.column(name)
        return _read_table(*self._where, [name], self._dictionary).column(0)


class _Entities:
    """The entities of an attributes table: all at once (``all``), or one by id (``one``), the
    same object ``all`` then gives."""

    FIELDS = ["name", "type", "monster", "aliases", "text", "caption", "has_media", "sources", "unverified",
              "name_origin"]

    def __init__(self, table, ids: list[str]):
        self._table, self._ids = table, ids
        self.rows = dict(zip(ids, range(len(ids))))      # an id's last row, as {e.id: e for e in all()} keeps
        self._made: dict[int, Entity] = {}
        self._arrays: list | None = None

    def one(self, entity_id: str) -> Entity:
        row = self.rows[entity_id]
        entity = self._made.get(row)
        if entity is None:
            if self._arrays is None:
                table = self._table.select(self.FIELDS)
                self._arrays = [_one_array(table.column(name)) for name in self.FIELDS]
            name, type_, monster, aliases, text, caption, media, sources, unverified, origin = (
                array[row].as_py() for array in self._arrays)
            entity = self._made[row] = Entity(self._ids[row], name, type_, monster, tuple(aliases or ()), text,
                                              caption, bool(media), tuple(sources or ()), bool(unverified), origin)
        return entity

    def names(self) -> list[EntityNames]:
        """``KnowledgeGraph.entity_names`` from the columns: each id at its first row (the place
        ``all`` gives it in the graph) with its last row's names (the entity the graph keeps)."""
        a = self._table.select(["name", "type", "monster", "aliases"])
        with _system_memory():
            names, types = _name_tuples(a.column("name"), a.column("aliases")), _shared_strings(a.column("type"))
            monsters = _shared_strings(a.column("monster"))
        if len(self.rows) == len(self._ids):            # no id on two rows
            return list(zip(self._ids, types, monsters, names))
        return [(entity_id, types[row], monsters[row], names[row]) for entity_id, row in self.rows.items()]

    def types(self) -> list[tuple[str, str]]:
        """(id, type) of each entity, in the order and from the rows ``names`` takes them."""
        with _system_memory():
            types = _shared_strings(self._table.column("type"))
        if len(self.rows) == len(self._ids):
            return list(zip(self._ids, types))
        return [(entity_id, types[row]) for entity_id, row in self.rows.items()]

    def all(self) -> list[Entity]:
        a = self._table.select(self.FIELDS)
        with _system_memory(), fewer_collections(off=True):
            columns = [self._ids, a.column("name").to_pylist(), _shared_strings(a.column("type")),
                       _shared_strings(a.column("monster")), _shared_tuples(a.column("aliases")),
                       a.column("text").to_pylist(), a.column("caption").to_pylist(), _flags(a.column("has_media")),
                       _shared_tuples(a.column("sources")), _flags(a.column("unverified")),
                       _shared_strings(a.column("name_origin"))]
            entities = list(map(Entity, *columns))
        for row, entity in self._made.items():
            entities[row] = entity
        return entities


class _Pairs:
    """The (head, tail) of every relation, made by ``ends()`` when first iterated (in C: no
    generator step per relation)."""

    def __init__(self, ends: Callable[[], tuple[list[str], list[str]]]):
        self._ends = ends

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(*self._ends())


QUERY_COLUMNS = ["id", "subtask", "question", "monster", "extra", "perception", "answer", "key", "paths", "has_media"]


def _query(r: dict, images: tuple[bytes, ...] = ()) -> Query:
    return Query(id=r["id"], subtask=r["subtask"], question=r["question"], monster=r["monster"],
                 answer=r["answer"], paths=tuple(tuple(p) for p in r["paths"]),
                 extra=r["extra"], perception=r["perception"], has_media=bool(r["has_media"]), images=images,
                 key=AnswerKey.from_json(r.get("key")))


def load_queries(source: str | Path = "mh-mmkg", *, with_images: bool = False) -> list[Query]:
    """The benchmark queries of a built dataset, a Hub repo id or a sources folder.

    ``with_images`` also decodes each query's images and keyframes (as encoded bytes).
    """
    if _kind(source) == "sources":
        from ..curation.sources import load_sources

        return load_sources(source).queries
    if not with_images:
        return _queries_from_table(_read_table(source, "queries", "test", QUERY_COLUMNS, QUERY_STRINGS_SHARED))
    if _kind(source) == "folder" and _has_media_columns(source):
        table = _read_table(source, "queries", "test", [*QUERY_COLUMNS, *MEDIA_COLUMNS])
        if not any(any(table.column(name).to_pylist()) for name in MEDIA_COLUMNS):
            return _queries_from_table(table)    # no query has media: nothing to decode
    out = []
    for r in _load_config(source, "queries", "test"):
        images = tuple(_image_bytes(im) for im in (r.get("images") or []) + (r.get("keyframes") or []))
        out.append(_query(r, images))
    return out


def load_query_ids(source: str | Path = "mh-mmkg") -> list[str]:
    """The ids of the benchmark queries, in order: all that checking a submission needs of them
    (only that column is read, from every file of the queries)."""
    if _kind(source) == "sources":
        return [q.id for q in load_queries(source)]
    return _read_table(source, "queries", "test", ["id"]).column("id").to_pylist()


MEDIA_COLUMNS = ["images", "keyframes"]
#: the strings of the queries that ``_queries_from_table`` makes one object per distinct value
QUERY_STRINGS_SHARED = ("monster", "key.kind", "key.entities.list.element", "key.polarity",
                        "key.nuggets.list.element.list.element", "key.rivals.list.element", "key.origin",
                        "paths.list.element.list.element")


def _queries_from_table(table) -> list[Query]:
    """``_query`` of every row of an Arrow table, read column by column (no dict per row); the
    monsters and the entity ids on the paths as one object per distinct value, the answer keys
    made from the key's fields (the cyclic collector off meanwhile: these objects hold no cycles,
    and its passes over them took a quarter of the time at 100x)."""
    with fewer_collections(off=True):
        with _system_memory():
            columns = [table.column(name).to_pylist() for name in ("id", "subtask", "question")]
            columns += [_shared_strings(table.column("monster")), table.column("answer").to_pylist(),
                        _nested_tuples(table.column("paths")), table.column("extra").to_pylist(),
                        table.column("perception").to_pylist(), _flags(table.column("has_media"))]
            keys = _answer_keys(table.column("key"))
        return from_columns(Query, *columns, [()] * len(keys), keys)


def _nested_tuples(column) -> list[tuple[tuple[str, ...], ...]]:
    """A column of lists of string lists as tuples of tuples (``()`` for null), each distinct
    string one object. The inner tuples are not shared as ``_shared_tuples`` shares lists:
    nearly every path is distinct, so hashing them cost more than it saved."""
    column = _one_array(column)
    inner = _kernel("list_flatten", column)
    return _cut_rows(_cut_rows(_shared_strings(_kernel("list_flatten", inner)), inner), column)


_KEY_FIELDS = ("kind", "entities", "polarity", "nuggets", "rivals", "origin")


def _answer_keys(column) -> list[AnswerKey | None]:
    """``AnswerKey.from_json`` of every row of the ``key`` column, made from the struct's fields
    (no dict per row); a column of another shape goes through ``from_json``."""
    import pyarrow as pa

    keys = _one_array(column)
    if (not pa.types.is_struct(keys.type) or tuple(f.name for f in keys.type) != _KEY_FIELDS
            or _kernel("list_flatten", keys.field("nuggets")).null_count):      # from_json fails on a null nugget: let it
        return list(map(AnswerKey.from_json, keys.to_pylist()))
    kind, entities, polarity, nuggets, rivals, origin = keys.flatten()     # the rows' nulls on each field
    origins = [o or "curated" for o in _shared_strings(origin)]
    made = from_columns(AnswerKey, _shared_strings(kind), _key_tuples(entities), _shared_strings(polarity),
                        _key_tuples(nuggets, nested=True), _key_tuples(rivals), origins)
    if keys.null_count:
        made = [key if valid else None for key, valid in zip(made, _kernel("is_valid", keys).to_pylist())]
    return made


def _key_tuples(column, *, nested: bool = False) -> list[tuple]:
    """A key's column of string lists (of lists of them with ``nested``) as tuples, ``()`` for
    null, each distinct string one object (most keys name no nuggets and no rivals, and a yes/no
    key no entities: ``_cut_rows`` cuts only the rows holding values)."""
    if nested:
        return _nested_tuples(column)
    column = _one_array(column)
    return _cut_rows(_shared_strings(_kernel("list_flatten", column)), column)


def _cut_rows(values: list, column) -> list[tuple]:
    """``tuple`` of the slice of ``values`` (``column`` flattened) that each row of the list array
    ``column`` holds, as ``_pieces`` cuts them. When most rows are empty, only the others are cut
    (found by Arrow), each empty one ``()`` without a cut."""
    if column.null_count:       # a null row may still span values that flattening dropped
        return list(map(tuple, _pieces(values, column)))
    rows = _kernel("indices_nonzero", _kernel("list_value_length", column)).to_pylist()
    if 2 * len(rows) > len(column):
        return list(map(tuple, _pieces(values, column)))
    offsets = column.offsets.to_pylist()
    base = offsets[0] if offsets else 0
    cut: list[tuple] = [()] * len(column)
    for row in rows:
        cut[row] = tuple(values[offsets[row] - base:offsets[row + 1] - base])
    return cut


def _has_media_columns(folder: str | Path) -> bool:
    """True when every Parquet file of the queries holds the image and keyframe columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = _data_files(Path(folder), "queries", "test")
    try:
        for file in files or ():
            with pq.ParquetFile(file) as parquet:
                if not set(MEDIA_COLUMNS) <= set(parquet.schema_arrow.names):
                    return False
        return bool(files)
    except (OSError, pa.ArrowException):
        return False     # the datasets path reports what is wrong


def _image_bytes(image) -> bytes:
    import io

    buffer = io.BytesIO()
    image.save(buffer, format=image.format or "PNG")
    return buffer.getvalue()
