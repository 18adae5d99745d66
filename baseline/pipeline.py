"""How one query is answered in each setting: perception, topic selection, search, summary.

:func:`solve` returns the query's submission line (with its accounting in ``meta``); the
steps inside one query run in order, so a query is the unit the runner parallelises.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.kg.model import Query
from mhmmkg.llm.prompt_text import path_names_text
from mhmmkg.benchmark.render import WITHHELD, is_text_only_query, render_extra, render_question

from .agents import Agents, MonsterList, group_neighbours, render_candidates
from .media import MediaStore
from .retrievers import RetrievalQuery, call_retriever, checked_paths
from .search import SearchResult, search, select_paths, submitted_paths, traits
from .settings import QuestionOptions, SearchOptions, Setting


@dataclass
class Context:
    """What every query of a run shares."""

    graph: KnowledgeGraph
    setting: Setting
    search: SearchOptions = field(default_factory=SearchOptions)
    question: QuestionOptions = field(default_factory=QuestionOptions)
    media: MediaStore | None = None
    #: model captions of KG media made beforehand (unaided_offline)
    captions: dict[str, str] = field(default_factory=dict)
    seed: int = 0            # seeds the official search's random phase pick, per query
    #: a retriever replacing topic selection and search (``--retriever``), and how it was named
    retriever: Callable | None = None
    retriever_spec: str | None = None

    #: show the topic agent at most this many monsters, those the query names (0: all, as the paper)
    topic_shortlist: int = 0
    #: "exact": read the topic, expansion and root verdict replies as the authors' code does
    replies: str = "lenient"

    def __post_init__(self):
        self.monsters = MonsterList(sorted(self.graph.monsters(), key=lambda m: m.name))

    def topic_choices(self, asked: Question) -> MonsterList:
        if not self.topic_shortlist:
            return self.monsters
        return self.monsters.shortlist(" ".join([asked.question, asked.extra, asked.scene]), self.topic_shortlist)

    def shown_captions(self, generated: dict[str, str]) -> dict[str, str] | None:
        """Captions to render: None means the human captions; otherwise model captions only
        (an entity without one shows none, so human captions never leak into unaided settings)."""
        if self.setting.captions == "human":
            return None
        shown = dict.fromkeys((e.id for e in self.graph.entities), "")
        shown.update(generated)
        return shown


@dataclass
class Question:
    """The texts every agent may see about the query (the prompt set picks which it shows)."""

    question: str
    full_question: str
    extra: str
    monster: str
    scene: str = ""

    def fields(self) -> dict[str, str]:
        return {"question": self.question, "full_question": self.full_question, "extra": self.extra,
                "monster": self.monster, "scene": self.scene}


def question_texts(query: Query, graph: KnowledgeGraph, options: QuestionOptions = QuestionOptions()) -> Question:
    """The question (framed as the official release does: game and monster named first), without
    and with the auxiliary information, and the auxiliary information alone, each rendered as
    ``options`` say (style, name withheld, no auxiliary information); the prompt set picks which
    an agent sees."""
    name = graph.entity(query.monster).name if query.monster in graph else None
    shown = name or query.monster.replace("-", " ").title()
    extra = render_extra(query, name, use_name=options.use_name, style=options.style) if options.use_extra else None
    return Question(
        question=render_question(query, name, use_name=options.use_name, use_extra=False, style=options.style),
        full_question=render_question(query, name, use_name=options.use_name, use_extra=options.use_extra,
                                      style=options.style),
        extra=extra or "",
        monster=shown if options.use_name or is_text_only_query(query) else WITHHELD)


def solve(query: Query, agents: Agents, ctx: Context) -> dict:
    """Answer one query in the context's setting; return its submission line."""
    started = time.perf_counter()
    setting = ctx.setting
    asked = question_texts(query, ctx.graph, ctx.question)
    images = ctx.media.query_images(query.id) if (setting.query_media and ctx.media) else ()
    line: dict = {"query_id": query.id, "answer": "", "paths": []}
    meta: dict = {"setting": setting.name, "retrieval_time": 0.0}
    if setting.query_media and not images:
        meta["text_only"] = True        # asked with its question only, as the authors do
    if setting.scene == "model":
        if images:
            asked.scene = line["perception"] = agents.perceive(images, **asked.fields())
    elif setting.scene == "human":
        asked.scene = query.perception or ""
    if setting.retrieval == "none":
        line["answer"] = agents.answer_directly(images if setting.scene == "none" else (), **asked.fields())
    elif setting.retrieval == "given":
        line.update(topic=query.monster, paths=[list(p) for p in query.paths])
        line["answer"] = agents.summarize(knowledge=ctx.graph.render_paths(query.paths), **asked.fields())
    elif ctx.retriever is not None:
        _plugged_retrieval(query.id, asked, images, agents, ctx, line, meta)
    else:
        frames = images if setting.frames_to_answer else ()
        _retrieve_and_answer(query.id, asked, frames, agents, ctx, line, meta)
    meta["response_time"] = round(time.perf_counter() - started, 6)
    line["meta"] = {**meta, **_accounting(agents)}
    return line


def _retrieve_and_answer(query_id: str, asked: Question, frames: Sequence[bytes], agents: Agents, ctx: Context,
                         line: dict, meta: dict) -> None:
    """Topic selection, search, summary; fills the line's topic, paths, captions and answer.
    ``frames`` (the query's, in unaided_online) go to topic selection and the summarizer."""
    started = time.perf_counter()
    generated: dict[str, str] = dict(ctx.captions) if ctx.setting.captions == "offline" else {}
    shown = ctx.shown_captions(generated)
    topic = agents.select_topic(ctx.topic_choices(asked), frames, exact=ctx.replies == "exact", **asked.fields())
    result = SearchResult(stopped="no topic")
    if topic is not None:
        line["topic"] = topic
        result = _search(query_id, topic, asked, agents, ctx, generated, shown)
    meta["retrieval_time"] = round(time.perf_counter() - started, 6)
    selected = select_paths(result.paths, ctx.search.alpha, ctx.search.order)
    line["paths"] = [list(p) for p in submitted_paths(result.paths, selected, ctx.search.order)]
    line["answer"] = agents.summarize(frames, knowledge=ctx.graph.render_paths(selected, captions=shown),
                                      **asked.fields())
    on_paths = sorted({e for p in selected for e in p})
    captions = {e: generated[e] for e in on_paths if generated.get(e)}
    if captions:
        line["captions"] = captions
    meta["search"] = {"found": len(result.paths), "expansions": result.expansions,
                      "validations": result.validations, "visited": len(result.visited), "stopped": result.stopped}


def _plugged_retrieval(query_id: str, asked: Question, images: Sequence[bytes], agents: Agents, ctx: Context,
                       line: dict, meta: dict) -> None:
    """The user's retriever instead of topic selection and search; then our summarizer."""
    started = time.perf_counter()
    query = RetrievalQuery(query_id, asked.question, asked.extra, asked.scene, tuple(images))
    paths = checked_paths(call_retriever(ctx.retriever, query, ctx.graph, ctx.retriever_spec), query_id, ctx.graph,
                          ctx.retriever_spec)
    meta["retrieval_time"] = round(time.perf_counter() - started, 6)
    selected = paths[: ctx.search.alpha]
    if selected:
        line["topic"] = selected[0][0]
    line["paths"] = selected
    shown = ctx.shown_captions(dict(ctx.captions) if ctx.setting.captions == "offline" else {})
    frames = images if ctx.setting.frames_to_answer else ()
    line["answer"] = agents.summarize(frames, knowledge=ctx.graph.render_paths(selected, captions=shown),
                                      **asked.fields())
    meta["search"] = {"retriever": ctx.retriever_spec, "found": len(paths)}


def _accounting(agents: Agents) -> dict:
    out = {
        "agent_calls": len(agents.calls),
        "calls_by_agent": _count_by_agent(agents),
        "cached_calls": sum(c.cached for c in agents.calls),
        "prompt_tokens": sum(c.prompt_tokens or 0 for c in agents.calls),
        "completion_tokens": sum(c.completion_tokens or 0 for c in agents.calls),
    }
    if agents.unparsed:
        out["unparsed"] = dict(sorted(agents.unparsed.items()))
    return out


def _count_by_agent(agents: Agents) -> dict[str, int]:
    counts: dict[str, int] = {}
    for call in agents.calls:
        counts[call.agent] = counts.get(call.agent, 0) + 1
    return dict(sorted(counts.items()))


def _search(query_id: str, topic: str, asked: Question, agents: Agents, ctx: Context, generated: dict[str, str],
            shown: dict[str, str] | None) -> SearchResult:
    """``generated`` collects captions made during validation (unaided_online); ``shown`` is what
    the prompts display (None: human captions)."""
    graph = ctx.graph
    online = ctx.setting.captions == "online"
    strategy = traits(ctx.search.order)
    offers_path = strategy.offers_path_entities
    exact = ctx.replies == "exact" and agents.in_authors_shapes()
    rng = random.Random(f"{ctx.seed}:{query_id}")

    def expand(path: Sequence[str]) -> list[str]:
        groups = group_neighbours(graph.neighbours(path[-1]))
        if not offers_path:     # the paper's and the authors' searches offer entities on the path too (loops)
            groups = [g for g in groups if g[0].id not in path]
        if not groups:
            return []
        candidates = render_candidates(graph, groups, shown)
        names = path_names_text(graph.entity(e).name for e in path)
        keys = [authors_key(graph, path, g[0].id) for g in groups] if exact else None
        chosen = agents.expand(groups, candidates, path=names, knowledge=graph.render_path(path, captions=shown),
                               entity_name=graph.entity(path[-1]).name, exact_keys=keys, rng=rng, **asked.fields())
        return [groups[n - 1][0].id for n in chosen]

    def validate(path: Sequence[str]) -> bool | None:
        entity_id = path[-1]
        fields = {
            "knowledge": graph.render_path(path, captions=shown),
            "memory": graph.render_path(path[:-1], captions=shown) if len(path) > 1 else "",
            "entity": graph.render_entity(entity_id, caption=shown.get(entity_id) if shown is not None else None),
            "entity_name": graph.entity(entity_id).name,
            "step": " ".join(graph.render_relation(r) for r in graph.relations_between(path[-2], entity_id))
            if len(path) > 1 else "",
            **asked.fields(),
        }
        images = ctx.media.entity_images(entity_id) if (online and ctx.media) else ()
        if strategy.validates_topic_as_text and len(path) == 1:     # the authors' search: as text, exactly "Yes"
            return agents.validate(exact_yes=exact, **fields)
        if not images:
            return agents.validate(**fields)
        complete, description = agents.validate_online(images, exact=exact, **fields)
        if description:
            generated[entity_id] = shown[entity_id] = description
        return complete

    return search(graph, topic, expand, validate, order=ctx.search.order, max_depth=ctx.search.max_depth,
                  path_budget=ctx.search.path_budget, alpha=ctx.search.alpha, rng=rng, draw_phase=not exact)


def authors_key(graph: KnowledgeGraph, path: Sequence[str], entity_id: str) -> str:
    """The key the authors' KG gives ``entity_id`` reached from ``path``: a monster's or a global
    name ("Element", "Pierce Pod") as it is, any other the name of the monster whose part of the
    graph the path is in (the last monster on it), a space and its name ("Zinogre Back Slam")."""
    entity = graph.entity(entity_id)
    if entity.type == "monster" or "Element" in entity.name or "Pierce Pod" in entity.name:
        return entity.name
    current = next(graph.entity(e).name for e in reversed(path) if graph.entity(e).type == "monster")
    return f"{current} {entity.name}"


def caption_entity(entity_id: str, agents: Agents, graph: KnowledgeGraph, media: MediaStore) -> str | None:
    """A model caption of one entity's frames, blind to any query (unaided_offline)."""
    images = media.entity_images(entity_id)
    if not images:
        return None
    entity = graph.entity(entity_id)
    owner = graph.entity(entity.monster).name if entity.monster in graph else "(shared entry)"
    return agents.caption(owner, f"{entity.name} ({entity.type.replace('_', ' ')})", images) or None
