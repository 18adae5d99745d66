"""The authors' question text (``--question-style official``, registered in
``mhmmkg.benchmark.render.STYLES``): their exact string, character for character. ``{monster}``
becomes a space and the name (their ``{}`` filled with ``" " + name``), the parts are joined by
single spaces with the auxiliary information as written, and the auxiliary information names
the monster even when names are withheld, as their code does.
"""
from __future__ import annotations

from mhmmkg.benchmark.render import GAME, WITHHELD, QuestionStyle
from mhmmkg.kg.model import MONSTER_PLACEHOLDER, Query


def fill_official(template: str, name: str) -> str:
    """``{monster}`` -> a space and ``name``, nothing else changed: the authors' filling of ``{}``."""
    return template.replace(MONSTER_PLACEHOLDER, " " + name)


def _official_extra(query: Query, name: str, use_name: bool) -> str:
    return fill_official(query.extra, name)      # their code names the monster here even when withheld


def _official_question(query: Query, name: str, named: bool, extra: str | None) -> str:
    shown = name if named else WITHHELD
    opening = f"I am playing '{GAME}'" + (f" and fighting with {name}" if named else "") + "."
    return f"{opening} {extra} {fill_official(query.question, shown)}" if extra is not None \
        else f"{opening} {fill_official(query.question, shown)}"


#: ``--question-style official``: the authors' exact string (``mhmmkg.render``)
QUESTION_STYLE = QuestionStyle(fill_official, _official_extra, _official_question)
