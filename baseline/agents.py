"""The baseline's agents: each one a prompt, a chat call and a parser of the reply.

One :class:`Agents` serves one query (or the captioning step): it records every call it makes
(agent, latency, attempts, tokens, cached, the user prompt and the reply) and counts replies it could not parse. An
unparseable reply is never guessed into something else: the step is treated as "nothing
chosen" / "not complete", and the count goes into the query's record.
"""
from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from mhmmkg.chat import ChatBackend, ChatRequest, Message
from mhmmkg.graph import KnowledgeGraph, Neighbour, normalise_name
from mhmmkg.model import Entity

from .prompts import (CAPTIONER, DIRECT, EXPANSION, PERCEIVER, SUMMARIZER, TOPIC, VALIDATION,
                      VALIDATION_ONLINE, Prompt)


@dataclass(frozen=True)
class CallRecord:
    query_id: str | None
    agent: str
    latency: float
    attempts: int
    cached: bool
    prompt_tokens: int | None
    completion_tokens: int | None
    images: int = 0
    prompt: str = ""
    reply: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


class Agents:
    """The agents, bound to one chat backend and one query id."""

    def __init__(self, backend: ChatBackend, *, query_id: str | None = None, temperature: float = 0.0,
                 max_tokens: int | None = None, seed: int | None = None,
                 on_call: Callable[[CallRecord], None] | None = None):
        self.backend = backend
        self.query_id = query_id
        self.temperature, self.max_tokens, self.seed = temperature, max_tokens, seed
        self.on_call = on_call
        self.calls: list[CallRecord] = []
        self.unparsed: Counter[str] = Counter()
        self._lock = threading.Lock()

    def ask(self, prompt: Prompt, images: Sequence[bytes] = (), **fields: str) -> str:
        request = ChatRequest(
            (Message("system", prompt.system), Message("user", prompt.render(**fields), tuple(images))),
            temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed)
        response = self.backend.complete(request)
        record = CallRecord(self.query_id, prompt.agent, round(response.latency, 6), response.attempts,
                            response.cached, response.prompt_tokens, response.completion_tokens, len(images),
                            prompt=request.messages[-1].text, reply=response.text)
        with self._lock:
            self.calls.append(record)
        if self.on_call:
            self.on_call(record)
        return response.text

    def _note_unparsed(self, agent: str) -> None:
        with self._lock:
            self.unparsed[agent] += 1

    def perceive(self, images: Sequence[bytes]) -> str:
        return self.ask(PERCEIVER, images).strip()

    def caption(self, monster: str, entity: str, images: Sequence[bytes]) -> str:
        return self.ask(CAPTIONER, images, monster=monster, entity=entity).strip()

    def select_topic(self, monsters: Sequence[Entity], *, question: str, extra: str, scene: str) -> str | None:
        reply = self.ask(TOPIC, question=question, extra=extra, scene=scene, monsters=render_monsters(monsters))
        chosen = parse_topic(reply, monsters)
        if chosen is None:
            self._note_unparsed(TOPIC.agent)
        return chosen

    def expand(self, candidates: str, count: int, *, question: str, extra: str, scene: str, path: str) -> list[int]:
        """Numbers (1-based) of the candidates the agent picks."""
        reply = self.ask(EXPANSION, question=question, extra=extra, scene=scene, path=path, candidates=candidates)
        chosen = parse_choice(reply, count)
        if chosen is None:
            self._note_unparsed(EXPANSION.agent)
            return []
        return chosen

    def validate(self, *, question: str, extra: str, scene: str, knowledge: str, entity: str, step: str) -> bool:
        reply = self.ask(VALIDATION, question=question, extra=extra, scene=scene, knowledge=knowledge,
                         entity=entity, step=step)
        verdict = parse_verdict(reply)
        if verdict is None:
            self._note_unparsed(VALIDATION.agent)
        return bool(verdict)

    def validate_online(self, images: Sequence[bytes], *, question: str, extra: str, scene: str, knowledge: str,
                        entity: str, step: str) -> tuple[bool, str | None]:
        """Verdict and the agent's description of the entity's frames."""
        reply = self.ask(VALIDATION_ONLINE, images, question=question, extra=extra, scene=scene,
                         knowledge=knowledge, entity=entity, step=step)
        verdict = parse_verdict(reply)
        if verdict is None:
            self._note_unparsed(VALIDATION_ONLINE.agent)
        return bool(verdict), parse_description(reply)

    def summarize(self, *, question: str, extra: str, scene: str, knowledge: str) -> str:
        return parse_answer(self.ask(SUMMARIZER, question=question, extra=extra, scene=scene, knowledge=knowledge))

    def answer_directly(self, images: Sequence[bytes] = (), *, question: str, extra: str, scene: str) -> str:
        return parse_answer(self.ask(DIRECT, images, question=question, extra=extra, scene=scene))


def render_monsters(monsters: Sequence[Entity]) -> str:
    lines = []
    for m in monsters:
        aliases = f" (also: {', '.join(m.aliases)})" if m.aliases else ""
        lines.append(f"- {m.name}{aliases}")
    return "\n".join(lines)


def group_neighbours(neighbours: Sequence[Neighbour]) -> list[tuple[Entity, list]]:
    """Neighbours grouped by entity (parallel relations kept together), in first-seen order."""
    grouped: dict[str, tuple[Entity, list]] = {}
    for relation, entity in neighbours:
        grouped.setdefault(entity.id, (entity, []))[1].append(relation)
    return list(grouped.values())


def render_candidates(graph: KnowledgeGraph, groups: Sequence[tuple[Entity, list]],
                      captions: dict[str, str] | None = None) -> str:
    """Numbered candidate entities with the relation(s) that reach them, caption and context."""
    blocks = []
    for number, (entity, relations) in enumerate(groups, 1):
        caption = captions.get(entity.id, "") if captions is not None else None
        header, *details = graph.render_entity(entity.id, caption=caption).split("\n")
        links = [f"  Link: {graph.render_relation(r)}" for r in relations]
        blocks.append("\n".join([f"[{number}] {header}", *links, *details]))
    return "\n".join(blocks)


def parse_topic(reply: str, monsters: Sequence[Entity]) -> str | None:
    """The monster a reply names: an exact name/alias first, else the earliest name mentioned."""
    text = normalise_name(reply.split("\n")[-1] if reply.strip() else "")
    for m in monsters:
        if text in {normalise_name(n) for n in m.names}:
            return m.id
    padded = f" {normalise_name(reply)} "
    found = []
    for m in monsters:
        for name in m.names:
            at = padded.find(f" {normalise_name(name)} ")
            if at >= 0 and normalise_name(name):
                found.append((at, -len(name), m.id))
    return min(found)[2] if found else None


def parse_choice(reply: str, count: int) -> list[int] | None:
    """Candidate numbers in a reply, in order, without repeats; [] for NONE; None if unreadable."""
    numbers = [int(n) for n in re.findall(r"\b\d+\b", reply)]
    chosen = list(dict.fromkeys(n for n in numbers if 1 <= n <= count))
    if chosen:
        return chosen
    if re.search(r"\bnone\b", reply, re.IGNORECASE):
        return []
    return None


def parse_verdict(reply: str) -> bool | None:
    """True for SUFFICIENT, False for CONTINUE (the last one named wins), None if neither."""
    found = re.findall(r"\b(sufficient|continue)\b", reply, re.IGNORECASE)
    if not found:
        return None
    return found[-1].lower() == "sufficient"


def parse_description(reply: str) -> str | None:
    match = re.search(r"Description:\s*(.*?)(?:\n\s*Verdict:|\Z)", reply, re.IGNORECASE | re.DOTALL)
    text = match.group(1).strip() if match else ""
    return text or None


def parse_answer(reply: str) -> str:
    """The text after the last 'Answer:' marker, or the whole reply when there is none."""
    matches = list(re.finditer(r"(?im)^\s*\**answer\**\s*:\s*", reply))
    if matches:
        return reply[matches[-1].end():].strip().strip("*").strip()
    return reply.strip()
