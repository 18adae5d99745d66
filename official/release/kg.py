"""The authors' KG (``mmkg/<Monster>/Node.xlsx``, ``Relations.xlsx`` and media) as our entities and relations.

What the release leaves implicit is inferred here:

- keys: a name in monster M's sheets means "M <name>", except monster names and names holding
  "Element" or "Pierce Pod" (global); fourteen element and element-weapon entities exist
  without a row;
- relation base types come from the relation phrase (``relation_type``); the phrase stays the
  label, the Condition column (or a constraint inside the phrase) becomes the condition;
- entity types come from the name and from the relations that reach the entity;
- ids follow our conventions (``zinogre``, ``zinogre.double-slam``, ``element.ice``,
  ``weapon.fire``, ``prop.flash-pod``). Elements, weapons and props live in shared.json: a prop
  that several monsters list becomes one shared entity.
"""
from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from mhmmkg.errors import InvalidInput, Problem, UserError
from mhmmkg.files.jsontext import read_json_file
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.kg.model import RELATION_LABELS, RELATION_TYPES, Entity, Relation, relation_id

from .workbooks import WHAT, NodeRow, RelationRow, read_nodes, read_relations
from .media import MediaPlan
from .routes import OFFICIAL_MONSTERS, is_global_name, split_key

IMPLICIT_SHARED = (
    "None Element Weapon", "Fire Element Weapon", "Water Element Weapon", "Thunder Element Weapon",
    "Ice Element Weapon", "Dragon Element Weapon", "Blast Element Weapon", "Poison Element Weapon",
    "Fire Element", "Water Element", "Thunder Element", "Ice Element", "Dragon Element", "Sleep Element",
)
SHARED_TYPES = ("element", "weapon", "prop")
MEDIA_DIR = "media"
IMAGES_DIR = "Knowledge_Images"
VIDEOS_DIR = "Knowledge_Videos"

#: Official relation phrases -> base type, tried in order on the lower-cased phrase.
PHRASE_RULES: tuple[tuple[str, str], ...] = (
    (r"\bsubspecies of\b|\bis (a )?subspecies\b|\bsubspecies to\b", "subspecies_of"),
    (r"subspecies", "has_subspecies"),
    (r"material", "provides_materials_for"),
    (r"\bmated?\b|\bmates\b|\bpair\b|\bcouple", "mated_pair_with"),
    (r"\b(most(ly)?|very|extremely|especially|highly) (weak|vulnerable)", "mostly_weak_to"),
    (r"\bweak|vulnerable", "weak_to"),
    (r"resist|immune|ineffective|not effective", "resistant_to"),
    (r"\bstop|interrupt|cancel|\bflinch|\bcounter(ed)? by", "can_be_stopped_by"),
    (r"variant|variation|version", "has_attack_variant"),
    (r"\b(change|changes|changing|switch|switches|enter|enters|transform|transforms|shift|shifts)\b.*"
     r"\b(phase|state|mode|form)\b|\b(phase|state|mode|form) (change|shift|switch)", "changes_phase_to"),
    (r"\b(phase|state|mode|form)\b", "has_attack_phase"),
    (r"continu|follow|\bnext\b|combo|\bchain|\blink|\bthen\b", "continues_with"),
    (r"generat|creat|\bleave|produc|spawn|summon|\bemit|\brelease", "generates"),
    (r"\bcaus|inflict|\bresult|lead(s)? to|trigger|\bapply|\bapplies", "causes"),
    (r"\bturn|\bbecome|evolve|transform|\bchange", "turns_to"),
    (r"action|attack|\bmove|\buse|perform|\bskill", "has_attack_action"),
)
_CONSTRAINT = re.compile(r"^(?P<label>.*?)\s*(?:\((?P<paren>[^()]*)\)|\b(?P<clause>(?:if|when|while|unless)\b.*))$",
                         re.IGNORECASE)
_PHASE_NAME = re.compile(r"\b(phase|state|mode|form)$", re.IGNORECASE)


def slugify(text: str) -> str:
    """Lower-case ASCII words joined by '-': the shape of our entity ids' parts."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def shared_id(type_: str, name: str) -> str:
    """Id of a shared entity: ``element.ice``, ``weapon.fire``, ``weapon.non-elemental``, ``prop.flash-pod``."""
    if type_ == "weapon":
        match = re.fullmatch(r"(.*?)\s*Element Weapon", name)
        stem = match[1] if match and match[1] else name
        return "weapon." + ("non-elemental" if stem.lower() == "none" else slugify(stem))
    if type_ == "element":
        match = re.fullmatch(r"(.*?)\s*Element", name)
        return "element." + slugify(match[1] if match and match[1] else name)
    return f"{'effect' if type_ == 'attack_effect' else type_}.{slugify(name)}"


def global_type(name: str) -> str | None:
    """The type a global official name has by itself (weapon, element or prop), else None."""
    if "Element Weapon" in name:
        return "weapon"
    if "Element" in name:
        return "element"
    if "Pierce Pod" in name:
        return "prop"
    return None


def guess_entity_id(key: str, monster_names=OFFICIAL_MONSTERS) -> str:
    """The id ``import-official`` gives the entity with this official key, worked out from the key alone.

    Right for monsters, their own entities and global names; a prop listed under a monster
    prefix becomes a shared ``prop.*`` entity on import, which only the KG itself can tell.
    """
    owner, name = split_key(key, monster_names)
    if owner:
        return f"{slugify(owner)}.{slugify(name)}"
    if name in monster_names:
        return slugify(name)
    type_ = global_type(name)
    return shared_id(type_, name) if type_ else slugify(name)


def relation_type(phrase: str, extra: dict[str, str] | None = None) -> str | None:
    """The base type an official relation phrase stands for, or None when no rule knows it."""
    key = normalise_name(phrase)
    for mapping in (extra or {}), {normalise_name(v): k for k, v in RELATION_LABELS.items()}:
        for known, type_ in mapping.items():
            if normalise_name(known) == key:
                return type_
    if key.replace(" ", "_") in RELATION_LABELS:
        return key.replace(" ", "_")
    for pattern, type_ in PHRASE_RULES:
        if re.search(pattern, phrase.lower()):
            return type_
    return None


def split_constraint(phrase: str) -> tuple[str, str | None]:
    """``"continues with (if enraged)"`` -> ``("continues with", "if enraged")``; plain phrases stay whole."""
    phrase = " ".join(phrase.split())
    match = _CONSTRAINT.match(phrase)
    if not match or not match["label"].strip():
        return phrase, None
    constraint = (match["paren"] or match["clause"] or "").strip()
    return (match["label"].strip(), constraint or None)


def read_relation_map(path: str | Path) -> dict[str, str]:
    """A JSON object mapping official relation phrases to base types (``--relation-map``)."""
    path = Path(path)
    doc = read_json_file(path, "relation map")
    if not isinstance(doc, dict):
        raise UserError(f"{path}: the relation map must be a JSON object {{phrase: base type}}")
    problems = [Problem(str(path), f"/{phrase}", f"unknown base type {type_!r} (one of: {', '.join(RELATION_TYPES)})")
                for phrase, type_ in doc.items() if type_ not in RELATION_TYPES]
    if problems:
        raise InvalidInput(problems, "relation map")
    return doc


@dataclass
class Node:
    """An entity of the release under its official key, while its type and id are worked out."""

    key: str
    name: str
    folder: str | None  # the monster folder whose sheets define it (None: implicit)
    owner: str | None  # official monster name owning it; None for monsters and global names
    origin: str
    caption: str | None = None
    text: str | None = None
    media: MediaPlan = field(default_factory=MediaPlan)
    from_sheet: bool = False
    type: str | None = None
    id: str | None = None


@dataclass
class Edge:
    head: str
    tail: str
    type: str
    label: str
    condition: str | None
    info: str | None
    origin: str


@dataclass
class OfficialKG:
    """The release's KG converted: entities and relations in our model, and the files to copy."""

    monsters: list[str]
    nodes: dict[str, Node]
    edges: list[Edge]
    warnings: list[str] = field(default_factory=list)

    def entities(self) -> list[Entity]:
        return [Entity(id=n.id, name=n.name, type=n.type, monster=self.monster_of(n), text=n.text,
                       caption=n.caption, has_media=bool(n.media.media)) for n in self.nodes.values()]

    def relations(self) -> list[Relation]:
        counts: dict[tuple, int] = defaultdict(int)
        out = []
        for e in self.edges:
            head, tail = self.nodes[e.head].id, self.nodes[e.tail].id
            counts[(head, e.type, tail)] += 1
            out.append(Relation(relation_id(head, e.type, tail, counts[(head, e.type, tail)]), head, tail,
                                e.type, e.label, e.condition, e.info))
        return out

    def graph(self) -> KnowledgeGraph:
        return KnowledgeGraph(self.entities(), self.relations())

    def monster_of(self, node: Node) -> str | None:
        """Id of the monster that owns the entity (itself for a monster), None for shared ones."""
        if node.type == "monster":
            return node.id
        if node.type in SHARED_TYPES or node.owner is None:
            return None
        return self.nodes[normalise_name(node.owner)].id

    def documents(self) -> tuple[dict, dict[str, dict]]:
        """shared.json and monsters/<id>.json documents in the curated sources format."""
        shared = {"entities": [], "relations": []}
        monsters: dict[str, dict] = {}
        for node in self.nodes.values():
            if node.type == "monster":
                monsters[node.id] = {"monster": node.id, "entities": [], "relations": []}
        for node in self.nodes.values():
            owner = self.monster_of(node)
            doc = monsters[owner] if owner else shared
            doc["entities"].append(_entity_json(node))
        for edge in self.edges:
            owner = self.monster_of(self.nodes[edge.head])
            doc = monsters[owner] if owner else shared
            doc["relations"].append(_relation_json(edge, self.nodes))
        for doc in monsters.values():  # the monster first, as curators write it
            doc["entities"].sort(key=lambda e: e["id"] != doc["monster"])
        return shared, monsters

    def copies(self) -> list[tuple[Path, str]]:
        return [c for n in self.nodes.values() for c in n.media.copies]


def _entity_json(node: Node) -> dict:
    doc = {"id": node.id, "name": node.name, "type": node.type}
    if node.text:
        doc["text"] = node.text
    if node.caption:
        doc["caption"] = node.caption
    if node.media.media:
        doc["media"] = node.media.media
    return doc


def _relation_json(edge: Edge, nodes: dict[str, Node]) -> dict:
    doc = {"head": nodes[edge.head].id, "type": edge.type, "tail": nodes[edge.tail].id}
    if edge.label != RELATION_LABELS[edge.type]:
        doc["label"] = edge.label
    if edge.condition:
        doc["condition"] = edge.condition
    if edge.info:
        doc["info"] = edge.info
    return doc


class _Builder:
    def __init__(self, mmkg: Path, relation_map: dict[str, str] | None):
        self.mmkg = mmkg
        self.relation_map = relation_map or {}
        self.folders = sorted(p.name for p in mmkg.iterdir() if p.is_dir() and not p.name.startswith("."))
        self.monster_names = set(self.folders) | set(OFFICIAL_MONSTERS)
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self.problems: list[Problem] = []
        self.warnings: list[str] = []

    def key(self, name: str, folder: str) -> tuple[str, str | None]:
        """(official key, owning monster) of a name written in ``folder``'s sheets."""
        name = " ".join(name.split())
        if name in self.monster_names or is_global_name(name):
            return name, None
        return f"{folder} {name}", folder

    def node(self, name: str, folder: str | None, origin: str) -> Node:
        key, owner = self.key(name, folder) if folder else (name, None)
        norm = normalise_name(key)
        if norm not in self.nodes:
            self.nodes[norm] = Node(key=key, name=" ".join(name.split()), folder=folder, owner=owner, origin=origin)
        return self.nodes[norm]

    def read_folder(self, folder: str) -> None:
        base = self.mmkg / folder
        self.node(folder, folder, f"{base.name}/ (folder)")
        for row in self.rows_or_problems(read_nodes, base / "Node.xlsx"):
            self.add_node_row(folder, base, row)
        for row in self.rows_or_problems(read_relations, base / "Relations.xlsx"):
            self.add_relation_row(folder, base, row)

    def rows_or_problems(self, read, path: Path) -> list:
        """The rows ``read`` gets from ``path``; a workbook it cannot read adds its problems instead."""
        try:
            return read(path)
        except InvalidInput as exc:
            self.problems += exc.problems
            return []

    def add_node_row(self, folder: str, base: Path, row: NodeRow) -> None:
        where = f"{base / 'Node.xlsx'}:row {row.row}"
        name = " ".join(row.name.split())
        if name in self.monster_names and name != folder:
            node = self.node(name, folder, where)  # a row about another monster: fills its gaps only
            node.caption, node.text = node.caption or row.caption, node.text or row.text
            return
        node = self.node(name, folder, where)
        if node.from_sheet:
            self.warnings.append(f"{where}: {node.key!r} is listed again (first at {node.origin}); "
                                 "non-empty cells of the later row win, as in the authors' loader")
        else:
            node.origin = where
        node.from_sheet = True
        node.caption = row.caption or node.caption
        node.text = row.text or node.text
        dest = f"{MEDIA_DIR}/{slugify(folder)}"
        if row.image and self.has_media_folder(base, IMAGES_DIR):
            node.media.add_image_entry(base / IMAGES_DIR, row.image, f"{dest}/{IMAGES_DIR}", where)
        if row.video and self.has_media_folder(base, VIDEOS_DIR):
            node.media.add_video(base / VIDEOS_DIR, row.video, f"{dest}/{VIDEOS_DIR}", where)

    def has_media_folder(self, base: Path, name: str) -> bool:
        """Whether ``base/name`` exists; its absence is one warning, not one per row."""
        if (base / name).is_dir():
            return True
        warning = f"{base / name}: folder not found; the media Node.xlsx names there are skipped"
        if warning not in self.warnings:
            self.warnings.append(warning)
        return False

    def add_relation_row(self, folder: str, base: Path, row: RelationRow) -> None:
        where = f"{base / 'Relations.xlsx'}:row {row.row}"
        label, constraint = split_constraint(row.label)
        type_ = relation_type(row.label, self.relation_map) or relation_type(label, self.relation_map)
        if type_ is None:
            self.problems.append(Problem(str(base / "Relations.xlsx"), f"row {row.row}",
                                         f"unknown relation phrase {row.label!r}: map it to a base type "
                                         f"with --relation-map (one of: {', '.join(RELATION_TYPES)})"))
            return
        head = self.node(row.head, folder, where)
        tail = self.node(row.tail, folder, where)
        if constraint and row.condition and constraint != row.condition:
            condition = f"{row.condition}; {constraint}"
        else:
            condition = row.condition or constraint
        self.edges.append(Edge(normalise_name(head.key), normalise_name(tail.key), type_, label, condition, row.info, where))

    def add_implicit(self) -> None:
        for name in IMPLICIT_SHARED:
            node = self.node(name, None, "implicit shared entity")
            node.from_sheet = True
        for node in self.nodes.values():
            if not node.from_sheet and node.key not in self.monster_names:
                self.warnings.append(f"{node.origin}: {node.key!r} has no row in Node.xlsx; imported without text or media")
        for name in sorted(self.monster_names & {n.key for n in self.nodes.values()} - set(self.folders)):
            self.warnings.append(f"monster {name!r} is named in relations but has no folder under {self.mmkg}; "
                                 "imported as a monster without subgraph")

    def infer_types(self) -> None:
        incoming: dict[str, set[str]] = defaultdict(set)
        for edge in self.edges:
            incoming[edge.tail].add(edge.type)
        for norm, node in self.nodes.items():
            node.type = self.entity_type(node, incoming[norm])

    def entity_type(self, node: Node, incoming: set[str]) -> str:
        if node.key in self.monster_names:
            return "monster"
        if node.owner is None and global_type(node.key):
            return global_type(node.key)
        if incoming & {"has_attack_phase", "changes_phase_to"} or (_PHASE_NAME.search(node.name) and not incoming & {"has_attack_action", "continues_with"}):
            return "attack_phase"
        if "can_be_stopped_by" in incoming:
            return "prop"
        if incoming & {"mostly_weak_to", "weak_to", "resistant_to"}:
            return "element"
        if incoming & {"generates", "causes", "turns_to"} and not incoming & {"has_attack_action", "continues_with", "has_attack_variant"}:
            return "attack_effect"
        return "attack_action"

    def merge_shared(self) -> None:
        """Props (and odd elements) that monsters list under their own prefix become one shared entity."""
        merged: dict[tuple[str, str], str] = {}
        remap: dict[str, str] = {}
        for norm, node in list(self.nodes.items()):
            if node.type not in SHARED_TYPES:
                continue
            key = (node.type, normalise_name(node.name))
            if key not in merged:
                merged[key] = norm
                continue
            keep = self.nodes[merged[key]]
            keep.caption, keep.text = keep.caption or node.caption, keep.text or node.text
            if not keep.media.media:
                keep.media = node.media
            remap[norm] = merged[key]
            del self.nodes[norm]
        for edge in self.edges:
            edge.head, edge.tail = remap.get(edge.head, edge.head), remap.get(edge.tail, edge.tail)

    def assign_ids(self) -> None:
        taken: dict[str, str] = {}
        for node in sorted(self.nodes.values(), key=lambda n: n.type != "monster"):
            base = self.base_id(node)
            eid, n = base, 1
            while eid in taken:
                n += 1
                eid = f"{base}-{n}"
            if n > 1:
                self.warnings.append(f"{node.origin}: {node.key!r} gets id {eid!r} ({base!r} is {taken[base]!r})")
            if not base.rsplit(".", 1)[-1]:
                self.problems.append(Problem(node.origin, "", f"name {node.name!r} has no letters or digits to make an id from"))
            taken[eid] = node.key
            node.id = eid

    def base_id(self, node: Node) -> str:
        if node.type == "monster":
            return slugify(node.name)
        if node.type in SHARED_TYPES or node.owner is None:
            return shared_id(node.type, node.name)
        return f"{slugify(node.owner)}.{slugify(node.name)}"

    def drop_bad_edges(self) -> None:
        seen = set()
        kept = []
        for edge in self.edges:
            head, tail = self.nodes[edge.head], self.nodes[edge.tail]
            if head.id == tail.id:
                self.warnings.append(f"{edge.origin}: relation from {head.key!r} to itself skipped")
                continue
            key = (head.id, edge.type, tail.id, edge.condition)
            if key in seen:
                self.warnings.append(f"{edge.origin}: duplicate of an earlier relation {head.key!r} -> {tail.key!r}; skipped")
                continue
            seen.add(key)
            kept.append(edge)
        self.edges = kept


def read_official_kg(mmkg: str | Path, *, relation_map: dict[str, str] | None = None,
                     quiet: bool = False) -> OfficialKG:
    """Read every ``mmkg/<Monster>/`` folder; raise InvalidInput listing every problem found."""
    mmkg = Path(mmkg)
    if not mmkg.is_dir():
        raise InvalidInput([Problem(str(mmkg), "", "folder not found (expected mmkg/<Monster>/Node.xlsx ...)")], WHAT)
    builder = _Builder(mmkg, relation_map)
    if not builder.folders:
        raise InvalidInput([Problem(str(mmkg), "", "no monster folders (expected mmkg/<Monster>/Node.xlsx ...)")], WHAT)
    for folder in tqdm(builder.folders, desc="monsters", unit="monster", disable=quiet):
        builder.read_folder(folder)
    if builder.problems:
        raise InvalidInput(builder.problems, WHAT)
    builder.add_implicit()
    builder.infer_types()
    builder.merge_shared()
    builder.assign_ids()
    if builder.problems:
        raise InvalidInput(builder.problems, WHAT)
    builder.drop_bad_edges()
    warnings = builder.warnings + [w for n in builder.nodes.values() for w in n.media.warnings]
    monsters = [n.key for n in builder.nodes.values() if n.type == "monster"]
    return OfficialKG(monsters, builder.nodes, builder.edges, warnings)
