"""Conventions of the authors' protocol shared by the importers, the exporter and ``evaluate --official``,
and their scoring policy (``AUTHORS_SCORING``, ``--protocol authors``, registered in
``mhmmkg.benchmark.protocols.SCORING``); their question text is ``style``.

Query ids for the authors' question list: one per ``File``, a repeated File numbered. The
authors' list gives two rows the same File (``Rathalos_Retreating Fireball``). Importing
numbers the later rows ``<id>-2``, ``<id>-3``, ...; their code keeps one prediction per File
(the last row's) and scores it once, against the first row. The functions here are that
convention, shared by the importer, the result converters and ``evaluate --official``.
"""
from __future__ import annotations

import re
from collections.abc import Container

from mhmmkg.benchmark.scoring import ScoringPolicy
from mhmmkg.benchmark.settings import ANSWER_ONLY_SETTINGS, SETTINGS  # noqa: F401  (its old home)

from .style import QUESTION_STYLE  # noqa: F401  (its old home)

#: The authors' mode names -> our settings (paper Table 2), in the authors' order.
OFFICIAL_MODES: dict[str, str] = {s.official_mode: name for name, s in SETTINGS.items()}

#: The authors' evaluation.py: a ground-truth route counts when any predicted route has the same
#: entity names; only an exact "Yes" from the judge counts; missing predictions are skipped; a
#: path through what the KG lacks matches nothing; a repeated File is scored once; the routes of
#: their modes without a search are never read; the judge sees their question text.
AUTHORS_SCORING = ScoringPolicy("authors", matching="names", judge_verdict="exact-yes", missing="skip",
                                question_style="official", unknown_matches_nothing=True,
                                one_prediction_per_file=True, answer_only_paths_unread=True)


def official_query_id(file: str) -> str:
    """Our query id for an official ``File`` value: characters ids may not hold become '-'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", str(file).strip()).strip("-._")


def repeated_id(qid: str, taken: Container[str]) -> str:
    """The id of a query whose File repeats an earlier row's: ``<id>-2``, ``<id>-3``, ..."""
    n = 2
    while f"{qid}-{n}" in taken:
        n += 1
    return f"{qid}-{n}"


def repeat_group(qid: str, known: Container[str]) -> list[str]:
    """``qid`` and the ids of the rows repeating its File (``<qid>-2``, ...) present in ``known``."""
    group, n = [qid], 2
    while f"{qid}-{n}" in known:
        group.append(f"{qid}-{n}")
        n += 1
    return group
