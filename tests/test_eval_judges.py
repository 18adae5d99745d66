"""The exact judge's rules, and the LLM judge against a real chat-completions server on 127.0.0.1."""
from __future__ import annotations

import json
import re

import pytest
from stub_server import StubServer

from mhmmkg import Entity, KnowledgeGraph, Relation
from mhmmkg.chat import CachedChat, ChatError, OpenAIChat
from mhmmkg.eval.judges import (ANSWER, CAPTION, PROMPT_VERSION, ExactJudge, Judgement, LLMJudge, judge_all,
                                parse_verdict, word_f1)
from mhmmkg.model import AnswerKey
from mhmmkg.render import render_key


def _graph() -> KnowledgeGraph:
    E = Entity
    entities = [
        E("zinogre", "Zinogre", "monster", aliases=("Thunder Wolf Wyvern",)),
        E("stygian-zinogre", "Stygian Zinogre", "monster"),
        E("zinogre.back-slam", "Back Slam", "attack_action", "zinogre", aliases=("Backflip Slam",)),
        E("zinogre.thunder-charge-b", "Thunder Charge B", "attack_action", "zinogre"),
        E("zinogre.static-charge", "Static Charge", "attack_action", "zinogre"),
        E("zinogre.catch", "Catch and Throw Attack", "attack_action", "zinogre"),
        E("zinogre.tail-spin", "Tail Spin", "attack_action", "zinogre"),
        E("zinogre.bite", "Bite", "attack_action", "zinogre"),
        E("stygian-zinogre.bite", "Bite", "attack_action", "stygian-zinogre", aliases=("Dragon Bite",)),
        E("rathian", "Rathian", "monster"),
        E("rathian.fireball", "Fireball", "attack_action", "rathian"),
        E("rathian.great-fireball", "Great Fireball", "attack_action", "rathian"),
    ]
    return KnowledgeGraph(entities, [Relation("r1", "zinogre", "zinogre.back-slam", "has_attack_action", "has attack action")])


@pytest.fixture(scope="module")
def judge() -> ExactJudge:
    return ExactJudge(_graph())


@pytest.mark.parametrize("prediction, reference, rule", [
    ("Zinogre Back Slam", "Back Slam", "normalised"),
    ("Static Charge", "Thunder Charge B", None),
    ("back-slam!!", "Back Slam", "normalised"),
    ("  BACK   SLAM ", "Back Slam", "normalised"),
    ("Zinogre's Back Slam", "Back Slam", "normalised"),
    ("Stygian Zinogre Back Slam", "Back Slam", "normalised"),
    ("Zinogre is releasing Back Slam.", "Back Slam", "normalised"),
    ("Back Slam", "Zinogre will release Back Slam.", "normalised"),
    ("It could be the Back Slam", "Back Slam", "normalised"),
    ("Backflip Slam", "Back Slam", "alias"),
    ("Back Slam", "Backflip Slam", "alias"),
    ("Slam", "Back Slam", None),
    ("Back Slam Attack", "Back Slam", None),
    ("Zinogre", "Thunder Wolf Wyvern", None),           # the topic monster's names are not interchangeable
    ("Thunder Wolf Wyvern", "Thunder Wolf Wyvern", "normalised"),
    ("Stygian Zinogre", "Zinogre", None),
    ("Zinogre", "Stygian Zinogre", None),
    ("Dragon Bite", "Bite", None),                       # the topic monster's own Bite has no such alias
    ("Yes", "Yes.", "normalised"),
    ("Yes, it lands right after.", "Yes", "yes_no"),
    ("No", "Yes", None),
    ("Yesterday", "Yes", None),
    ("No/Yes", "No", None),                              # hedges, refused without a key too
    ("No (yes)", "No", None),
    ("Yes / no", "Yes", None),
    ("No", "No, there is no explosion in this attack.", "yes_no"),
    ("No", "No, Rathian only has Fireball, not Great Fireball.", None),
    ("No, Rathian only uses the Fireball, never the Great Fireball", "No, Rathian only has Fireball, not Great Fireball.",
     "yes_no"),
    ("No, only Great Fireball", "No, Rathian only has Fireball, not Great Fireball.", None),
    ("Yes, Back Slam", "Yes, Backflip Slam", "yes_no"),
    ("Bite or Tail Spin", "Tail Spin or Bite", "list"),
    ("Tail Spin, Bite", "Zinogre may release Tail Spin or Bite.", "list"),
    ("Tail Spin", "Tail Spin or Bite", None),            # one of two alternatives is not the answer
    ("Tail Spin, Bite or Back Slam", "Tail Spin or Bite", None),
    ("Backflip Slam and Bite", "Back Slam and Bite", "list"),
    ("Throw Attack and Catch", "Catch and Throw Attack", None),   # an entity name is never split
    ("Catch and Throw Attack", "Catch and Throw Attack", "normalised"),
    ("Zinogre will jump and slam the ground twice", "Zinogre jumps and slams the ground twice.", None),
])
def test_exact_rules(judge, prediction, reference, rule):
    assert judge.answer_rule(prediction, reference, "zinogre") == rule
    verdict = judge.judge(Judgement(ANSWER, "q", reference, prediction, "zinogre"))
    assert verdict.accepted is (rule is not None)
    assert verdict.rule == (rule or "no_match")


def test_exact_rejects_empty_answers(judge):
    assert judge.judge(Judgement(ANSWER, "q", "Back Slam", "   ", "zinogre")).accepted is False


def test_exact_caption_similarity_uses_word_overlap(judge):
    reference = "Leaps up, flips over in the air and lands on its back."
    close = Judgement(CAPTION, "Back Slam", reference, "It leaps, flips over in mid air and lands on its back.")
    far = Judgement(CAPTION, "Back Slam", reference, "Swipes a paw from left to right.")
    assert judge.judge(close).accepted is True
    assert judge.judge(far).accepted is False
    assert re.fullmatch(r"word_f1=\d\.\d\d", judge.judge(far).rule)
    assert word_f1("the a of", "the a of") == 0.0
    assert word_f1("fireballs", "Fireball") == 1.0


@pytest.mark.parametrize("reply, verdict", [
    ("Yes", True), ("yes.", True), ("**Yes**", True), ("No", False), (" no, it names another attack", False),
    ("Maybe", None), ("", None), ("The answer is yes", None), ("Yesterday", None), ("Nope", None),
])
def test_parse_verdict(reply, verdict):
    assert parse_verdict(reply) is verdict


# ---------------------------------------------------------------------------------------------
# LLM judge on a real HTTP server

REPLIES = {"Back Slam": "Yes", "Bite": "No.", "Double Slam": "It is hard to say without the video."}


def grader(body: dict) -> str:
    """Answers like a judge model: by the candidate in the last user message."""
    last = body["messages"][-1]["content"]
    candidate = json.loads(re.search(r"Candidate (?:answer|description): (.*)", last).group(1))
    return REPLIES.get(candidate, "No")


def llm(server: StubServer, **kw) -> LLMJudge:
    kw.setdefault("backoff_base", 0.01)
    return LLMJudge(OpenAIChat(server.url, "judge-model", timeout=5.0, **kw))


def answer(prediction: str) -> Judgement:
    return Judgement(ANSWER, "What does Zinogre do next?", "Back Slam", prediction, "zinogre")


def test_llm_judge_verdicts_and_request(tmp_path):
    with StubServer(grader) as server:
        verdicts = [llm(server).judge(answer(p)) for p in ("Back Slam", "Bite", "Double Slam")]
    assert [v.accepted for v in verdicts] == [True, False, None]
    assert [v.raw for v in verdicts] == ["Yes", "No.", "It is hard to say without the video."]
    assert verdicts[0].rule == "stub-model"
    body = server.requests[0]["body"]
    assert body["temperature"] == 0.0 and body["model"] == "judge-model"
    messages = body["messages"]
    assert messages[0]["role"] == "system" and PROMPT_VERSION in messages[0]["content"]
    assert [m["content"] for m in messages if m["role"] == "assistant"] == ["Yes", "No", "Yes", "No", "Yes", "No"]
    last = messages[-1]["content"]
    assert '"What does Zinogre do next?"' in last and 'Reference answer: "Back Slam"' in last
    assert 'Candidate answer: "Back Slam"' in last


def test_llm_judge_gets_the_answer_key_as_a_quoted_field():
    key = AnswerKey("entity", ("zinogre.back-slam",))
    key_text = render_key(key, _graph())
    item = Judgement(ANSWER, "What does Zinogre do next?", "Back Slam", "Backflip Slam", "zinogre", key=key,
                     key_text=key_text)
    with StubServer(grader) as server:
        llm(server).judge(item)
        llm(server).judge(answer("Back Slam"))
    with_key, without = (r["body"]["messages"][-1]["content"] for r in server.requests)
    assert key_text == ("The answer is Back Slam (attack action; also called Backflip Slam); naming another one "
                        "of its kind instead or as well is wrong.")
    assert f"Answer key: {json.dumps(key_text)}\n" in with_key
    assert "Answer key" not in without
    assert "Answer key" in server.requests[0]["body"]["messages"][0]["content"] or "answer key" in \
        server.requests[0]["body"]["messages"][0]["content"]


def test_llm_judge_caption_prompt():
    with StubServer(grader) as server:
        verdict = llm(server).judge(Judgement(CAPTION, "Back Slam", "Flips onto its back.", "Back Slam"))
    assert verdict.accepted is True
    last = server.requests[0]["body"]["messages"][-1]["content"]
    assert 'Reference description: "Flips onto its back."' in last and 'Candidate description: "Back Slam"' in last


def test_llm_judge_does_not_ask_about_empty_answers():
    with StubServer(grader) as server:
        verdict = llm(server).judge(answer(""))
    assert verdict.accepted is False and server.calls == 0


def test_llm_judge_retries_a_500_then_judges():
    with StubServer(grader, faults=["500"]) as server:
        verdict = llm(server).judge(answer("Back Slam"))
    assert verdict.accepted is True
    assert [r["fault"] for r in server.requests] == ["500", None]


def test_llm_judge_gives_up_with_a_chat_error_not_a_verdict():
    with StubServer(grader, fault_plan=lambda n: "500") as server:
        with pytest.raises(ChatError, match="HTTP 500"):
            llm(server, max_retries=1).judge(answer("Back Slam"))
    assert server.calls == 2


def test_llm_judge_cache_keys_on_the_prediction(tmp_path):
    items = [answer("Back Slam"), answer("Bite"), answer("Back Slam")]
    with StubServer(grader) as server:
        cached = CachedChat(OpenAIChat(server.url, "judge-model", backoff_base=0.01), tmp_path / "judge.sqlite")
        first = judge_all(LLMJudge(cached), items, workers=3)
        assert server.calls in (2, 3)       # the duplicate may race its twin to the cache
        calls = server.calls
        again = judge_all(LLMJudge(CachedChat(cached.backend, tmp_path / "judge.sqlite")), items)
        assert server.calls == calls
        other_model = CachedChat(OpenAIChat(server.url, "other-judge", backoff_base=0.01), tmp_path / "judge.sqlite")
        LLMJudge(other_model).judge(items[0])
        assert server.calls == calls + 1
    assert [v.accepted for v in first] == [v.accepted for v in again] == [True, False, True]


def test_judge_all_keeps_order_with_workers():
    judge = ExactJudge(_graph())
    items = [answer(p) for p in ("Back Slam", "Bite", "Backflip Slam", "Tail Spin")] * 5
    assert [v.accepted for v in judge_all(judge, items, workers=4)] == [True, False, True, False] * 5
