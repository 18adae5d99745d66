"""Every prompt of the baseline's agents, each with a version.

A prompt is a system text (the agent's role and its reply format) and a user template whose
``## Section`` blocks hold the inputs. Changing a prompt's wording means bumping its version:
the versions and a hash of all texts go into the run manifest, so runs made with different
prompts are never mixed up or resumed into each other.

The offline model (:mod:`mhmmkg.baseline.offline`) recognises an agent by its system text and
reads the inputs back from the sections, so the section names are part of the contract.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Prompt:
    agent: str
    version: int
    system: str
    user: str           # str.format template; every field is one section's content

    def render(self, **fields: str) -> str:
        return self.user.format(**{k: (v if v else "(none)") for k, v in fields.items()})


GAME_CONTEXT = ("The player is in a hunt in the video game Monster Hunter: World and asks you for help "
                "in the middle of the fight.")

PERCEIVER = Prompt(
    agent="perceiver", version=1,
    system=(
        "You look at frames from a Monster Hunter: World battle and describe them for a teammate who "
        "cannot see the screen. Say what the monster's body is doing (stance, head, wings, tail, limbs, "
        "direction of movement), any visible elements or effects (fire, sparks, ice, slime, marks on the "
        "ground) and where the hunter is. Describe only what is visible, in present tense, in at most "
        "four sentences. Do not guess the name of the attack."),
    user="## Task\nDescribe the battle scene in the attached frames.\n",
)

CAPTIONER = Prompt(
    agent="captioner", version=1,
    system=(
        "You write the visual description of one entry of a Monster Hunter: World knowledge base from "
        "its frames. Describe what is seen, in present tense, in one to three sentences: how the move "
        "starts, the motion itself, and what it leaves behind. No damage numbers and no speculation."),
    user="## Monster\n{monster}\n\n## Entry\n{entity}\n\n## Task\nDescribe the attached frames.\n",
)

TOPIC = Prompt(
    agent="topic", version=1,
    system=(
        GAME_CONTEXT + " First decide which monster the question is about. Choose exactly one monster "
        "from the list and reply with its name as written in the list, and nothing else."),
    user=("## Question\n{question}\n\n## Auxiliary information\n{extra}\n\n## Scene description\n{scene}\n\n"
          "## Monsters\n{monsters}\n"),
)

EXPANSION = Prompt(
    agent="expansion", version=1,
    system=(
        GAME_CONTEXT + " You help search a knowledge graph for the facts needed to answer. You see the "
        "path walked so far and the entries linked to its last entity. Pick the candidates that could "
        "lead to the answer: the move that matches the scene, the follow-up that fits the condition, "
        "the weakness, item or related monster the question asks about. Pick few: usually one to three. "
        "Pick at most one attack phase. Reply with the candidate numbers separated by commas "
        "(for example: 2, 5), or with NONE when no candidate helps."),
    user=("## Question\n{question}\n\n## Auxiliary information\n{extra}\n\n## Scene description\n{scene}\n\n"
          "## Path so far\n{path}\n\n## Candidates\n{candidates}\n"),
)

VALIDATION = Prompt(
    agent="validation", version=1,
    system=(
        GAME_CONTEXT + " You check one branch of a knowledge-graph search. Given the knowledge collected "
        "along the path, decide whether the last entity completes what this branch needs to answer the "
        "question (reply SUFFICIENT), or whether the search should go on from it (reply CONTINUE). "
        "An attack phase alone is rarely enough; when the question asks what comes next, the path "
        "needs the follow-up move. Reply with one word: SUFFICIENT or CONTINUE."),
    user=("## Question\n{question}\n\n## Auxiliary information\n{extra}\n\n## Scene description\n{scene}\n\n"
          "## Knowledge on the path\n{knowledge}\n\n## Entity to check\n{entity}\n\n## Reached by\n{step}\n"),
)

VALIDATION_ONLINE = Prompt(
    agent="validation_online", version=1,
    system=(
        GAME_CONTEXT + " You check one branch of a knowledge-graph search. The frames attached show the "
        "last entity of the path. First describe what the frames show in one to three sentences, on a "
        "line starting with 'Description:'. Then decide whether the last entity completes what this "
        "branch needs to answer the question, on a line 'Verdict: SUFFICIENT' or 'Verdict: CONTINUE'. "
        "An attack phase alone is rarely enough; when the question asks what comes next, the path needs "
        "the follow-up move."),
    user=("## Question\n{question}\n\n## Auxiliary information\n{extra}\n\n## Scene description\n{scene}\n\n"
          "## Knowledge on the path\n{knowledge}\n\n## Entity to check\n{entity}\n\n## Reached by\n{step}\n"),
)

SUMMARIZER = Prompt(
    agent="summarizer", version=1,
    system=(
        GAME_CONTEXT + " Answer the question using the knowledge retrieved from the game's knowledge "
        "graph and the description of the scene. Prefer the retrieved knowledge over your own memory. "
        "Keep the answer short: an attack name when asked which attack, the next move when asked what "
        "comes next, yes or no with a brief reason, a number when asked how many. Put the final answer "
        "on the last line, starting with 'Answer:'."),
    user=("## Question\n{question}\n\n## Auxiliary information\n{extra}\n\n## Scene description\n{scene}\n\n"
          "## Retrieved knowledge\n{knowledge}\n"),
)

DIRECT = Prompt(
    agent="direct", version=1,
    system=(
        GAME_CONTEXT + " Answer from what you know about the game and from the scene (the attached frames "
        "or their description). Keep the answer short: an attack name when asked which attack, the next "
        "move when asked what comes next, yes or no with a brief reason, a number when asked how many. "
        "Put the final answer on the last line, starting with 'Answer:'."),
    user="## Question\n{question}\n\n## Auxiliary information\n{extra}\n\n## Scene description\n{scene}\n",
)

PROMPTS: dict[str, Prompt] = {p.agent: p for p in (
    PERCEIVER, CAPTIONER, TOPIC, EXPANSION, VALIDATION, VALIDATION_ONLINE, SUMMARIZER, DIRECT)}


def prompt_versions() -> dict[str, int]:
    return {name: p.version for name, p in sorted(PROMPTS.items())}


def prompts_hash() -> str:
    """SHA-256 over every prompt's agent, version and texts."""
    data = [[p.agent, p.version, p.system, p.user] for _, p in sorted(PROMPTS.items())]
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode("utf-8")).hexdigest()


def agent_of(system_text: str) -> str | None:
    """The agent whose system prompt is exactly ``system_text``."""
    for prompt in PROMPTS.values():
        if prompt.system == system_text:
            return prompt.agent
    return None


def sections(text: str) -> dict[str, str]:
    """The ``## Name`` sections of a rendered user message, name -> content (stripped)."""
    out: dict[str, str] = {}
    name = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if name is not None:
                out[name] = "\n".join(lines).strip()
            name, lines = line[3:].strip(), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        out[name] = "\n".join(lines).strip()
    return {k: ("" if v == "(none)" else v) for k, v in out.items()}
