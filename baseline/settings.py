"""The six experimental settings of the paper (declared in core, ``mhmmkg.settings``) and the parts of
a run's options: how the question is put and how the KG is searched."""
from __future__ import annotations

from dataclasses import dataclass

from mhmmkg.benchmark.render import STYLES
from mhmmkg.benchmark.settings import SETTINGS, Setting  # noqa: F401  (read from here by the baseline)


QUESTION_STYLES = STYLES
REPLY_READINGS = ("lenient", "exact")


@dataclass(frozen=True)
class QuestionOptions:
    """How the question is put to the agents (``mhmmkg.render``; the paper's Table 12 ablations)."""

    style: str = "open"        # "open": our cleaned text; "official": the authors' exact string
    use_name: bool = True      # False: "the monster" (text-only queries keep the name)
    use_extra: bool = True     # False: no auxiliary information


@dataclass(frozen=True)
class SearchOptions:
    order: str = "bfs"         # "bfs", "dfs", "paper" (section 4.1) or "official" (the authors' search)
    alpha: int = 5             # bfs: complete paths given to the summarizer, shortest first; dfs/paper:
                               # the first found; official: stop once this many are found (all are given)
    max_depth: int | None = 4      # bfs/dfs only (ours): hops from the topic entity; None: no limit
    path_budget: int | None = 10   # bfs/dfs only (ours): stop at this many complete paths; None: no limit


def __getattr__(name: str):
    if name == "RunConfig":         # the run's configuration is declared in .options, with its flags
        from .options import RunConfig

        return RunConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
