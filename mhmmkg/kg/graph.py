"""The knowledge graph API: entities and every relation between them (also as a networkx MultiDiGraph)."""
from __future__ import annotations

import re
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from functools import cached_property, lru_cache
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from ..lexical.tokens import folded
from .model import Entity, Relation

if TYPE_CHECKING:
    import networkx as nx


#: (id, type, monster, names) of an entity
EntityNames = tuple[str, str, "str | None", tuple[str, ...]]


class Neighbour(NamedTuple):
    relation: Relation
    entity: Entity


_NOT_ALPHANUMERIC = re.compile(r"[\W_]+")


@lru_cache(maxsize=1 << 16)
def normalise_name(text: str) -> str:
    """Case-, accent-, punctuation- and space-insensitive form of a name, for look-ups: its words
    (letters and digits of any script, as ``mhmmkg.lexical.tokens.folded`` reads them) joined by
    single spaces."""
    return " ".join(_NOT_ALPHANUMERIC.sub(" ", folded(text)).split())


class PairLinks:
    """The (head, tail) pairs some relation links, as a set of pairs."""

    __slots__ = ("_pairs",)

    def __init__(self, pairs: Iterable[tuple[str, str]]):
        self._pairs = set(pairs)

    def __contains__(self, pair: tuple[str, str]) -> bool:
        return pair in self._pairs

    def all_walks(self, paths: Sequence[Sequence[str]], ids: Container[str]) -> bool:
        """True when every entity on the non-empty ``paths`` is one of ``ids`` and every hop is linked."""
        if not all(map(ids.__contains__, set(chain.from_iterable(paths)))):
            return False
        hops = chain.from_iterable(map(zip, paths, map(itemgetter(slice(1, None)), paths)))
        return set(hops) <= self._pairs


class CodedLinks:
    """The (head, tail) pairs some relation links, each held as one integer,
    ``numbers[head] * size + numbers[tail]``, where ``numbers`` gives every end a distinct number
    below ``size``; ``codes`` is the sorted NumPy array of them (a loaded graph makes it from its
    columns: no string, pair or Python int per relation)."""

    __slots__ = ("_numbers", "_size", "_codes")

    def __init__(self, numbers: Mapping[str, int], size: int, codes):
        self._numbers, self._size, self._codes = numbers, size, codes

    def __contains__(self, pair: tuple[str, str]) -> bool:
        head, tail = pair
        number = self._numbers.get
        first, second = number(head), number(tail)
        return first is not None and second is not None and bool(self._found(first * self._size + second))

    def all_walks(self, paths: Sequence[Sequence[str]], ids: Container[str]) -> bool:
        """True when every entity on the non-empty ``paths`` is one of ``ids`` and every hop is
        linked: each entity looked up once (once more when ``ids`` is not what numbers the ends),
        the codes of the hops made by NumPy, between neighbours on one path."""
        import numpy as np

        entities = list(chain.from_iterable(paths))
        if not entities:
            return True
        if self._numbers is not ids and not all(map(ids.__contains__, set(entities))):
            return False
        try:
            numbered = np.array(list(map(self._numbers.__getitem__, entities)), dtype=np.int64)
        except KeyError:        # not an entity (every entity has a number)
            return False
        hops = numbered[:-1] * self._size + numbered[1:]
        last = np.cumsum(np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))) - 1
        within = np.ones(len(hops), dtype=bool)
        within[last[:-1]] = False       # from the end of a path to the start of the next
        return bool(self._found(hops[within]).all())

    def _found(self, wanted):
        """For each code in ``wanted`` (a NumPy array or one int), whether it is in ``codes``."""
        codes = self._codes
        at = codes.searchsorted(wanted)
        return (at < len(codes)) & (codes[at.clip(max=len(codes) - 1)] == wanted) if len(codes) else at != at


class KnowledgeGraph:
    """Entities and relations of MH-MMKG.

    Parallel relations between two entities (different types or conditions) are all kept.
    Look-ups use plain dicts (head -> tail -> relation ids, in insertion order); ``graph``, the
    same graph as a ``networkx.MultiDiGraph`` keyed by relation id, is built on first use.
    """

    def __init__(self, entities: Iterable[Entity], relations: Iterable[Relation]):
        self._entities: dict[str, Entity] = {entity.id: entity for entity in entities}
        self._given_relations = list(relations)
        self._names_called: dict[str, frozenset[str]] = {}

    @classmethod
    def deferred(cls, entities: Callable[[], list[Entity]], relations: Callable[[], list[Relation]],
                 heads_and_tails: Iterable[tuple[str, str]], *, ids: Container[str] | None = None,
                 entity: Callable[[str], Entity] | None = None,
                 names: Callable[[], list[EntityNames]] | None = None,
                 types: Callable[[], list[tuple[str, str]]] | None = None,
                 columns: Callable[[], tuple] | None = None,
                 count_relations: Callable[[], int] | None = None,
                 relations_among: Callable[[Collection[tuple[str, str]]], list[Relation] | None] | None = None,
                 links: Callable[[], CodedLinks | None] | None = None,
                 ) -> KnowledgeGraph:
        """A graph whose Entity and Relation objects are made by ``entities()`` and ``relations()``
        on first use: checking walks (``has_edge``) needs only the (head, tail) of each relation,
        and a loaded graph a program does not read needs neither. With ``ids`` (every entity id)
        and ``entity`` (one entity by id, KeyError for none; the object ``entities()`` then gives),
        membership and ``entity()`` need no other entity made: checking a submission looks up a
        few thousand topics. With ``names`` (what ``entity_names`` gives), the entities' names
        are read without making the entities; with ``types`` ((id, type) of every entity, as
        ``entity_names`` gives them), the ids of one type are read without their names. With
        ``columns`` (see ``arrow_columns``), exports read the fields column by column; with
        ``count_relations`` (how many distinct relation ids), the graph's repr makes no relation;
        with ``relations_among`` (the relations linking some (head, tail) pairs, made alone; None
        when it cannot tell them), ``relations_among`` makes no other; with ``links`` (the pairs
        ``heads_and_tails`` gives, as CodedLinks; None when it cannot make them), checking walks
        makes no pair."""
        graph = cls.__new__(cls)
        graph._make_entities = entities
        if ids is not None and entity is not None:
            graph._entity_ids = ids
            graph._make_entity = entity
        if names is not None:
            graph._make_names = names
        if types is not None:
            graph._make_types = types
        if columns is not None:
            graph._make_columns = columns
        if count_relations is not None:
            graph._count_relations = count_relations
        if relations_among is not None:
            graph._make_relations_among = relations_among
        if links is not None:
            graph._make_links = links
        graph._make_relations = relations
        graph._heads_and_tails = heads_and_tails
        graph._names_called = {}
        return graph

    # The relations of a deferred graph, and the look-up indexes of every graph, are made on first
    # use: loading a graph to check walks, read or export it needs none of them.

    @cached_property
    def _entities(self) -> dict[str, Entity]:
        entities = {entity.id: entity for entity in self._make_entities()}
        del self._make_entities           # and the columns it made them from
        self.__dict__.pop("_make_columns", None)
        self.__dict__.pop("_make_entity", None)
        self.__dict__.pop("_make_names", None)
        self.__dict__.pop("_make_types", None)
        return entities

    @cached_property
    def _entity_ids(self) -> Container[str]:
        return self._entities

    @cached_property
    def _given_relations(self) -> list[Relation]:
        relations = self._make_relations()
        del self._make_relations          # and the columns it made them from
        self.__dict__.pop("_make_columns", None)
        return relations

    def arrow_columns(self) -> tuple | None:
        """The entities' and relations' fields as the Arrow columns a loaded graph reads them from,
        while neither has been made into objects (else, and for a graph made from objects, None):
        ({"id": ..., "name": ..., ...}, {"id": ..., "head": ..., ...}), one column per field of
        Entity and Relation, lists as list columns, the rows in the tables' order (an id may be on
        two rows, where ``entities`` and ``relations`` keep one)."""
        make = self.__dict__.get("_make_columns")
        return make() if make is not None else None

    @cached_property
    def _relations(self) -> dict[str, Relation]:
        return {rel.id: rel for rel in self._given_relations}

    @cached_property
    def _out(self) -> dict[str, dict[str, list[str]]]:
        out: dict[str, dict[str, list[str]]] = {}
        for rel in self._given_relations:
            keys = out.setdefault(rel.head, {}).setdefault(rel.tail, [])
            if rel.id not in keys:
                keys.append(rel.id)
        return out

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        return self._name_indexes[0]

    @cached_property
    def _by_name_and_owner(self) -> dict[tuple[str, str | None], list[str]]:
        return self._name_indexes[1]

    @cached_property
    def _name_indexes(self) -> tuple[dict[str, list[str]], dict[tuple[str, str | None], list[str]]]:
        by_name: dict[str, list[str]] = {}
        by_name_and_owner: dict[tuple[str, str | None], list[str]] = {}
        for entity in self._entities.values():
            for name in entity.names:
                key = normalise_name(name)
                ids = by_name.setdefault(key, [])
                if not ids or ids[-1] != entity.id:     # an entity's names are added one after another
                    ids.append(entity.id)
                    by_name_and_owner.setdefault((key, entity.monster), []).append(entity.id)
        return by_name, by_name_and_owner

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        import networkx as nx

        graph = nx.MultiDiGraph()
        graph.add_nodes_from(self._entities)
        graph.add_edges_from((rel.head, rel.tail, rel.id) for rel in self._relations.values())
        return graph

    def __contains__(self, entity_id: str) -> bool:
        return entity_id in self._entity_ids

    def __len__(self) -> int:
        if "_entities" not in self.__dict__ and "_make_entity" in self.__dict__:
            return len(self._entity_ids)      # every id once, as the entities made would have them
        return len(self._entities)

    def __repr__(self) -> str:
        count = self.__dict__.get("_count_relations") if "_relations" not in self.__dict__ else None
        return f"KnowledgeGraph({len(self)} entities, {count() if count else len(self._relations)} relations)"

    @property
    def entities(self) -> list[Entity]:
        return list(self._entities.values())

    @property
    def relations(self) -> list[Relation]:
        return list(self._relations.values())

    def entity(self, entity_id: str) -> Entity:
        made = self.__dict__.get("_entities")
        if made is None and "_make_entity" in self.__dict__:
            return self._make_entity(entity_id)
        return self._entities[entity_id]

    def relation(self, relation_id: str) -> Relation:
        return self._relations[relation_id]

    def entity_names(self) -> list[EntityNames]:
        """(id, type, monster, names) of every entity, in the order of ``entities``: what finding
        entities by name needs (a loaded graph reads it from its columns, without making the
        entities and their texts). Made once."""
        named = self.__dict__.get("_entity_names")
        if named is None:
            make = self.__dict__.get("_make_names") if "_entities" not in self.__dict__ else None
            named = self._entity_names = make() if make is not None else [
                (e.id, e.type, e.monster, e.names) for e in self._entities.values()]
        return named

    def naming(self, entity_id: str) -> EntityNames:
        """(id, type, monster, names) of one entity, as ``entity_names`` gives it (``names[0]`` is
        its name; KeyError for an unknown id). A loaded graph reads it from its name columns: a
        program that names entities without their texts (scoring, the report) makes none of them."""
        if "_entities" in self.__dict__ or "_make_names" not in self.__dict__:
            entity = self._entities[entity_id]
            return entity.id, entity.type, entity.monster, entity.names
        index = self.__dict__.get("_naming")
        if index is None:
            index = self._naming = {named[0]: named for named in self.entity_names()}
        return index[entity_id]

    def entity_name(self, entity_id: str) -> str:
        """The name of one entity (``entity(entity_id).name``, read as ``naming`` reads it)."""
        return self.naming(entity_id)[3][0]

    def ids_of_type(self, entity_type: str) -> frozenset[str]:
        """The ids of the entities of type ``entity_type`` (a loaded graph reads them from its
        type column when no entity or name has been made: checking topics needs no more)."""
        make = self.__dict__.get("_make_types")
        if make is not None and "_entity_names" not in self.__dict__ and "_entities" not in self.__dict__:
            pairs = make()
        else:
            pairs = ((entity_id, type_) for entity_id, type_, _, _ in self.entity_names())
        return frozenset(entity_id for entity_id, type_ in pairs if type_ == entity_type)

    def monsters(self) -> list[Entity]:
        return [e for e in self._entities.values() if e.type == "monster"]

    def neighbours(self, entity_id: str) -> list[Neighbour]:
        """Outgoing relations of an entity with the entity each leads to, in a stable order."""
        return [Neighbour(self._relations[key], self._entities[tail])
                for tail, keys in self._out.get(entity_id, {}).items() for key in keys]

    def relations_among(self, pairs: Collection[tuple[str, str]]) -> list[Relation]:
        """The relations whose (head, tail) is one of ``pairs``, in the order of ``relations``; a
        loaded graph whose relations are not made yet makes only these (a report names the hops
        it draws, not the whole graph)."""
        make = self.__dict__.get("_make_relations_among") if "_given_relations" not in self.__dict__ else None
        found = make(pairs) if make is not None else None
        return found if found is not None else [r for r in self._relations.values() if (r.head, r.tail) in pairs]

    def relations_between(self, head: str, tail: str) -> list[Relation]:
        return [self._relations[key] for key in self._out.get(head, {}).get(tail, ())]

    def has_edge(self, head: str, tail: str) -> bool:
        return (head, tail) in self._linked

    @cached_property
    def _linked(self) -> PairLinks | CodedLinks:
        """Every (head, tail) some relation links: checking walks needs no more."""
        heads_and_tails = self.__dict__.pop("_heads_and_tails", None)
        make = self.__dict__.pop("_make_links", None)
        links = make() if make is not None else None
        if links is not None:
            return links
        if heads_and_tails is None:
            heads_and_tails = ((rel.head, rel.tail) for rel in self._given_relations)
        return PairLinks(heads_and_tails)

    def is_walk(self, path: Sequence[str]) -> bool:
        """True when every entity exists and each hop follows a relation in its direction."""
        return bool(path) and all(map(self._entity_ids.__contains__, path)) and all(
            map(self._linked.__contains__, zip(path, path[1:])))

    def are_walks(self, paths: Sequence[Sequence[str]]) -> bool:
        """``all(map(self.is_walk, paths))``, tested once over all the paths: each is non-empty,
        the set of their entities is known and all their hops are linked (checking a submission:
        22k paths at 100x, with many entities in common)."""
        return all(paths) and self._linked.all_walks(paths, self._entity_ids)

    def find(self, name: str, monster: str | None = None) -> list[Entity]:
        """Entities called ``name`` (or with it as an alias); with ``monster``, those it owns first."""
        ids = self._by_name.get(normalise_name(name), [])
        found = [self._entities[i] for i in ids]
        if monster is not None:
            found.sort(key=lambda e: (e.monster != monster and e.id != monster, e.monster is not None))
        return found

    def find_owned(self, name: str, monster: str | None) -> list[Entity]:
        """The entities called ``name`` that ``monster`` owns (``find`` lists them first), at a
        cost that does not grow with how many other monsters have an entity of that name."""
        return [self._entities[i] for i in self._by_name_and_owner.get((normalise_name(name), monster), ())]

    def names_called(self, name: str, *, excluding: str | None = None) -> frozenset[str]:
        """Every normalised name of every entity called ``name`` (except the entity ``excluding``):
        the names that mean the same as ``name``. Cached per name."""
        key = normalise_name(name)
        ids = self._by_name.get(key, ())
        if excluding in ids:
            return frozenset(normalise_name(n) for i in ids if i != excluding for n in self._entities[i].names)
        names = self._names_called.get(key)
        if names is None:
            names = frozenset(normalise_name(n) for i in ids for n in self._entities[i].names)
            self._names_called[key] = names
        return names

    def subgraph(self, monster: str) -> KnowledgeGraph:
        """The monster's own entities and relations, plus the entities its relations point to."""
        owned = {e.id for e in self._entities.values() if e.id == monster or e.monster == monster}
        rels = [r for r in self._relations.values() if r.head in owned]
        ids = owned | {r.tail for r in rels}
        return KnowledgeGraph([e for i, e in self._entities.items() if i in ids], rels)

    def render_entity(self, entity_id: str, *, caption: str | None = None) -> str:
        """One entity as prompt text: its name, then its caption and context where it has them.

        ``caption`` replaces the human caption (for settings where a model described the media).
        """
        from ..llm.prompt_text import entity_text       # prompt text is for the agents, not for loading or scoring

        entity = self._entities[entity_id]
        return entity_text(entity.name, entity.type, entity.caption if caption is None else caption, entity.text)

    def render_relation(self, relation: Relation) -> str:
        from ..llm.prompt_text import relation_text

        return relation_text(self._entities[relation.head].name, relation.label, self._entities[relation.tail].name,
                             relation.condition, relation.info)

    def render_path(self, path: Sequence[str], *, captions: dict[str, str] | None = None) -> str:
        """A root-to-leaf path as text: each entity with caption and context, then one sentence per edge."""
        captions = captions or {}
        parts = [self.render_entity(e, caption=captions.get(e)) for e in path]
        for a, b in zip(path, path[1:]):
            parts += [self.render_relation(r) for r in self.relations_between(a, b)]
        return "\n".join(parts)

    def render_paths(self, paths: Sequence[Sequence[str]], *, captions: dict[str, str] | None = None) -> str:
        from ..llm.prompt_text import knowledge_paths_text

        return knowledge_paths_text(([self._entities[e].name for e in p], self.render_path(p, captions=captions))
                                    for p in paths)
