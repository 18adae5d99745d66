"""The six experimental settings of the paper (its Table 2), declared once as data.

Each :class:`Setting` says what the model is shown (query media, a scene description, knowledge
given or searched, which KG captions), what media it therefore needs, and the name the authors'
code gives it (their result files are named by it). Everything that lists or branches on settings
reads this registry: the baseline's ``--setting``, the authors' result formats, the scoring of
answer-only settings, the report's reference rows and the demo. A setting of one's own is a
``Setting`` in a file of one's own: ``mhmmkg run --setting mine.py:MINE``. It lives in core because the
baseline, the evaluator and core's own protocol code all read it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..registry import Registry


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
    #: the authors' name for this mode (their code's result files are "<model>_<mode>.json")
    official_mode: str = ""

    @property
    def needs_kg_media(self) -> bool:
        return self.captions in ("offline", "online")

    @property
    def searches(self) -> bool:
        """The model retrieves knowledge itself (the search settings of ``run`` apply; the authors'
        result files hold its routes)."""
        return self.retrieval == "search"


#: in the paper's order (its Tables 2 and 3), which is also the order of the authors' modes
SETTINGS = Registry("setting", "--setting", {s.name: s for s in (
    Setting("vanilla", "the model sees the query media and the question; no knowledge graph",
            query_media=True, official_mode="Direct Vision-needed"),
    Setting("vanilla_plus", "the human description of the scene and the question; no knowledge graph",
            scene="human", official_mode="Direct"),
    Setting("know", "human description + the ground-truth knowledge paths with human captions (upper bound)",
            scene="human", retrieval="given", official_mode="Perfect"),
    Setting("perceptive", "human description + the model searches the KG itself, shown human captions",
            scene="human", retrieval="search", official_mode="self Search"),
    Setting("unaided_offline", "the model describes the query media and, beforehand and blind to the query, "
            "the KG media; then searches with its own captions", query_media=True, scene="model",
            retrieval="search", captions="offline", official_mode="Offline"),
    Setting("unaided_online", "the model describes the query media, and describes KG media during "
            "validation knowing the query and the path", query_media=True, scene="model",
            retrieval="search", captions="online", frames_to_answer=True, official_mode="Online Vision-needed"),
)}, plugins=Setting)

#: the settings that do not search: their submissions answer only (the authors' modes "Direct
#: Vision-needed", "Direct" and "Perfect", whose routes their evaluation never reads)
ANSWER_ONLY_SETTINGS: tuple[str, ...] = tuple(name for name, s in SETTINGS.items() if not s.searches)
