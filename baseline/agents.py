"""The baseline's agents: each one a prompt, a chat call and a parser of the reply.

One :class:`Agents` serves one query (or the captioning step): it records every call it makes
(agent, latency, attempts, tokens, cached, the user prompt and the reply) and counts replies it
could not parse. An unparseable reply is never guessed into something else: the step is treated as "nothing
chosen", a verdict as unreadable (None: our search keeps the entity open, the authors' drops
it), and the count goes into the query's record. How a reply is read follows the prompt set's
reply shape for the agent (ours: numbers, SUFFICIENT/CONTINUE; the authors': names separated
by ';', Yes/No).
"""
from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

from mhmmkg.chat import ChatBackend, ChatRequest, Message
from mhmmkg.graph import KnowledgeGraph, Neighbour, normalise_name
from mhmmkg.model import Entity
from mhmmkg.prompt_sets import PromptSet

from .prompts import default_prompts


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


class AgentBackends:
    """Which chat backend answers each agent: one default, and any agent routed to its own
    model or endpoint (``mhmmkg run --agent-model AGENT=NAME``, the paper's Table 14)."""

    def __init__(self, default: ChatBackend, per_agent: Mapping[str, ChatBackend] | None = None):
        self.default = default
        self.per_agent = dict(per_agent or {})

    def __call__(self, agent: str) -> ChatBackend:
        return self.per_agent.get(agent, self.default)

    def all(self) -> list[ChatBackend]:
        return [self.default, *self.per_agent.values()]


class Agents:
    """The agents, bound to their chat backends, one prompt set and one query id."""

    def __init__(self, backend: ChatBackend | AgentBackends, *, query_id: str | None = None,
                 temperature: float = 0.0, max_tokens: int | None = None, seed: int | None = None,
                 on_call: Callable[[CallRecord], None] | None = None, prompts: PromptSet | None = None):
        self.backends = backend if isinstance(backend, AgentBackends) else AgentBackends(backend)
        self.prompts = prompts or default_prompts()
        self.query_id = query_id
        self.temperature, self.max_tokens, self.seed = temperature, max_tokens, seed
        self.on_call = on_call
        self.calls: list[CallRecord] = []
        self.unparsed: Counter[str] = Counter()
        self._lock = threading.Lock()

    def ask(self, agent: str, images: Sequence[bytes] = (), **fields: str) -> str:
        system, user = self.prompts.render(agent, fields, len(images))
        messages = ((Message("system", system),) if system else ()) + (Message("user", user, tuple(images)),)
        request = ChatRequest(messages, temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed)
        response = self.backends(agent).complete(request)
        record = CallRecord(self.query_id, agent, round(response.latency, 6), response.attempts,
                            response.cached, response.prompt_tokens, response.completion_tokens, len(images),
                            prompt=user, reply=response.text)
        with self._lock:
            self.calls.append(record)
        if self.on_call:
            self.on_call(record)
        return response.text

    def _note_unparsed(self, agent: str) -> None:
        with self._lock:
            self.unparsed[agent] += 1

    def perceive(self, images: Sequence[bytes], **question: str) -> str:
        return self.ask("perceiver", images, **question).strip()

    def caption(self, monster: str, entity: str, images: Sequence[bytes]) -> str:
        return self.ask("captioner", images, monster=monster, entity=entity).strip()

    def select_topic(self, monsters: Sequence[Entity], images: Sequence[bytes] = (), **question: str) -> str | None:
        reply = self.ask("topic", images, monsters=render_monsters(monsters), **question)
        chosen = parse_topic(reply, monsters)
        if chosen is None:
            self._note_unparsed("topic")
        return chosen

    def expand(self, groups: Sequence[tuple[Entity, list]], candidates: str, *, monster: str = "",
               **fields: str) -> list[int]:
        """Numbers (1-based) of the candidates the agent picks, in the order picked."""
        reply = self.ask("expansion", candidates=candidates, monster=monster, **fields)
        if self.prompts.reply("expansion") == "names":
            chosen = parse_names(reply, [g[0] for g in groups], monster)
        else:
            chosen = parse_choice(reply, len(groups))
        if chosen is None:
            self._note_unparsed("expansion")
            return []
        return chosen

    def validate(self, **fields: str) -> bool | None:
        """True: the path is complete; False: go on from it; None: the reply could not be read."""
        reply = self.ask("validation", **fields)
        verdict = self._verdict("validation", reply)
        if verdict is None:
            self._note_unparsed("validation")
        return verdict

    def validate_online(self, images: Sequence[bytes], **fields: str) -> tuple[bool | None, str | None]:
        """Verdict (as :meth:`validate`) and the agent's description of the entity's frames."""
        reply = self.ask("validation_online", images, **fields)
        if self.prompts.reply("validation_online") == "yes_no_description":
            head, _, description = reply.partition(";")
            verdict, description = parse_yes_no(head), description.strip() or None
        else:
            verdict, description = parse_verdict(reply), parse_description(reply)
        if verdict is None:
            self._note_unparsed("validation_online")
        return verdict, description

    def _verdict(self, agent: str, reply: str) -> bool | None:
        return parse_yes_no(reply) if self.prompts.reply(agent) == "yes_no" else parse_verdict(reply)

    def summarize(self, images: Sequence[bytes] = (), **fields: str) -> str:
        return parse_answer(self.ask("summarizer", images, **fields))

    def answer_directly(self, images: Sequence[bytes] = (), **question: str) -> str:
        return parse_answer(self.ask("direct", images, **question))


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


def parse_names(reply: str, candidates: Sequence[Entity], monster: str = "") -> list[int] | None:
    """Candidate numbers for a reply naming entities separated by ';' (the authors' reply shape);
    a name may carry the monster's name in front, as the authors' KG keys do. [] for None."""
    numbers = {}
    for number, entity in enumerate(candidates, 1):
        for name in entity.names:
            numbers.setdefault(normalise_name(name), number)
            if monster:
                numbers.setdefault(normalise_name(f"{monster} {name}"), number)
    picked = [numbers.get(normalise_name(part.strip().strip("'\"")), 0) for part in reply.split(";")]
    chosen = list(dict.fromkeys(n for n in picked if n))
    if chosen:
        return chosen
    if reply.strip().strip("'\".").lower() == "none":
        return []
    return None


def parse_yes_no(reply: str) -> bool | None:
    """As the authors' code reads a verdict: True when 'Yes' occurs in it, else False when 'No' does."""
    if "Yes" in reply:
        return True
    if "No" in reply:
        return False
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
