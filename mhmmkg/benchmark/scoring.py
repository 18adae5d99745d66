"""Scoring policies: every choice a protocol makes about how a submission is scored, as one value.

``mhmmkg evaluate --protocol NAME`` picks a policy by name from ``mhmmkg.protocols.SCORING``; the
evaluator and the submission checks read its fields instead of asking which protocol is on. The
authors' policy is declared with the rest of their conventions (``mhmmkg.official.protocol``).
A protocol's options (``missing``, ``matching``, ``judge_verdict``) are defaults: each option
given on its own wins.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScoringPolicy:
    name: str
    matching: str = "one-to-one"       # path matching (``eval.evaluator.MATCHINGS``)
    judge_verdict: str = "first-word"  # how an LLM judge's reply is read (``eval.judges``)
    missing: str = "zero"              # a query without a prediction: "zero" (counted wrong) or "skip"
    question_style: str = "open"       # the question text the judge sees (``mhmmkg.render.STYLES``)
    #: a path or caption naming what the KG lacks matches nothing, instead of invalidating the submission
    unknown_matches_nothing: bool = False
    #: the rows of a File the question list repeats are scored once, with the last row's prediction
    one_prediction_per_file: bool = False
    #: the paths of a setting that does not search are not read (its predictions count P = R = 0)
    answer_only_paths_unread: bool = False

    def options(self) -> dict[str, object]:
        """The evaluate options this policy fills when they are not given (argparse destinations)."""
        return {"path_matching": self.matching, "judge_verdict": self.judge_verdict, "missing": self.missing}
