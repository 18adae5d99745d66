"""Curated sources: the JSON files (and media) a curator edits, read and checked in one pass.

Layout of a sources folder::

    shared.json            elements, weapons, props, common effects   (schema/shared.schema.json)
    monsters/<id>.json     one monster subgraph each                  (schema/monster.schema.json)
    queries/<name>.json    benchmark queries                          (schema/queries.schema.json)
    <any>/<media files>    referenced by path relative to the folder

Every problem found is reported with its file, JSON pointer and reason; nothing stops at the
first one.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, Problem, json_pointer
from ..files.jsontext import InputFileError, JSONTextError, loads_strict, read_text_file
from ..kg.model import MONSTER_PLACEHOLDER, RELATION_LABELS, AnswerKey, Entity, Media, Query, Relation, relation_id
from .schemas import object_keys, schema_problems

SHARED_FILE = "shared.json"
MONSTERS_DIR = "monsters"
QUERIES_DIR = "queries"
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


@dataclass
class Sources:
    """Everything read from a sources folder, checked and in a deterministic order."""

    root: Path
    entities: dict[str, Entity] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    entity_media: dict[str, Media] = field(default_factory=dict)
    query_media: dict[str, Media] = field(default_factory=dict)
    #: where each entity, relation and query was defined: (file, JSON pointer)
    origin: dict[str, tuple[str, str]] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def read_json(path: Path, display: str, schema: str | None = None) -> tuple[Any, list[Problem]]:
    """Parse one JSON file strictly (see ``mhmmkg.jsontext``); what is wrong becomes a Problem.
    ``schema``: then the problems are also those of the document against that schema."""
    if not path.is_file():
        return None, [Problem(display, "", "not a regular file")]
    try:
        text = read_text_file(path, "source file")
    except InputFileError as exc:
        return None, [Problem(display, exc.problem.pointer, exc.problem.reason)]
    valid = []

    def keys_if_valid(document: Any) -> int | None:
        """The keys counted by the schema's check, which then needs no second walk."""
        keys = object_keys(schema, document)
        valid.append(keys is not None)
        return keys

    try:
        doc = loads_strict(text, control_characters=False, count_keys=keys_if_valid if schema else None,
                           from_utf8=True)
    except JSONTextError as exc:
        return None, [Problem(display, exc.pointer, exc.reason)]
    return doc, [] if not schema or valid == [True] else schema_problems(schema, doc, display)


def media_from_json(obj: dict | None) -> Media | None:
    if not obj:
        return None
    return Media(
        images=tuple(obj.get("images", ())),
        video=obj.get("video"),
        keyframe_times=tuple(float(t) for t in obj.get("keyframe_times", ())),
        keyframe_images=tuple(obj.get("keyframe_images", ())),
    )


def media_paths(media: Media) -> list[tuple[str, str]]:
    """(JSON field, relative path) of every file a Media refers to."""
    out = [("images", p) for p in media.images]
    out += [("keyframe_images", p) for p in media.keyframe_images]
    if media.video:
        out.append(("video", media.video))
    return out


def json_files(folder: Path) -> list[Path]:
    """The ``*.json`` files of ``folder`` in the order of ``sorted``: paths in one folder differ
    only in their names, so their texts sort as they do (and far faster)."""
    return sorted(folder.glob("*.json"), key=str)


class _Reader:
    """Collects the contents of a sources folder and the problems found on the way."""

    def __init__(self, root: Path):
        self.root = root
        self.real_root = root.resolve()
        self.folders_inside: dict[Path, bool] = {}
        base = str(root.parent)
        self.display_prefix = "" if base == "." else base.rstrip("/") + "/"
        self.out = Sources(root=root)
        self.problems: list[Problem] = []
        self.unusable: set[str] = set()
        #: monsters whose file could not be read at all: every id they own is unknown, not dangling
        self.unusable_monsters: set[str] = set()

    def set_aside(self, eid: str) -> bool:
        """True for an id defined in a file set aside for its own problems (reported there once)."""
        return eid in self.unusable or bool(self.unusable_monsters) and eid.split(".", 1)[0] in self.unusable_monsters

    def contains(self, path: Path) -> bool:
        """True when ``path``, symlinks resolved, stays inside the sources folder.

        A path that is no symlink, in a folder that resolves inside, is inside: one lstat
        instead of resolving every part of every file's path (each folder is resolved once)."""
        if not path.is_symlink():
            inside = self.folders_inside.get(path.parent)
            if inside is None:
                inside = self.folders_inside[path.parent] = path.parent.resolve().is_relative_to(self.real_root)
            if inside:
                return True
        return path.resolve().is_relative_to(self.real_root)

    def display(self, path: Path) -> str:
        """``path`` relative to the sources folder's parent (the name files are reported by).

        The text of a path below that parent is the parent's text, a "/" and the relative
        path's text (a string slice instead of a path computation per file)."""
        base = self.root.parent
        if base == path:
            return str(path)
        text, prefix = str(path), self.display_prefix
        if text.startswith(prefix):
            return text[len(prefix):]
        try:
            return str(path.relative_to(base))
        except ValueError:
            return str(path)

    def file_documents(self, paths: list[Path], schema: str):
        """Yield (display name, document, pointers of invalid items) for each file that parses.

        A schema problem inside one item (``/entities/3/...``) only sets that item aside, so one
        typo does not hide the rest of the file or make every edge to it look dangling.
        """
        for path in paths:
            self.out.files.append(path)
            display = self.display(path)
            if not self.contains(path):
                doc, problems = None, [Problem(display, "", f"resolves to {path.resolve()}, outside the sources "
                                                            f"folder {self.root}: refused")]
            else:
                doc, problems = read_json(path, display, schema)
            self.problems += problems
            bad_items = {"/".join(p.pointer.split("/")[:3]) for p in problems}
            if doc is None or any(p.pointer.count("/") < 2 for p in problems):
                self.remember_ids(doc)
                if path.parent.name == MONSTERS_DIR:
                    self.unusable_monsters.add(path.stem)
                continue
            yield display, doc, bad_items

    def remember_ids(self, doc) -> None:
        """Ids of a file set aside for schema problems, so references to them are not reported again."""
        items = doc.get("entities", []) if isinstance(doc, dict) else []
        items = items if isinstance(items, list) else []
        self.unusable |= {e["id"] for e in items if isinstance(e, dict) and isinstance(e.get("id"), str)}

    def add_entity(self, obj: dict, monster: str | None, file: str, pointer: str) -> None:
        eid = obj["id"]
        if eid in self.out.origin:
            first = self.out.origin[eid]
            self.problems.append(Problem(file, pointer + "/id", f"duplicate id {eid!r} (first defined in {first[0]}{first[1]})"))
            return
        get = obj.get
        media = media_from_json(get("media"))
        self.out.entities[eid] = Entity(      # by position: a frozen record's keyword call costs twice as much
            eid, obj["name"], obj["type"], monster, tuple(get("aliases", ())), get("text"), get("caption"),
            media is not None, tuple(get("sources", ())), get("unverified", False), get("name_origin"))
        self.out.origin[eid] = (file, pointer)
        if media:
            self.out.entity_media[eid] = media
            self.check_media_files(media, file, pointer + "/media")

    def check_media_files(self, media: Media, file: str, pointer: str) -> None:
        """Every media path must name a regular file inside the sources folder (symlinks resolved)."""
        for key, rel in media_paths(media):
            index = list(getattr(media, key)).index(rel) if key != "video" else None
            where = pointer + (json_pointer(key, index) if index is not None else json_pointer(key))
            path = self.root / rel
            if not self.contains(path):
                self.problems.append(Problem(file, where, f"media file {rel} resolves to {path.resolve()}, outside "
                                                          f"the sources folder: refused"))
            elif not path.exists():
                self.problems.append(Problem(file, where, f"media file not found: {rel}"))
            elif not path.is_file():
                self.problems.append(Problem(file, where, f"media path is not a regular file: {rel}"))

    def read_kg(self) -> list[tuple[str, set[str], list[tuple[str, dict]]]]:
        """Read shared and monster files; return, per file, (file, owned ids, its relations as
        ``items`` gives them) to check later."""
        pending = []
        shared = self.root / SHARED_FILE
        if not shared.is_file():
            self.problems.append(Problem(self.display(shared), "", "missing: every sources folder needs a shared-entities file"))
        else:
            for file, doc, bad in self.file_documents([shared], "shared"):
                owned = set()
                for pointer, obj in self.items(doc, "entities", bad):
                    self.add_entity(obj, None, file, pointer)
                    owned.add(obj["id"])
                pending.append((file, owned, self.items(doc, "relations", bad)))
        monster_files = json_files(self.root / MONSTERS_DIR)
        if not monster_files:
            self.problems.append(Problem(self.display(self.root / MONSTERS_DIR), "", "no monster subgraph files (*.json) found"))
        for file, doc, bad in self.file_documents(monster_files, "monster"):
            monster = doc["monster"]
            owned = set()
            if not any(isinstance(e, dict) and e.get("id") == monster and e.get("type") == "monster"
                       for e in doc["entities"]):
                self.problems.append(Problem(file, "/monster", f"no entity of type 'monster' with id {monster!r} in this file"))
            for pointer, obj in self.items(doc, "entities", bad):
                if obj["id"] != monster and not obj["id"].startswith(monster + "."):
                    self.problems.append(Problem(file, pointer + "/id", f"id {obj['id']!r} must start with '{monster}.' (entities are owned by the file's monster)"))
                if obj["type"] == "monster" and obj["id"] != monster:
                    self.problems.append(Problem(file, pointer + "/type", "a monster file holds exactly one monster: other monsters need their own file"))
                self.add_entity(obj, monster, file, pointer)
                owned.add(obj["id"])
            pending.append((file, owned, self.items(doc, "relations", bad)))
        return pending

    def items(self, doc: dict, key: str, bad: set[str]) -> list[tuple[str, Any]]:
        """(pointer, item) of the valid items of ``doc[key]``; invalid ones only leave their id behind."""
        prefix = json_pointer(key)
        if not bad:
            return [(f"{prefix}/{i}", obj) for i, obj in enumerate(doc.get(key, []))]
        valid = []
        for i, obj in enumerate(doc.get(key, [])):
            pointer = f"{prefix}/{i}"
            if pointer in bad:
                if key == "entities" and isinstance(obj, dict) and isinstance(obj.get("id"), str):
                    self.unusable.add(obj["id"])
                continue
            valid.append((pointer, obj))
        return valid

    def add_relations(self, pending) -> None:
        """Check each pending relation and add the good ones, numbering parallel edges.

        An edge's plain id (``relation_id(head, type, tail)``) stands for its (head, type, tail):
        ids and types hold no ``|``; so a relation's key (what makes two the same) is that id, or
        the id and the condition when there is one (a string's hash is kept, a tuple's is not)."""
        seen: dict[str | tuple, tuple[str, str]] = {}
        parallel: dict[str, int] = {}
        entities, origin = self.out.entities, self.out.origin
        append = self.out.relations.append
        none_set_aside = not self.unusable and not self.unusable_monsters
        get = dict.get
        for file, owned, items in pending:
            for pointer, obj in items:
                head, type_, tail = obj["head"], obj["type"], obj["tail"]
                condition = get(obj, "condition")
                rid = f"{head}|{type_}|{tail}"
                key = rid if condition is None else (rid, condition)
                clean = none_set_aside and head in owned and tail in entities and head != tail and key not in seen
                if not clean and self.relation_problems(file, pointer, head, tail, key, owned, seen):
                    continue
                where = seen[key] = (file, pointer)
                if rid in parallel:
                    n = parallel[rid] = parallel[rid] + 1
                    rid = relation_id(head, type_, tail, n)
                else:
                    parallel[rid] = 1
                append(Relation(      # by position: a frozen record's keyword call costs twice as much
                    rid, head, tail, type_, get(obj, "label") or RELATION_LABELS[type_], condition,
                    get(obj, "info"), tuple(get(obj, "sources", ())), get(obj, "unverified", False)))
                origin[rid] = where

    def relation_problems(self, file: str, pointer: str, head: str, tail: str, key: str | tuple, owned: set[str],
                          seen: dict[str | tuple, tuple[str, str]]) -> bool:
        """Report what is wrong with one relation; True when it must be left out."""
        entities, set_aside = self.out.entities, self.set_aside
        bad = set_aside(head) or set_aside(tail)
        if head not in owned and not set_aside(head):
            reason = "unknown entity" if head not in entities else "head must be an entity owned by this file"
            self.problems.append(Problem(file, pointer + "/head", f"{reason}: {head!r}"))
            bad = True
        if tail not in entities and not set_aside(tail):
            self.problems.append(Problem(file, pointer + "/tail", f"unknown entity (dangling edge): {tail!r}"))
            bad = True
        if head == tail:
            self.problems.append(Problem(file, pointer, f"self-loop on {head!r}"))
            bad = True
        if key in seen:
            first_file, first_pointer = seen[key]
            self.problems.append(Problem(file, pointer, "duplicate relation (same head, type, tail and "
                                                        f"condition as {first_file}{first_pointer})"))
            bad = True
        return bad

    def read_queries(self) -> None:
        edges = {(r.head, r.tail) for r in self.out.relations}
        query_files = json_files(self.root / QUERIES_DIR)
        for file, doc, bad in self.file_documents(query_files, "queries"):
            for pointer, obj in self.items(doc, "queries", bad):
                if obj["id"] in self.out.origin:
                    first = self.out.origin[obj["id"]]
                    self.problems.append(Problem(file, pointer + "/id", f"duplicate id {obj['id']!r} (first defined in {first[0]}{first[1]})"))
                    continue
                problems = self.query_problems(obj, edges, file, pointer)
                self.problems += problems
                if problems:
                    continue
                media = media_from_json(obj.get("media"))
                self.out.queries.append(Query(      # by position, as the entities
                    obj["id"], obj["subtask"], obj["question"], obj["monster"], obj["answer"],
                    tuple(map(tuple, obj["paths"])), obj.get("extra"), obj.get("perception"), media is not None,
                    (), AnswerKey.from_json(obj.get("key"))))
                self.out.origin[obj["id"]] = (file, pointer)
                if media:
                    self.out.query_media[obj["id"]] = media
                    self.check_media_files(media, file, pointer + "/media")

    def query_problems(self, obj: dict, edges: set, file: str, pointer: str) -> list[Problem]:
        problems = []
        entities = self.out.entities
        set_aside = self.set_aside if self.unusable or self.unusable_monsters else None   # None: no file set aside
        monster = obj["monster"]
        if set_aside and set_aside(monster):
            pass
        elif monster not in entities or entities[monster].type != "monster":
            problems.append(Problem(file, pointer + "/monster", f"not a monster of the KG: {monster!r}"))
        for key in ("question", "extra"):
            text = obj.get(key) or ""
            for ph in _PLACEHOLDER.findall(text) if "{" in text.replace(MONSTER_PLACEHOLDER, "") else ():
                if ph != MONSTER_PLACEHOLDER:
                    problems.append(Problem(file, pointer + f"/{key}", f"unknown placeholder {ph} (only {MONSTER_PLACEHOLDER} is filled in)"))
        for k, eid in enumerate((obj.get("key") or {}).get("entities") or ()):
            if not (set_aside and set_aside(eid)) and eid not in entities:
                problems.append(Problem(file, pointer + f"/key/entities/{k}", f"unknown entity {eid!r}"))
        first_index: dict[tuple, int] = {}
        for j, path in enumerate(obj["paths"]):
            where = f"{pointer}/paths/{j}"
            walk = tuple(path)
            if walk in first_index:
                problems.append(Problem(file, where, f"repeats the ground-truth path /paths/{first_index[walk]} "
                                                     "(a repeated path would cap recall below 1)"))
                continue
            first_index[walk] = j
            if path[0] != monster:
                problems.append(Problem(file, where + "/0", f"path must start at the topic monster {monster!r}, not {path[0]!r}"))
            if set_aside and any(map(set_aside, path)):
                continue
            if not all(map(entities.__contains__, path)):
                for k, e in enumerate(path):
                    if e not in entities:
                        problems.append(Problem(file, where + f"/{k}", f"unknown entity {e!r}"))
                continue
            if edges.issuperset(zip(path, path[1:])):
                continue
            for k, (a, b) in enumerate(zip(path, path[1:])):
                if (a, b) not in edges:
                    problems.append(Problem(file, where + f"/{k + 1}", f"path is not a walk in the KG: no edge {a!r} -> {b!r}"))
        return problems


def load_sources(root: str | Path) -> Sources:
    """Read and check a sources folder; raise InvalidInput listing every problem found."""
    root = Path(root)
    if not root.is_dir():
        raise InvalidInput([Problem(str(root), "", "sources folder not found")], "sources")
    reader = _Reader(root)
    pending = reader.read_kg()
    reader.add_relations(pending)
    reader.read_queries()
    if reader.problems:
        raise InvalidInput(reader.problems, "sources")
    return reader.out


def graph_from_sources(root: str | Path):
    """A KnowledgeGraph straight from a sources folder (checked), without building a dataset."""
    from ..kg.graph import KnowledgeGraph

    sources = load_sources(root)
    return KnowledgeGraph(sources.entities.values(), sources.relations)
