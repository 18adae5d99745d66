"""The question text shown to a model."""
from __future__ import annotations

from .model import MONSTER_PLACEHOLDER, Query

GAME = "Monster Hunter: World"


def render_question(query: Query, monster_name: str | None = None, *, use_name: bool = True,
                    use_extra: bool = True, style: str = "open") -> str:
    """The question of ``query`` as a model sees it.

    ``monster_name`` fills ``{monster}`` (defaults to the title-cased topic id); with
    ``use_name=False`` the monster is called "the monster". ``style="official"`` frames it the
    way the authors' release does: a first sentence naming the game (and the monster), then the
    auxiliary information, then the question.
    """
    name = monster_name or query.monster.replace("-", " ").title()
    shown = name if use_name else "the monster"
    question = query.question.replace(MONSTER_PLACEHOLDER, shown)
    extra = query.extra.replace(MONSTER_PLACEHOLDER, shown) if (use_extra and query.extra) else None
    if style == "open":
        return f"{extra}\n{question}" if extra else question
    if style != "official":
        raise ValueError(f"unknown style {style!r} (use 'open' or 'official')")
    opening = f"I am playing '{GAME}' and fighting with {name}." if use_name else f"I am playing '{GAME}'."
    return " ".join(part for part in (opening, extra, question) if part)

