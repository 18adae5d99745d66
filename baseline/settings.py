"""The six experimental settings of the paper (its Table 2) and the options of one run."""
from __future__ import annotations

from dataclasses import dataclass

from mhmmkg.registry import Registry
from mhmmkg.render import STYLES


@dataclass(frozen=True)
class Setting:
    name: str
    summary: str
    query_media: bool = False      # the model looks at the query's images/keyframes
    scene: str = "none"            # what fills the scene description: "human", "model" or "none"
    retrieval: str = "none"        # "none", "given" (ground-truth paths) or "search"
    captions: str = "human"        # KG captions shown: "human", "offline" (pre-extracted) or "online"
    #: topic selection and the summarizer also look at the query's frames (the paper's online setting)
    frames_to_answer: bool = False

    @property
    def needs_kg_media(self) -> bool:
        return self.captions in ("offline", "online")


SETTINGS = Registry("setting", "--setting", {s.name: s for s in (
    Setting("vanilla", "the model sees the query media and the question; no knowledge graph",
            query_media=True),
    Setting("vanilla_plus", "the human description of the scene and the question; no knowledge graph",
            scene="human"),
    Setting("know", "human description + the ground-truth knowledge paths with human captions (upper bound)",
            scene="human", retrieval="given"),
    Setting("perceptive", "human description + the model searches the KG itself, shown human captions",
            scene="human", retrieval="search"),
    Setting("unaided_offline", "the model describes the query media and, beforehand and blind to the query, "
            "the KG media; then searches with its own captions", query_media=True, scene="model",
            retrieval="search", captions="offline"),
    Setting("unaided_online", "the model describes the query media, and describes KG media during "
            "validation knowing the query and the path", query_media=True, scene="model",
            retrieval="search", captions="online", frames_to_answer=True),
)})

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
