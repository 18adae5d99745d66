"""The paper's protocol in the baseline: text-only queries in the vision settings, the query
frames in unaided_online, the authors' search in a run, per-agent models and endpoints."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_json
from stub_server import StubServer, offline_responder
from test_baseline_run import add_media, check_submission, lines, run

TEXT_ONLY = "wolf-001"


def drop_query_media(src: Path, query_id: str) -> Path:
    """Make one query text-only, as the authors' "Pure Text" queries are."""
    doc = json.loads((src / "queries" / "wolf.json").read_text())
    for q in doc["queries"]:
        if q["id"] == query_id:
            q.pop("media", None)
    write_json(src / "queries" / "wolf.json", doc)
    return src


@pytest.mark.parametrize("setting", ["vanilla", "unaided_offline", "unaided_online"])
def test_a_text_only_query_is_asked_with_its_question_only(setting, tiny_sources, tmp_path):
    drop_query_media(add_media(tiny_sources), TEXT_ONLY)
    out = tmp_path / setting
    assert run("--setting", setting, "--dataset", tiny_sources, "--out", out) == 0
    calls = lines(out / "calls.jsonl")
    text_only = [c for c in calls if c["query_id"] == TEXT_ONLY]
    # no query frames anywhere (in unaided_online, validation still looks at the KG's own media)
    assert text_only and all(c["images"] == 0 for c in text_only if c["agent"] != "validation_online")
    assert "perceiver" not in {c["agent"] for c in text_only}
    others = [c for c in calls if c["query_id"] not in (TEXT_ONLY, None)]
    assert any(c["images"] > 0 for c in others)
    submission = {s["query_id"]: s for s in lines(out / "submission.jsonl")}
    assert len(submission) == 6 and submission[TEXT_ONLY]["meta"]["text_only"] is True
    assert "perception" not in submission[TEXT_ONLY]
    assert "text_only" not in submission["wolf-002"]["meta"]
    check_submission(tiny_sources, out / "submission.jsonl")


def test_unaided_online_shows_the_query_frames_to_topic_selection_and_summarizer(tiny_sources, tmp_path):
    add_media(tiny_sources)
    assert run("--setting", "unaided_online", "--dataset", tiny_sources, "--out", tmp_path / "on") == 0
    by_agent: dict[str, set[int]] = {}
    for call in lines(tmp_path / "on" / "calls.jsonl"):
        by_agent.setdefault(call["agent"], set()).add(call["images"])
    assert by_agent["topic"] == {1} and by_agent["summarizer"] == {1}
    assert by_agent["expansion"] == {0}
    assert run("--setting", "unaided_offline", "--dataset", tiny_sources, "--out", tmp_path / "off") == 0
    offline = {c["agent"]: c["images"] for c in lines(tmp_path / "off" / "calls.jsonl")}
    assert offline["topic"] == 0 and offline["summarizer"] == 0


def test_official_search_in_a_run(tiny_sources, tmp_path):
    out = tmp_path / "official"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--search", "official",
               "--alpha", "2") == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["search"]["order"] == "official"
    submission = lines(out / "submission.jsonl")
    assert {s["meta"]["search"]["stopped"] for s in submission} <= {"alpha", "exhausted", "root"}
    for s in submission:                          # every found path is submitted
        assert len(s["paths"]) == s["meta"]["search"]["found"]
    check_submission(tiny_sources, out / "submission.jsonl")
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", tmp_path / "bfs") == 0
    assert json.loads((tmp_path / "bfs" / "manifest.json").read_text())["config_hash"] != manifest["config_hash"]


def test_each_agent_can_have_its_own_model_and_endpoint(tiny_sources, tmp_path, monkeypatch):
    add_media(tiny_sources)
    monkeypatch.setenv("MAIN_KEY", "sk-main")
    monkeypatch.setenv("VISION_KEY", "sk-vision")
    with StubServer(offline_responder()) as main_server, StubServer(offline_responder()) as vision_server:
        assert run("--setting", "unaided_online", "--dataset", tiny_sources, "--out", tmp_path / "r", "--no-cache",
                   "--model", "openai", "--base-url", main_server.url, "--model-name", "searcher-model",
                   "--api-key-env", "MAIN_KEY",
                   "--agent-model", "perceiver=vision-model", "--agent-base-url", f"perceiver={vision_server.url}",
                   "--agent-api-key-env", "perceiver=VISION_KEY",
                   "--agent-model", "summarizer=answer-model") == 0
    vision = [r["body"]["model"] for r in vision_server.requests]
    assert vision and set(vision) == {"vision-model"}
    assert {r["headers"]["Authorization"] for r in vision_server.requests} == {"Bearer sk-vision"}
    main_models = {r["body"]["model"] for r in main_server.requests}
    assert main_models == {"searcher-model", "answer-model"}
    assert {r["headers"]["Authorization"] for r in main_server.requests} == {"Bearer sk-main"}
    calls = lines(tmp_path / "r" / "calls.jsonl")
    assert sum(c["agent"] == "perceiver" for c in calls) == len(vision_server.requests)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["agent_models"] == {"perceiver": "vision-model", "summarizer": "answer-model"}
    assert manifest["config"]["agent_base_urls"]["perceiver"] == vision_server.url
    assert set(manifest["agent_backends"]) == {"perceiver", "summarizer"}


def test_an_agent_on_its_own_host_never_gets_the_runs_key(tiny_sources, tmp_path, monkeypatch):
    monkeypatch.setenv("MAIN_KEY", "sk-main")
    with StubServer(offline_responder()) as main_server, StubServer(offline_responder()) as other:
        assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "r", "--no-cache",
                   "--model", "openai", "--base-url", main_server.url, "--model-name", "m", "--api-key-env", "MAIN_KEY",
                   "--agent-model", "summarizer=s", "--agent-base-url", f"summarizer={other.url}", "--limit", "2") == 0
    assert other.requests and all("Authorization" not in r["headers"] for r in other.requests)
    assert not any("sk-main" in json.dumps(r) for r in other.requests)


def test_the_searcher_group_and_the_offline_model_per_agent(tiny_sources, tmp_path):
    with StubServer(offline_responder()) as server:
        assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", tmp_path / "r", "--no-cache",
                   "--agent-model", "validation=offline", "--agent-model", "searcher=search-model",
                   "--base-url", server.url, "--limit", "3") == 0
    assert {r["body"]["model"] for r in server.requests} == {"search-model"}
    agents = {c["agent"] for c in lines(tmp_path / "r" / "calls.jsonl")}
    assert {"topic", "expansion", "validation", "summarizer"} <= agents
    texts = [m["content"] for r in server.requests for m in r["body"]["messages"] if m["role"] == "system"]
    assert any("First decide which monster" in t for t in texts)                  # topic: the group's model
    assert any("search a knowledge graph" in t for t in texts)                    # expansion: the group's model
    assert not any("You check one branch" in t for t in texts)                    # validation: its own (offline)
    assert not any("Answer the question using the knowledge" in t for t in texts)  # the summarizer stayed offline
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["agent_models"]["validation"] == "offline"
    assert manifest["config"]["agent_models"]["topic"] == "search-model"


@pytest.mark.parametrize("flags, message", [
    (("--agent-model", "painter=x"), "unknown agent 'painter'"),
    (("--agent-model", "perceiver"), "expected AGENT=VALUE"),
    (("--agent-model", "perceiver=a", "--agent-model", "perceiver=b"), "given twice"),
    (("--agent-base-url", "perceiver=http://127.0.0.1:9/v1"), "give its model with --agent-model perceiver=NAME"),
    (("--agent-model", "summarizer=m", "--agent-api-key-env", "summarizer=UNSET_VAR_XYZ"), "UNSET_VAR_XYZ"),
])
def test_bad_agent_options_are_user_errors(flags, message, tiny_sources, tmp_path, capsys):
    out = tmp_path / "r"
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out, *flags) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()
