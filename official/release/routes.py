"""Official search routes ("A>B>C;A>D") and entity keys, resolved to entity ids of a KnowledgeGraph.

Official entity keys are the current monster's name, a space and the entity name, except for
monster names and names containing "Element" or "Pierce Pod", which are global. A route node
that names a monster makes that monster current for the rest of the path.
"""
from __future__ import annotations

from dataclasses import dataclass

from mhmmkg.kg.graph import KnowledgeGraph, normalise_name as _key

GLOBAL_MARKERS = ("Element", "Pierce Pod")

#: The monsters of the authors' release, in their order.
OFFICIAL_MONSTERS: tuple[str, ...] = (
    "Anjanath", "Azure Rathalos", "Barroth", "Bazelgeuse", "Brachydios", "Diablos", "Frostfang Barioth",
    "Glavenus", "Kushala Daora", "Legiana", "Nergigante", "Rathalos", "Rathian", "Teostra", "Tigrex",
    "Nargacuga", "Zinogre", "Pink Rathian", "Yian Garuga", "Radobaan", "Lunastra", "Stygian Zinogre",
)


def split_routes(text: str | None) -> list[list[str]]:
    """``"A>B;A>C"`` -> ``[["A", "B"], ["A", "C"]]``; empty parts are dropped, names stripped."""
    routes = []
    for route in (text or "").split(";"):
        names = [n.strip() for n in route.split(">")]
        if any(names):
            routes.append(names)
    return routes


def route_syntax_problem(text) -> str | None:
    """Why a Search Route cell is malformed, or None.

    A trailing ';' is tolerated (it ends the last route); an empty node ("A>>B", "A>") or an
    empty route between two ';' is not, nor is a cell without any route.
    """
    if not isinstance(text, str) or not text.strip():
        return "empty Search Route"
    parts = text.strip().removesuffix(";").split(";")
    for i, route in enumerate(parts, start=1):
        if not route.strip():
            return f"route {i} is empty (two ';' in a row)"
        names = [n.strip() for n in route.split(">")]
        if not all(names):
            return f"route {i} {route.strip()!r} has an empty node (a '>' with no name on one side)"
    return None


def is_global_name(name: str) -> bool:
    return any(marker in name for marker in GLOBAL_MARKERS)


@dataclass(frozen=True)
class Unresolved:
    name: str
    monster: str
    reason: str


def resolve_route(kg: KnowledgeGraph, names: list[str], topic_monster: str) -> list[str] | Unresolved:
    """Entity ids for one official route, or the first node that cannot be resolved."""
    monsters = {_key(n): e.id for e in kg.monsters() for n in e.names}
    current = monsters.get(_key(topic_monster))
    if current is None:
        return Unresolved(topic_monster, topic_monster, "unknown monster")
    ids = []
    for name in names:
        if not name:
            return Unresolved(name, kg.entity(current).name, "empty route node")
        if _key(name) in monsters:
            current = monsters[_key(name)]
            ids.append(current)
            continue
        found = find_in_scope(kg, name, None if is_global_name(name) else current)
        if not found:
            scope = "shared entities" if is_global_name(name) else kg.entity(current).name
            return Unresolved(name, kg.entity(current).name, f"no entity named {name!r} in {scope}")
        ids.append(found[0].id)
    return ids


def find_in_scope(kg: KnowledgeGraph, name: str, monster: str | None) -> list:
    """Entities called ``name`` owned by ``monster``; failing that (or with no monster), shared ones.

    Shared entities answer for monster-prefixed names too: a prop such as a Flash Pod is one
    shared entity in our KG, but one node per monster in the authors' release.
    """
    found = [e for e in kg.find(name) if monster is not None and e.monster == monster]
    return found or [e for e in kg.find(name) if e.monster is None and e.type != "monster"]


def walk_problem(kg: KnowledgeGraph, ids: list[str]) -> str | None:
    """Why a resolved route is not a walk along edges of the KG, or None."""
    for a, b in zip(ids, ids[1:]):
        if not kg.has_edge(a, b):
            return f"not a walk: no edge {a} -> {b}"
    return None


def split_key(key: str, monster_names) -> tuple[str | None, str]:
    """An official entity key -> (owning monster name or None, entity name).

    ``"Stygian Zinogre Charging Phase"`` -> ``("Stygian Zinogre", "Charging Phase")``; monster
    names and global names come back with no owner. The longest monster prefix wins.
    """
    key = " ".join(key.split())
    if key in monster_names or is_global_name(key):
        return None, key
    for monster in sorted(monster_names, key=len, reverse=True):
        if key.startswith(monster + " "):
            return monster, key[len(monster) + 1:]
    return None, key


class KeyResolver:
    """Official entity keys ("Zinogre Double Slam", "Ice Element") -> entity ids of ``kg``."""

    def __init__(self, kg: KnowledgeGraph):
        self.kg = kg
        self.monsters = {n: e.id for e in kg.monsters() for n in e.names}
        self._by_key = {_key(n): i for n, i in self.monsters.items()}

    def __call__(self, key: str) -> str | None:
        owner, name = split_key(key, self.monsters)
        if owner is None and _key(name) in self._by_key:
            return self._by_key[_key(name)]
        found = find_in_scope(self.kg, name, self.monsters[owner] if owner else None)
        return found[0].id if found else None


def route_keys(kg: KnowledgeGraph, ids, topic_monster: str | None = None) -> list[str]:
    """Official entity keys for a path of entity ids, as the KG spells the names: the inverse of
    :func:`resolve_route`. A monster on the path makes it the prefix of the entities after it;
    before any monster, ``topic_monster`` (a name) is the prefix."""
    current, keys = topic_monster, []
    for entity_id in ids:
        entity = kg.entity(entity_id)
        if entity.type == "monster":
            current = entity.name
            keys.append(entity.name)
        elif current is None or is_global_name(entity.name):
            keys.append(entity.name)
        else:
            keys.append(f"{current} {entity.name}")
    return keys
