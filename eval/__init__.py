"""Evaluation of the MH benchmark: submission checks, metrics, judges and reports.

The names below are imported from their modules on first use, so that a verb importing one
module of this package (``mhmmkg validate`` needs only the submission checks) does not pay for
the others (the evaluator brings numpy and the judges)."""
from __future__ import annotations

import importlib

_MODULE_OF = {
    "Evaluator": "evaluator", "QueryScore": "evaluator",
    "ExactJudge": "judges", "Judge": "judges", "Judgement": "judges", "LLMJudge": "judges", "Verdict": "judges",
    "format_result": "report",
    "CheckedSubmission": "submission", "InvalidSubmission": "submission", "Prediction": "submission",
    "SubmissionChecker": "submission", "write_submission": "submission",
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
