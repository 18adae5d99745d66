"""Official search routes ("A>B>C;A>D") resolved to entity ids of a KnowledgeGraph.

Official entity keys are the current monster's name, a space and the entity name, except for
monster names and names containing "Element" or "Pierce Pod", which are global. A route node
that names a monster makes that monster current for the rest of the path.
"""
from __future__ import annotations

from dataclasses import dataclass

from mhmmkg.graph import KnowledgeGraph, normalise_name as _key

GLOBAL_MARKERS = ("Element", "Pierce Pod")


def split_routes(text: str | None) -> list[list[str]]:
    """``"A>B;A>C"`` -> ``[["A", "B"], ["A", "C"]]``; empty parts are dropped, names stripped."""
    routes = []
    for route in (text or "").split(";"):
        names = [n.strip() for n in route.split(">")]
        if any(names):
            routes.append(names)
    return routes


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
        if is_global_name(name):
            found = [e for e in kg.find(name) if e.monster is None]
        else:
            found = [e for e in kg.find(name) if e.monster == current]
        if not found:
            scope = "shared entities" if is_global_name(name) else kg.entity(current).name
            return Unresolved(name, kg.entity(current).name, f"no entity named {name!r} in {scope}")
        ids.append(found[0].id)
    return ids

