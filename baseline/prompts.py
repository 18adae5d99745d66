"""The baseline's prompt sets: our own (the default, ``prompt_sets/default.json``) or one a user
gives with ``mhmmkg run --prompts FILE`` (for instance the authors' prompts, imported from their
code by ``mhmmkg import-official-prompts``).

Changing a text of the default set means bumping its ``version``; the set's name, version and
SHA-256 go into the run manifest, so runs made with different prompts are never mixed up or
resumed into each other.

The default set writes each agent's inputs into ``## Section`` blocks of the user message and
gives each agent its own system text. The offline model (:mod:`mhmmkg.baseline.offline`)
recognises an agent by that system text and reads the inputs back from the sections, so it
works with the default set only. What goes into the sections, and its reading back, is
``mhmmkg.llm.prompt_text``.
"""
from __future__ import annotations

import functools
import json
import pkgutil
from pathlib import Path

from mhmmkg.llm.prompt_sets import PromptSet, load_prompt_set, prompt_set_from_dict
from mhmmkg.llm.prompt_text import parse_sections



@functools.cache
def default_prompts() -> PromptSet:
    text = pkgutil.get_data(__package__, "prompt_sets/default.json").decode("utf-8")
    return prompt_set_from_dict(json.loads(text), "mhmmkg/baseline/prompt_sets/default.json")


def prompts_from(path: str | Path | None) -> PromptSet:
    """The set in ``path``, or the default set when there is none."""
    return load_prompt_set(path) if path else default_prompts()


def agent_of(system_text: str) -> str | None:
    """The agent of the default set whose system text is exactly ``system_text``."""
    for name, prompt in default_prompts().agents.items():
        if any(t.system == system_text for t in prompt.templates):
            return name
    return None


def sections(text: str) -> dict[str, str]:
    """The ``## Name`` sections of a user message rendered from the default set, name -> content."""
    return parse_sections(text, default_prompts().empty)
