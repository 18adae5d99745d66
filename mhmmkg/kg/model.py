"""The data model of MH-MMKG: entity and relation types, and the records of the graph and benchmark.

Field names here are the one source of truth: the JSON Schemas in ``schema/`` and the Arrow
features of the built dataset are checked against them in the tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field

ENTITY_TYPES: tuple[str, ...] = (
    "monster",
    "attack_action",
    "attack_phase",
    "element",
    "weapon",
    "prop",
    "attack_effect",
)

#: Base relation types with the surface phrase used in prompts and rendered paths.
#: ``subspecies_of`` is the inverse of ``has_subspecies``: the official routes walk both ways
#: between a monster and its subspecies, which the paper counts as its 16th base phrase.
RELATION_LABELS: dict[str, str] = {
    "has_attack_action": "has attack action",
    "continues_with": "continues with",
    "has_attack_variant": "has attack variant",
    "has_attack_phase": "has attack phase",
    "changes_phase_to": "changes phase to",
    "mostly_weak_to": "is mostly weak to",
    "weak_to": "is weak to",
    "resistant_to": "is resistant to",
    "provides_materials_for": "provides materials for",
    "can_be_stopped_by": "can be stopped by",
    "generates": "generates",
    "causes": "causes",
    "turns_to": "turns to",
    "mated_pair_with": "is a mated pair with",
    "has_subspecies": "has subspecies",
    "subspecies_of": "is a subspecies of",
}
RELATION_TYPES: tuple[str, ...] = tuple(RELATION_LABELS)

SUBTASKS: dict[int, str] = {
    1: "I Individual Information",
    2: "II Attack Recognition",
    3: "III Combo Premonition",
    4: "IV Condition Awareness",
    5: "V Proc Effect Insight",
    6: "VI Cross Monster Analysis",
}
ROMAN: dict[int, str] = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI"}

MONSTER_PLACEHOLDER = "{monster}"


@dataclass(frozen=True)
class Media:
    """Media attached to an entity or a query, as paths relative to the sources folder."""

    images: tuple[str, ...] = ()
    video: str | None = None
    keyframe_times: tuple[float, ...] = ()
    keyframe_images: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Entity:
    id: str
    name: str
    type: str
    monster: str | None = None
    aliases: tuple[str, ...] = ()
    text: str | None = None
    caption: str | None = None
    has_media: bool = False
    sources: tuple[str, ...] = ()
    unverified: bool = False
    name_origin: str | None = None   # "game" (the release's own name, sourced) or "descriptive"

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True, slots=True)
class Relation:
    id: str
    head: str
    tail: str
    type: str
    label: str
    condition: str | None = None
    info: str | None = None
    sources: tuple[str, ...] = ()
    unverified: bool = False


#: the kinds of answer key (schema ``answer_key``)
KEY_KINDS: tuple[str, ...] = ("entity", "entities", "yes_no", "text")


@dataclass(frozen=True, slots=True)
class AnswerKey:
    """What a correct answer must contain, in a form a program can check (schema: ``answer_key``).

    ``kind`` is ``entity`` (one KG entity), ``entities`` (a set, all required), ``yes_no`` (a
    ``polarity``, plus any required points) or ``text`` (required points only). ``entities`` are KG
    ids the reply must name; ``nuggets`` are required points that are not entities, each a tuple of
    accepted wordings; ``rivals`` are wordings of competing answers outside the KG.
    """

    kind: str
    entities: tuple[str, ...] = ()
    polarity: str | None = None
    nuggets: tuple[tuple[str, ...], ...] = ()
    rivals: tuple[str, ...] = ()
    origin: str = "curated"

    @classmethod
    def from_json(cls, obj: dict | None) -> AnswerKey | None:
        if not obj:
            return None
        get = obj.get
        return cls(obj["kind"], tuple(get("entities") or ()), get("polarity"), tuple(map(tuple, get("nuggets") or ())),
                   tuple(get("rivals") or ()), get("origin") or "curated")

    def as_json(self) -> dict:
        return {"kind": self.kind, "entities": list(self.entities), "polarity": self.polarity,
                "nuggets": [list(n) for n in self.nuggets], "rivals": list(self.rivals), "origin": self.origin}


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    subtask: int
    question: str
    monster: str
    answer: str
    paths: tuple[tuple[str, ...], ...]
    extra: str | None = None
    perception: str | None = None
    has_media: bool = False
    images: tuple[bytes, ...] = field(default=(), repr=False, compare=False)
    key: AnswerKey | None = None

    @property
    def roman(self) -> str:
        return ROMAN[self.subtask]

    @property
    def hops(self) -> int:
        return hop_count(self.paths)


def hop_count(paths) -> int:
    """Knowledge depth of a query: edges on its longest ground-truth path (0 for none)."""
    return max(map(len, paths), default=1) - 1


def relation_id(head: str, type_: str, tail: str, n: int = 1) -> str:
    """Stable relation id; ``n`` numbers parallel edges of one type (differing by condition)."""
    base = f"{head}|{type_}|{tail}"
    return base if n == 1 else f"{base}#{n}"
