"""The LLM judge's prompts are data (eval/prompt_sets/judge.json), and the same bytes as when they
were hard-coded: checked against a real chat-completions server on 127.0.0.1."""
from __future__ import annotations

import hashlib
import json

from stub_server import StubServer

from mhmmkg.eval.judges import ANSWER, CAPTION, PROMPT_VERSION, Judgement, LLMJudge, default_judge_prompts
from mhmmkg.llm.chat import OpenAIChat, request_key
from mhmmkg.llm.prompt_sets import prompt_set_from_dict


def llm(server: StubServer, **kw) -> LLMJudge:
    return LLMJudge(OpenAIChat(server.url, "judge-model", timeout=5.0, backoff_base=0.01), **kw)


#: what the judge sent before its prompts became data (eval/judges.py hard-coded them until
#: commit d84f6d4): the digest of the request bodies a real server received for ``_PINNED`` and of
#: the cache keys (``request_key`` with a fixed fingerprint), so that an old judge cache still hits
_PINNED_BODIES = "6acac9061c5fa5ea98cba14e6ae2d8bad5f6a22eee1acfbd9fbcc2e8386e6a50"
_PINNED_KEYS = "694093f627f235397fc9da68eef4c5535cf87da79bf2d2bc7cc35877f1ca59aa"
_PINNED = [
    Judgement(ANSWER, "What does Zinogre do next?", "Back Slam", "Back Slam", "zinogre"),
    Judgement(ANSWER, 'Will it "fly"?\nSay', "Yes", "Non, ça vole ✓", "zinogre", key_text="The answer is Yes."),
    Judgement(ANSWER, "Q", "R", "", "zinogre"),
    Judgement(ANSWER, "Q", "R", "x", "zinogre", key_text=""),
    Judgement(CAPTION, "Back Slam", "Flips onto its back.", "Leaps {up}"),
]


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def test_llm_judge_prompts_from_the_prompt_set_are_the_bytes_sent_before():
    keys = []
    with StubServer(lambda body: "Yes") as server:
        for verdict in ("first-word", "exact-yes"):
            judge = llm(server, verdict=verdict)
            for item in _PINNED:
                judge.judge(item)
                keys.append(request_key("judge-fp", judge.request(item)))
    assert server.calls == 9            # the empty answer is asked about with exact-yes only
    assert _digest([r["body"] for r in server.requests]) == _PINNED_BODIES
    assert _digest(keys) == _PINNED_KEYS


def test_llm_judge_reads_its_prompts_from_the_set(tmp_path):
    """The default set is the judge's prompt: given explicitly it sends the same messages; a copy
    without examples sends the system text and the call only."""
    ours = default_judge_prompts()
    assert ours.agents["judge"].templates[0].system.startswith(f"[{PROMPT_VERSION}] ")
    item = Judgement(ANSWER, "What does Zinogre do next?", "Back Slam", "Bite", "zinogre", key_text="Key.")
    with StubServer(lambda body: "No") as server:
        plain = llm(server)
        given = LLMJudge(plain.backend, prompts=ours)
        document = ours.as_dict()
        del document["agents"]["judge"]["examples"]
        bare = LLMJudge(plain.backend, prompts=prompt_set_from_dict(document, "copy"))
        assert given.request(item) == plain.request(item)
        messages = bare.request(item).messages
    assert [m.role for m in messages] == ["system", "user"]
    assert messages[1].text == plain.request(item).messages[-1].text
    assert len(plain.request(item).messages) == 2 + 2 * len(ours.agents["judge"].examples)


def test_a_bad_example_in_a_prompt_set_is_named_by_its_place():
    import pytest

    from mhmmkg.errors import UserError

    document = default_judge_prompts().as_dict()
    document["agents"]["judge"]["examples"][1]["fields"]["scene"] = "a field the judge has not"
    with pytest.raises(UserError, match=r"^copy: /agents/judge/examples/1/fields/scene: unknown field for agent 'judge'$"):
        prompt_set_from_dict(document, "copy")
    document = default_judge_prompts().as_dict()
    document["agents"]["caption_judge"]["examples"][0]["reply"] = ""
    with pytest.raises(UserError, match=r"^copy: /agents/caption_judge/examples/0/reply: expected a non-empty string$"):
        prompt_set_from_dict(document, "copy")
