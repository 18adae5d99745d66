"""The question text shown to a model, in two styles.

Both styles frame a query the way the authors' release does: "I am playing 'Monster Hunter:
World' and fighting with <Monster>." (without "and fighting with ..." when names are withheld),
then the auxiliary information, then the question, with ``{monster}`` filled in.

``open`` (the default) puts the text right: a name glued to the word before or after it gets
its space, runs of spaces collapse, sentences start with a capital and end with a full stop, a
bare possessive apostrophe is completed ("Zinogre' tail" -> "Zinogre's tail"), and withheld
names stay withheld in the auxiliary information too.

``official`` (declared with the authors' protocol, ``mhmmkg.official.style``) is the authors'
exact string, character for character: ``{monster}`` becomes a
space and the name (their ``{}`` filled with ``" " + name``), the parts are joined by single
spaces with the auxiliary information as written, and when names are withheld the auxiliary
information still names the monster, as their code does.

In both styles a text-only query (no media and no scene description) keeps the monster's name
when names are withheld, since nothing else could tell which monster it is about; the authors'
code does the same for its "Pure Text" rows.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from ..kg.model import MONSTER_PLACEHOLDER, AnswerKey, Query
from ..registry import Lazy, Registry

GAME = "Monster Hunter: World"
WITHHELD = "the monster"

_PLACEHOLDER = re.escape(MONSTER_PLACEHOLDER)
# An apostrophe right after the name with no "s" ("{monster}' tail"): a possessive missing its s.
_BARE_POSSESSIVE = re.compile(_PLACEHOLDER + r"(['’])(?![sS]\b)")
_SENTENCE_START = re.compile(r"(^|[.?!]\s+)" + _PLACEHOLDER)
# The name glued to the word before ("that{monster} is") or after it ("{monster}is").
_GLUED_BEFORE = re.compile(r"(?<=[^\s(\[\"'“‘])" + _PLACEHOLDER)
_GLUED_AFTER = re.compile(_PLACEHOLDER + r"(?=[0-9A-Za-z])")


@lru_cache(maxsize=256)     # a question and its auxiliary information are filled again by each view of them
def fill(template: str, name: str) -> str:
    """``{monster}`` -> ``name``, put right: one space on each side of the name, capitalised at a
    sentence start, a bare possessive apostrophe completed ("Zinogre' tail" -> "Zinogre's tail",
    "Diablos' tail" stays), runs of spaces collapsed."""
    template = _GLUED_AFTER.sub(MONSTER_PLACEHOLDER + " ", _GLUED_BEFORE.sub(" " + MONSTER_PLACEHOLDER, template))
    template = " ".join(template.split())
    if not name.endswith(("s", "S")):
        template = _BARE_POSSESSIVE.sub(MONSTER_PLACEHOLDER + r"\1s", template)
    template = _SENTENCE_START.sub(lambda m: m[1] + name[:1].upper() + name[1:], template)
    return template.replace(MONSTER_PLACEHOLDER, name)


class QuestionStyle(NamedTuple):
    """How one style writes the question: ``fill`` puts a name in a template; ``extra(query, name,
    use_name)`` writes the auxiliary information; ``question(query, name, named, extra)`` the whole
    text (``named``: the monster is named; ``extra``: the auxiliary information, or None)."""

    fill: Callable[[str, str], str]
    extra: Callable[[Query, str, bool], str]
    question: Callable[[Query, str, bool, "str | None"], str]


def _open_extra(query: Query, name: str, use_name: bool) -> str:
    shown = name if (use_name or is_text_only_query(query)) else WITHHELD
    return _sentence(fill(query.extra, shown), end=".")


def _open_question(query: Query, name: str, named: bool, extra: str | None) -> str:
    shown = name if named else WITHHELD
    opening = f"I am playing '{GAME}' and fighting with {name}." if named else f"I am playing '{GAME}'."
    return " ".join(part for part in (opening, extra, _sentence(fill(query.question, shown))) if part)


OPEN = QuestionStyle(fill, _open_extra, _open_question)

#: question styles: "open" (ours, cleaned) or "official" (the authors' string, declared with their conventions)
STYLES = Registry("question style", "--question-style", {
    "open": OPEN,
    "official": Lazy("mhmmkg.official.style:QUESTION_STYLE"),
}, plugins=QuestionStyle)


def is_text_only_query(query: Query) -> bool:
    """A query with neither media nor a scene description (the authors' "Pure Text" rows)."""
    return not query.has_media and not query.perception


def _sentence(text: str, *, end: str | None = None) -> str:
    """First letter upper-cased; ``end`` appended when the text has no final punctuation."""
    text = text[:1].upper() + text[1:]
    if end and text[-1:] not in ".?!":
        text += end
    return text


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r} (use 'open' or 'official')")


def _name(query: Query, monster_name: str | None) -> str:
    return monster_name or query.monster.replace("-", " ").title()


def render_extra(query: Query, monster_name: str | None = None, *, use_name: bool = True,
                 style: str = "open") -> str | None:
    """The auxiliary information of ``query`` as the style shows it, or None when it has none.

    In the official style the monster is named even when names are withheld, as in the authors' code.
    """
    _check_style(style)
    if not query.extra:
        return None
    return STYLES[style].extra(query, _name(query, monster_name), use_name)


def render_question(query: Query, monster_name: str | None = None, *, use_name: bool = True,
                    use_extra: bool = True, style: str = "open") -> str:
    """The question of ``query`` as a model sees it (see the module docstring for the styles).

    ``monster_name`` fills ``{monster}`` (defaults to the title-cased topic id); with
    ``use_name=False`` the monster is called "the monster"; ``use_extra=False`` leaves out the
    auxiliary information (the paper's Table 12 ablations).
    """
    _check_style(style)
    name = _name(query, monster_name)
    named = use_name or is_text_only_query(query)
    extra = render_extra(query, name, use_name=use_name, style=style) if use_extra else None
    return STYLES[style].question(query, name, named, extra)


def _entity_phrase(kg, entity_id: str) -> str:
    """``Name (type; also: alias, ...)`` for a key entity, or the bare id when the KG lacks it."""
    if entity_id not in kg:
        return entity_id
    _, type_, _, names = kg.naming(entity_id)
    also = f"; also called {', '.join(names[1:])}" if len(names) > 1 else ""
    return f"{names[0]} ({type_.replace('_', ' ')}{also})"


def render_key(key: AnswerKey | None, kg) -> str | None:
    """An answer key in words, for people (the report) and for the LLM judge; None without a key.

    ``kg`` is the ``KnowledgeGraph`` that names the key's entities."""
    if key is None:
        return None
    parts = []
    if key.kind == "yes_no":
        parts.append(f"The answer is {key.polarity.capitalize()}.")
    entities = [_entity_phrase(kg, e) for e in key.entities]
    if key.kind == "entity" and entities:
        parts.append(f"The answer is {entities[0]}; naming another one of its kind instead or as well is wrong.")
    elif key.kind == "entities" and entities:
        parts.append(f"The answer is all of: {'; '.join(entities)}; naming another one of their kind as well is wrong.")
    elif entities:
        parts.append(f"It must name: {'; '.join(entities)}.")
    for point in key.nuggets:
        parts.append("It must state: " + " or ".join(f"'{w}'" for w in point) + ".")
    if key.rivals:
        parts.append("Naming any of these is wrong: " + ", ".join(f"'{r}'" for r in key.rivals) + ".")
    return " ".join(parts)
