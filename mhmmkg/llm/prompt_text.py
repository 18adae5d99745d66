"""The text an agent is shown about the knowledge graph, and the reading of it back.

Every piece of prompt text the code writes (an entity, a relation sentence, a knowledge path, the
numbered candidates, the list of monsters, a path's names) is written here, next to the function
that reads it back: the offline model (``mhmmkg.baseline.offline``) reads the prompts a real
model gets, so a change to one side without the other would make it silently worse. The tests
render each piece and read it back (``tests/test_prompt_text.py``).

The prompt set's templates (data, ``baseline/prompt_sets/default.json``) put these pieces into
``## Section`` blocks, read back by :func:`parse_sections`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..kg.model import ENTITY_TYPES, RELATION_LABELS

PATH_SEPARATOR = " > "
_HEADER = re.compile(r"^(?P<name>.+) \((?P<type>" + "|".join(t.replace("_", " ") for t in ENTITY_TYPES) + r")\)$")
_CANDIDATE = re.compile(r"^\[(\d+)\] (.*)$")
_KNOWLEDGE_PATH = "Knowledge path "
_LABELS_LONGEST_FIRST = sorted(RELATION_LABELS.items(), key=lambda kv: -len(kv[1]))
_CONDITION = re.compile(r"\(([^()]*)\)\.(?:\s|$)")


# ---------------------------------------------------------------------------------------------
# Writing


def entity_text(name: str, type_: str, appearance: str = "", knowledge: str = "") -> str:
    """An entity: ``Name (type)``, then its appearance and knowledge, each on an indented line."""
    lines = [f"{name} ({type_.replace('_', ' ')})"]
    if appearance:
        lines.append(f"  Appearance: {appearance}")
    if knowledge:
        lines.append(f"  Knowledge: {knowledge}")
    return "\n".join(lines)


def relation_text(head: str, label: str, tail: str, condition: str = "", info: str = "") -> str:
    """A relation as one sentence: ``Head label Tail (condition). Note: info.``"""
    sentence = f"{head} {label} {tail}"
    if condition:
        sentence += f" ({condition})"
    if info:
        sentence += f". Note: {info}"
    return sentence + "."


def path_names_text(names: Iterable[str]) -> str:
    """A path's entity names: ``A > B > C``."""
    return PATH_SEPARATOR.join(names)


def knowledge_paths_text(paths: Iterable[tuple[Sequence[str], str]]) -> str:
    """Numbered knowledge paths, each ``(names, text)``: ``Knowledge path 1: A > B`` then its text."""
    return "\n\n".join(f"{_KNOWLEDGE_PATH}{i}: {path_names_text(names)}\n" + text
                       for i, (names, text) in enumerate(paths, 1))


def candidate_text(number: int, entity: str, links: Sequence[str]) -> str:
    """A numbered candidate: ``[n]`` and the entity's header, its ``Link:`` sentences, then the
    rest of the entity's text (``entity`` as :func:`entity_text` writes it)."""
    header, *details = entity.split("\n")
    return "\n".join([f"[{number}] {header}", *(f"  Link: {link}" for link in links), *details])


def monster_menu_text(monsters: Iterable[tuple[str, Sequence[str]]]) -> str:
    """The monsters the topic agent chooses from, each ``(name, aliases)``: ``- Name (also: a, b)``."""
    return "\n".join(f"- {name}" + (f" (also: {', '.join(aliases)})" if aliases else "") for name, aliases in monsters)


# ---------------------------------------------------------------------------------------------
# Reading back


@dataclass
class Block:
    """An entity as rendered in a prompt: header name/type, link sentences, appearance, knowledge."""

    name: str
    type: str
    links: list[str]
    appearance: str = ""
    knowledge: str = ""

    def text(self) -> str:
        return " ".join([self.name, *self.links, self.appearance, self.knowledge])


@dataclass
class KnowledgePath:
    names: list[str]
    entities: dict[str, Block]
    sentences: list[str]


def is_entity_header(line: str) -> bool:
    return _HEADER.match(line) is not None


def parse_entity(lines: list[str]) -> Block | None:
    """An entity's lines (:func:`entity_text`, or a candidate's) back into a :class:`Block`."""
    if not lines:
        return None
    match = _HEADER.match(lines[0].strip())
    if not match:
        return None
    block = Block(match["name"], match["type"].replace(" ", "_"), [])
    for line in lines[1:]:
        line = line.strip()
        if line.startswith("Link: "):
            block.links.append(line[6:])
        elif line.startswith("Appearance: "):
            block.appearance = line[12:]
        elif line.startswith("Knowledge: "):
            block.knowledge = line[11:]
    return block


def relation_type_of(sentence: str) -> str | None:
    """The relation type whose label a sentence (:func:`relation_text`) holds, the longest label first."""
    for type_, label in _LABELS_LONGEST_FIRST:
        if f" {label} " in f" {sentence} ":
            return type_
    return None


def relation_condition(sentence: str) -> str | None:
    """The condition of a relation sentence (the parenthesis before its full stop), or None."""
    match = _CONDITION.search(sentence)
    return match.group(1) if match else None


def parse_candidates(text: str) -> list[tuple[int, Block]]:
    """Numbered candidates (:func:`candidate_text`, one per block) back into (number, Block)."""
    out: list[tuple[int, list[str]]] = []
    for line in text.splitlines():
        match = _CANDIDATE.match(line)
        if match:
            out.append((int(match[1]), [match[2]]))
        elif out:
            out[-1][1].append(line)
    return [(n, b) for n, lines in out if (b := parse_entity(lines)) is not None]


def parse_path_names(text: str) -> list[str]:
    """A path's names (:func:`path_names_text`) back into a list."""
    return text.split(PATH_SEPARATOR)


def parse_knowledge(text: str) -> list[KnowledgePath]:
    """Knowledge paths (:func:`knowledge_paths_text`) back into names, entities, sentences."""
    paths: list[KnowledgePath] = []
    current: list[str] = []
    for line in text.splitlines() + [f"{_KNOWLEDGE_PATH}end: "]:
        if line.startswith(_KNOWLEDGE_PATH) and ": " in line:
            if current:
                paths.append(_knowledge_path(current))
            current = [line]
        elif current:
            current.append(line)
    return paths


def _knowledge_path(lines: list[str]) -> KnowledgePath:
    names = parse_path_names(lines[0].split(": ", 1)[1])
    entities: dict[str, Block] = {}
    sentences: list[str] = []
    block: list[str] = []
    for line in lines[1:] + [""]:
        if line.startswith("  ") and block:
            block.append(line)
            continue
        if block and (entity := parse_entity(block)) is not None:
            entities.setdefault(entity.name, entity)
        block = []
        if is_entity_header(line.strip()) and not line.startswith(" "):
            block = [line]
        elif line.strip():
            sentences.append(line.strip())
    return KnowledgePath(names, entities, sentences)


def parse_monster_menu(text: str) -> list[tuple[str, list[str]]]:
    """The monster list (:func:`monster_menu_text`) back into (name, aliases)."""
    menu = []
    for line in text.splitlines():
        line = line.strip().removeprefix("- ")
        name, _, aliases = line.partition(" (also: ")
        menu.append((name, [a for a in aliases.rstrip(")").split(", ") if a]))
    return menu


def parse_sections(text: str, empty: str = "") -> dict[str, str]:
    """The ``## Name`` sections of a rendered user message, name -> content (stripped); a
    section holding only the prompt set's ``empty`` text is empty."""
    out: dict[str, str] = {}
    name = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if name is not None:
                out[name] = "\n".join(lines).strip()
            name, lines = line[3:].strip(), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        out[name] = "\n".join(lines).strip()
    return {k: ("" if v == empty else v) for k, v in out.items()}
