"""Prompt sets: every agent's prompt in one versioned JSON file, hashed into each run manifest.

The baseline's own prompts are the default set (``mhmmkg/baseline/prompt_sets/default.json``),
the LLM judge's are ``mhmmkg/eval/prompt_sets/judge.json``; ``mhmmkg import-official-prompts``
makes another from the user's copy of the authors' code. The baseline and the LLM judge read
them the same way, so this module lives in core. A file::

    {
      "format": "mhmmkg-prompt-set", "version": 1, "name": "mhmmkg-default",
      "source": "where the texts come from",
      "empty": "(none)",
      "agents": {
        "validation": {
          "reply": "sufficient_continue",
          "templates": [
            {"when": {"scene": "given", "images": "none"}, "system": "...", "user": "... {question} ..."},
            {"system": "...", "user": "..."}
          ],
          "examples": [{"fields": {"question": "..."}, "reply": "..."}]
        },
        ...
      }
    }

An agent's ``templates`` are tried in order; the first whose ``when`` holds is used (a template
without ``when`` always holds). ``when`` tests the call: a field is ``"empty"`` or ``"given"``,
and ``images`` (frames attached to the call) is ``"none"``, ``"one"`` or ``"many"``. Templates
are ``str.format`` strings over the agent's named fields (:data:`AGENT_FIELDS`); an empty field
is filled with the set's ``empty`` text. ``reply`` names how the agent's reply is read
(:data:`REPLIES`): the authors' prompts ask for other reply shapes than ours. ``examples``
(optional) are worked calls put before the real one (:meth:`PromptSet.conversation`): each is
rendered from its ``fields`` like the call and followed by its ``reply``.
"""
from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..files.atomic import atomic_write_json
from ..errors import UserError, read_json_input

FORMAT = "mhmmkg-prompt-set"

#: what every baseline agent may be told about the query
QUESTION_FIELDS = frozenset({
    "question",        # the question, framed as the official release does, without the auxiliary information
    "full_question",   # the same with the auxiliary information, as the authors' code shows it
    "extra",           # the auxiliary information, monster name filled in
    "scene",           # the description of the scene (human or model), empty when there is none
    "monster",         # the topic monster's name as the question gives it
})

#: agent -> the fields its templates may use
AGENT_FIELDS: dict[str, frozenset[str]] = {
    "perceiver": QUESTION_FIELDS,
    "captioner": frozenset({"monster", "entity"}),
    "topic": QUESTION_FIELDS | {"monsters"},
    # knowledge: the path rendered with the entity at its end; memory: what was found before
    # that entity (the path up to its parent, empty at the topic entity)
    "expansion": QUESTION_FIELDS | {"path", "knowledge", "entity_name", "candidates"},
    "validation": QUESTION_FIELDS | {"knowledge", "memory", "entity", "entity_name", "step"},
    "validation_online": QUESTION_FIELDS | {"knowledge", "memory", "entity", "entity_name", "step"},
    "summarizer": QUESTION_FIELDS | {"knowledge"},
    "direct": QUESTION_FIELDS,
    # the judges' fields, each also as a JSON string literal (``<field>_json``), so that a text
    # cannot end its own field and forge lines of the prompt
    "judge": frozenset({"question", "reference", "prediction", "key",
                        "question_json", "reference_json", "prediction_json", "key_json"}),
    "caption_judge": frozenset({"entity", "reference", "prediction", "entity_json", "reference_json", "prediction_json"}),
}

#: agent -> the reply shapes it understands (the first is ours)
REPLIES: dict[str, tuple[str, ...]] = {
    "perceiver": ("text",),
    "captioner": ("text",),
    "topic": ("monster_name",),
    "expansion": ("numbers", "names"),
    "validation": ("sufficient_continue", "yes_no"),
    "validation_online": ("description_verdict", "yes_no_description"),
    "summarizer": ("answer",),
    "direct": ("answer",),
    "judge": ("yes_no",),
    "caption_judge": ("yes_no",),
}

CONDITIONS = {"empty", "given"}
IMAGE_COUNTS = ("none", "one", "many")


def image_count(images: int) -> str:
    return IMAGE_COUNTS[min(images, 2)]


@dataclass(frozen=True)
class Template:
    user: str
    system: str = ""
    when: Mapping[str, str] = field(default_factory=dict)

    def holds(self, fields: Mapping[str, str], images: int) -> bool:
        for name, wanted in self.when.items():
            if name == "images":
                if image_count(images) != wanted:
                    return False
            elif ("given" if fields.get(name) else "empty") != wanted:
                return False
        return True

    def as_dict(self) -> dict:
        out: dict = {"when": dict(self.when)} if self.when else {}
        if self.system:
            out["system"] = self.system
        out["user"] = self.user
        return out


@dataclass(frozen=True)
class Example:
    """A worked call shown before the real one: its fields and the reply it should get."""

    fields: Mapping[str, str]
    reply: str

    def as_dict(self) -> dict:
        return {"fields": dict(self.fields), "reply": self.reply}


@dataclass(frozen=True)
class AgentPrompt:
    agent: str
    reply: str
    templates: tuple[Template, ...]
    examples: tuple[Example, ...] = ()

    def as_dict(self) -> dict:
        out: dict = {"reply": self.reply, "templates": [t.as_dict() for t in self.templates]}
        if self.examples:
            out["examples"] = [e.as_dict() for e in self.examples]
        return out

    def select(self, fields: Mapping[str, str], images: int) -> Template | None:
        return next((t for t in self.templates if t.holds(fields, images)), None)


@dataclass(frozen=True)
class PromptSet:
    name: str
    version: int
    agents: Mapping[str, AgentPrompt]
    empty: str = ""
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "format": FORMAT, "version": self.version, "name": self.name, "source": self.source, "empty": self.empty,
            "agents": {name: a.as_dict() for name, a in sorted(self.agents.items())},
        }

    @property
    def sha256(self) -> str:
        """Hash of the canonical JSON of the whole set: two runs with equal hashes saw the same prompts."""
        text = json.dumps(self.as_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def identity(self) -> dict:
        """What a run manifest records about the prompts."""
        return {"name": self.name, "version": self.version, "sha256": self.sha256}

    def has(self, agent: str) -> bool:
        return agent in self.agents

    def reply(self, agent: str) -> str:
        return self._agent(agent).reply

    def render(self, agent: str, fields: Mapping[str, str], images: int = 0) -> tuple[str, str]:
        """(system, user) texts of ``agent`` for one call with these fields and this many frames."""
        prompt = self._agent(agent)
        template = prompt.select(fields, images)
        if template is None:
            shown = ", ".join(f"{k} {'given' if v else 'empty'}" for k, v in sorted(fields.items()))
            raise UserError(f"prompt set {self.name!r}: no template of agent {agent!r} fits this call "
                            f"({shown}; images {image_count(images)})")
        values = {k: (v if v else self.empty) for k, v in fields.items()}
        return template.system.format(**values), template.user.format(**values)

    def conversation(self, agent: str, fields: Mapping[str, str], images: int = 0, *,
                     prepare: Callable[[Mapping[str, str]], Mapping[str, str]] = dict) -> list[tuple[str, str]]:
        """(role, text) messages of one call: the system text (when there is one), each of the
        agent's examples as a user message and its reply, then the call. ``prepare`` turns the
        fields given (the call's and each example's) into the fields the templates use."""
        system, user = self.render(agent, prepare(fields), images)
        messages = [("system", system)] if system else []
        for example in self._agent(agent).examples:
            messages += [("user", self.render(agent, prepare(example.fields))[1]), ("assistant", example.reply)]
        return messages + [("user", user)]

    def _agent(self, agent: str) -> AgentPrompt:
        try:
            return self.agents[agent]
        except KeyError:
            raise UserError(f"prompt set {self.name!r} has no prompt for agent {agent!r}") from None

    def write(self, path: str | Path) -> None:
        atomic_write_json(Path(path), self.as_dict())


def placeholders(text: str) -> set[str]:
    """The named fields a ``str.format`` template uses; raises ValueError on a malformed template."""
    names = set()
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"placeholder {{{name}}} must be a plain field name")
        names.add(name)
    return names


def prompt_set_from_dict(data, where: str) -> PromptSet:
    """Check a decoded prompt-set document; every problem names ``where`` and a JSON pointer."""
    def fail(pointer: str, reason: str):
        raise UserError(f"{where}: {pointer or '/'}: {reason}")

    if not isinstance(data, dict):
        fail("", "expected a JSON object (a prompt set)")
    if data.get("format") != FORMAT:
        fail("/format", f"expected {FORMAT!r}")
    if not isinstance(data.get("version"), int) or isinstance(data.get("version"), bool) or data["version"] < 1:
        fail("/version", "expected a positive integer")
    if not isinstance(data.get("name"), str) or not data["name"].strip():
        fail("/name", "expected a non-empty string")
    for key in ("source", "empty"):
        if not isinstance(data.get(key, ""), str):
            fail(f"/{key}", "expected a string")
    agents = data.get("agents")
    if not isinstance(agents, dict) or not agents:
        fail("/agents", "expected an object of agent name -> prompt")
    parsed = {}
    for name, entry in agents.items():
        at = f"/agents/{name}"
        if name not in AGENT_FIELDS:
            fail(at, f"unknown agent (known: {', '.join(AGENT_FIELDS)})")
        if not isinstance(entry, dict):
            fail(at, "expected an object with 'reply' and 'templates'")
        if entry.get("reply") not in REPLIES[name]:
            fail(f"{at}/reply", f"expected one of {', '.join(REPLIES[name])}")
        templates = entry.get("templates")
        if not isinstance(templates, list) or not templates:
            fail(f"{at}/templates", "expected a non-empty list")
        parsed[name] = AgentPrompt(name, entry["reply"],
                                   tuple(_template(t, name, f"{at}/templates/{i}", fail) for i, t in enumerate(templates)),
                                   _examples(entry.get("examples", []), name, f"{at}/examples", fail))
    return PromptSet(data["name"], data["version"], parsed, data.get("empty", ""), data.get("source", ""))


def _template(entry, agent: str, at: str, fail) -> Template:
    if not isinstance(entry, dict):
        fail(at, "expected an object with 'user' (and optionally 'system', 'when')")
    for key in ("user", "system"):
        text = entry.get(key, "")
        if not isinstance(text, str) or (key == "user" and not text.strip()):
            fail(f"{at}/{key}", "expected a non-empty string" if key == "user" else "expected a string")
        try:
            unknown = placeholders(text) - AGENT_FIELDS[agent]
        except ValueError as exc:
            fail(f"{at}/{key}", str(exc))
        if unknown:
            fail(f"{at}/{key}", f"unknown placeholder(s) {', '.join(sorted(unknown))} for agent {agent!r} "
                                f"(known: {', '.join(sorted(AGENT_FIELDS[agent]))})")
    when = entry.get("when", {})
    if not isinstance(when, dict):
        fail(f"{at}/when", "expected an object of field -> 'empty' | 'given' (or images -> none | one | many)")
    for name, value in when.items():
        allowed = IMAGE_COUNTS if name == "images" else tuple(sorted(CONDITIONS))
        if name != "images" and name not in AGENT_FIELDS[agent]:
            fail(f"{at}/when/{name}", f"unknown field for agent {agent!r}")
        if value not in allowed:
            fail(f"{at}/when/{name}", f"expected one of {', '.join(allowed)}")
    return Template(entry["user"], entry.get("system", ""), dict(when))


def _examples(entries, agent: str, at: str, fail) -> tuple[Example, ...]:
    if not isinstance(entries, list):
        fail(at, "expected a list of {'fields': {...}, 'reply': '...'}")
    examples = []
    for i, entry in enumerate(entries):
        here = f"{at}/{i}"
        if not isinstance(entry, dict) or not isinstance(entry.get("fields"), dict):
            fail(here, "expected an object with 'fields' (an object of field -> text) and 'reply'")
        if not isinstance(entry.get("reply"), str) or not entry["reply"].strip():
            fail(f"{here}/reply", "expected a non-empty string")
        for name, value in entry["fields"].items():
            if name not in AGENT_FIELDS[agent]:
                fail(f"{here}/fields/{name}", f"unknown field for agent {agent!r}")
            if not isinstance(value, str):
                fail(f"{here}/fields/{name}", "expected a string")
        examples.append(Example(dict(entry["fields"]), entry["reply"]))
    return tuple(examples)


def load_prompt_set(path: str | Path) -> PromptSet:
    """Read and check a prompt-set file (a bad file is a user error naming the file and the place)."""
    return prompt_set_from_dict(read_json_input(path, "prompt set"), str(path))


def require_agents(prompts: PromptSet, agents: Sequence[str], where: str) -> None:
    """Stop before any work when a set lacks an agent the run will call."""
    missing = [a for a in agents if not prompts.has(a)]
    if missing:
        raise UserError(f"{where}: prompt set {prompts.name!r} has no prompt for {', '.join(missing)}")
