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

import random
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

from mhmmkg.llm.chat import ChatBackend, ChatRequest, Message
from mhmmkg.kg.graph import KnowledgeGraph, Neighbour, normalise_name
from mhmmkg.kg.model import Entity
from mhmmkg.llm.prompt_sets import PromptSet
from mhmmkg.llm.prompt_text import candidate_text, monster_menu_text

from .names import NameIndex
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

    def in_authors_shapes(self) -> bool:
        """True when the prompt set asks for the authors' reply shapes (Yes/No verdicts): only
        then are replies read as their code reads them (``--replies exact``)."""
        return self.prompts.has("validation") and self.prompts.reply("validation") == "yes_no"

    def _note_unparsed(self, agent: str) -> None:
        with self._lock:
            self.unparsed[agent] += 1

    def perceive(self, images: Sequence[bytes], **question: str) -> str:
        return self.ask("perceiver", images, **question).strip()

    def caption(self, monster: str, entity: str, images: Sequence[bytes]) -> str:
        return self.ask("captioner", images, monster=monster, entity=entity).strip()

    def select_topic(self, monsters: MonsterList | Sequence[Entity], images: Sequence[bytes] = (),
                     exact: bool = False, **question: str) -> str | None:
        """The monster the reply names; ``exact`` (with a prompt set in the authors' reply shapes):
        as their code reads it, the reply without its line breaks must be a monster's name exactly."""
        menu = monsters if isinstance(monsters, MonsterList) else MonsterList(monsters)
        reply = self.ask("topic", images, monsters=menu.text, **question)
        chosen = menu.parse_exact(reply) if exact and self.in_authors_shapes() else menu.parse(reply)
        if chosen is None:
            self._note_unparsed("topic")
        return chosen

    def expand(self, groups: Sequence[tuple[Entity, list]], candidates: str, *, monster: str = "",
               exact_keys: Sequence[str] | None = None, rng: random.Random | None = None,
               **fields: str) -> list[int]:
        """Numbers (1-based) of the candidates the agent picks, in the order picked. With
        ``exact_keys`` (the candidates' keys in the authors' KG), a reply of names is read as their
        code reads it (:func:`parse_names_exact`, drawing with ``rng``)."""
        reply = self.ask("expansion", candidates=candidates, monster=monster, **fields)
        if self.prompts.reply("expansion") == "names" and exact_keys is not None:
            chosen = parse_names_exact(reply, exact_keys, rng or random.Random(0))
            if not chosen and reply.replace("\n", "") != "None":
                self._note_unparsed("expansion")
            return chosen
        if self.prompts.reply("expansion") == "names":
            chosen = parse_names(reply, [g[0] for g in groups], monster)
        else:
            chosen = parse_choice(reply, len(groups))
        if chosen is None:
            self._note_unparsed("expansion")
            return []
        return chosen

    def validate(self, exact_yes: bool = False, **fields: str) -> bool | None:
        """True: the path is complete; False: go on from it; None: the reply could not be read.
        ``exact_yes`` (the authors' code on the topic entity, with their reply shape): True only for
        the reply "Yes"."""
        reply = self.ask("validation", **fields)
        if exact_yes and self.prompts.reply("validation") == "yes_no":
            return reply == "Yes"
        verdict = self._verdict("validation", reply)
        if verdict is None:
            self._note_unparsed("validation")
        return verdict

    def validate_online(self, images: Sequence[bytes], exact: bool = False,
                        **fields: str) -> tuple[bool | None, str | None]:
        """Verdict (as :meth:`validate`) and the agent's description of the entity's frames.
        ``exact``: the description is the text between the first and the second ';', as the
        authors' code splits it (ours keeps everything after the first)."""
        reply = self.ask("validation_online", images, **fields)
        if self.prompts.reply("validation_online") == "yes_no_description" and exact:
            parts = reply.split(";")
            verdict, description = parse_yes_no(parts[0]), (parts[1] if len(parts) > 1 else "") or None
        elif self.prompts.reply("validation_online") == "yes_no_description":
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
    return monster_menu_text((m.name, m.aliases) for m in monsters)


class MonsterList:
    """The monsters the topic agent chooses from: the list as its prompt shows it and the name
    look-ups that read a reply back, made once (per run) rather than for every query."""

    def __init__(self, monsters: Sequence[Entity]):
        self.monsters = list(monsters)
        self.text = render_monsters(self.monsters)
        self._exact: dict[str, str] = {}
        for m in self.monsters:
            for name in m.names:
                self._exact.setdefault(normalise_name(name), m.id)
        self._names = NameIndex((name, m.id) for m in self.monsters for name in m.names)

    def __len__(self) -> int:
        return len(self.monsters)

    def parse_exact(self, reply: str) -> str | None:
        """The monster whose name is the reply without its line breaks, character for character."""
        text = reply.replace("\n", "")
        return next((m.id for m in self.monsters if m.name == text), None)

    def parse(self, reply: str) -> str | None:
        """The monster a reply names: an exact name/alias on its last line first, else the name
        mentioned earliest (the longest one there, then the smallest id)."""
        last = normalise_name(reply.split("\n")[-1] if reply.strip() else "")
        if last in self._exact:
            return self._exact[last]
        found = self._names.earliest(reply)
        return min((-len(m.name), m.value) for m in found)[1] if found else None

    def shortlist(self, text: str, limit: int) -> MonsterList:
        """At most ``limit`` monsters named in ``text``, in order of first mention; the whole list
        when none is named. A deviation from the paper (which always shows every monster), for
        real models facing a large KG; off unless asked for."""
        named: dict[str, None] = {}
        for found in self._names.mentions(text):
            for m in sorted(found, key=lambda m: (-len(m.name), m.order)):
                named.setdefault(m.value, None)
            if len(named) >= limit:
                break
        if not named:
            return self
        by_id = {m.id: m for m in self.monsters}
        return MonsterList([by_id[i] for i in list(named)[:limit]])


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
        blocks.append(candidate_text(number, graph.render_entity(entity.id, caption=caption),
                                     [graph.render_relation(r) for r in relations]))
    return "\n".join(blocks)


def parse_topic(reply: str, monsters: Sequence[Entity]) -> str | None:
    """The monster a reply names (see :meth:`MonsterList.parse`)."""
    return MonsterList(monsters).parse(reply)


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


def parse_names_exact(reply: str, keys: Sequence[str], rng: random.Random) -> list[int]:
    """Candidate numbers for an expansion reply read exactly as the authors' code reads it.

    Line breaks are removed; "None" picks nothing; the reply is split at ';'. When it holds the
    word "Phase" and more than one non-empty item, one item drawn at random is kept (their phase
    rule, applied to every item, phase or not). Items are stripped; an empty one ends the list;
    an item that is not exactly a candidate's key (``keys[n - 1]``, the monster's name, a space
    and the entity's name) is skipped. Repeats are kept, as theirs are.
    """
    text = reply.replace("\n", "")
    if text == "None":
        return []
    items = text.split(";")
    if "Phase" in text:
        filled = [item for item in items if item != ""]
        if len(filled) > 1:
            items = [filled[rng.randrange(len(filled))]]
    numbers: dict[str, int] = {}
    for number, key in enumerate(keys, 1):
        numbers.setdefault(key, number)
    chosen = []
    for item in items:
        item = item.strip()
        if item == "":
            break
        if item in numbers:
            chosen.append(numbers[item])
    return chosen


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
