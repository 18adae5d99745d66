"""The question text shown to a model."""
from __future__ import annotations

import re

from .model import MONSTER_PLACEHOLDER, Query

GAME = "Monster Hunter: World"
WITHHELD = "the monster"

_PLACEHOLDER = re.escape(MONSTER_PLACEHOLDER)
# An apostrophe right after the name with no "s" ("{monster}' tail"): a possessive missing its s.
_BARE_POSSESSIVE = re.compile(_PLACEHOLDER + r"(['’])(?![sS]\b)")
_SENTENCE_START = re.compile(r"(^|[.?!]\s+)" + _PLACEHOLDER)


def fill(template: str, name: str) -> str:
    """``{monster}`` -> ``name``: capitalised at a sentence start, a bare possessive apostrophe
    completed ("Zinogre' tail" -> "Zinogre's tail", "Diablos' tail" stays), spaces collapsed."""
    if not name.endswith(("s", "S")):
        template = _BARE_POSSESSIVE.sub(MONSTER_PLACEHOLDER + r"\1s", template)
    template = _SENTENCE_START.sub(lambda m: m[1] + name[:1].upper() + name[1:], template)
    return " ".join(template.replace(MONSTER_PLACEHOLDER, name).split())


def _sentence(text: str, *, end: str | None = None) -> str:
    """First letter upper-cased; ``end`` appended when the text has no final punctuation."""
    text = text[:1].upper() + text[1:]
    if end and text[-1:] not in ".?!":
        text += end
    return text


def render_question(query: Query, monster_name: str | None = None, *, use_name: bool = True,
                    use_extra: bool = True, style: str = "open") -> str:
    """The question of ``query`` as a model sees it.

    ``monster_name`` fills ``{monster}`` (defaults to the title-cased topic id); with
    ``use_name=False`` the monster is called "the monster". ``style="official"`` frames it the
    way the authors' release does: "I am playing 'Monster Hunter: World' and fighting with
    <Monster>." (without "and fighting with ..." when the name is withheld), then the auxiliary
    information as a sentence, then the question. As in the authors' code, a text-only query
    (no media, no perception) keeps the monster's name even when names are withheld, since
    nothing else could tell which monster it is about; unlike it, the auxiliary information
    withholds the name too, and stray spaces and missing sentence ends are put right.
    """
    name = monster_name or query.monster.replace("-", " ").title()
    if style == "open":
        shown = name if use_name else WITHHELD
        question = fill(query.question, shown)
        extra = fill(query.extra, shown) if (use_extra and query.extra) else None
        return f"{extra}\n{question}" if extra else question
    if style != "official":
        raise ValueError(f"unknown style {style!r} (use 'open' or 'official')")
    named = use_name or (not query.has_media and not query.perception)
    shown = name if named else WITHHELD
    opening = f"I am playing '{GAME}' and fighting with {name}." if named else f"I am playing '{GAME}'."
    parts = [opening]
    if use_extra and query.extra:
        parts.append(_sentence(fill(query.extra, shown), end="."))
    parts.append(_sentence(fill(query.question, shown)))
    return " ".join(parts)
