"""Evaluation of the MH benchmark: submission checks, metrics, judges and reports."""
from __future__ import annotations

from .evaluator import Evaluator, QueryScore
from .judges import ExactJudge, Judge, Judgement, LLMJudge, Verdict
from .report import format_result
from .submission import CheckedSubmission, InvalidSubmission, Prediction, SubmissionChecker, write_submission

__all__ = [
    "CheckedSubmission", "Evaluator", "ExactJudge", "InvalidSubmission", "Judge", "Judgement", "LLMJudge",
    "Prediction", "QueryScore", "SubmissionChecker", "Verdict", "format_result", "write_submission",
]
