"""One rule for which API key goes to which endpoint (``mhmmkg.chat.endpoint_key``), read by run,
caption and the LLM judge: a key goes only where it was named; the judge alone falls back to
$OPENAI_API_KEY, and only on OpenAI's own endpoint."""
from __future__ import annotations

import pytest

from mhmmkg.baseline.backends import _api_key, agent_routes
from mhmmkg.baseline.options import RunOptions
from mhmmkg.llm.chat import DEFAULT_BASE_URL, endpoint_key
from mhmmkg.errors import UserError
from mhmmkg.eval.evaluate_cli import judge_api_key


def test_the_rule(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "default-key")
    monkeypatch.setenv("MINE", "my-key")
    monkeypatch.delenv("EMPTY", raising=False)
    assert endpoint_key("MINE", "--x", "http://127.0.0.1:9/v1") == "my-key"
    assert endpoint_key(None, "--x", DEFAULT_BASE_URL) is None
    assert endpoint_key(None, "--x", DEFAULT_BASE_URL + "/", default_variable="OPENAI_API_KEY") == "default-key"
    assert endpoint_key(None, "--x", "http://127.0.0.1:9/v1", default_variable="OPENAI_API_KEY") is None
    with pytest.raises(UserError, match="--x EMPTY: that environment variable is not set or empty"):
        endpoint_key("EMPTY", "--x")


def test_run_and_judge_read_it(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "default-key")
    monkeypatch.setenv("AGENT_KEY", "agent-key")
    assert judge_api_key(None, DEFAULT_BASE_URL) == "default-key"
    assert judge_api_key(None, "http://127.0.0.1:9/v1") is None
    assert _api_key(None, "--api-key-env") is None          # a run never reads a key it was not given
    options = RunOptions(setting="know", out="x", model="openai", model_name="m", api_key_env="OPENAI_API_KEY",
                         agent_base_urls={"perceiver": "http://127.0.0.1:9/v1"},
                         agent_api_key_envs={"summarizer": "AGENT_KEY"})
    routes = agent_routes(options)
    assert routes["perceiver"][2] is None and routes["summarizer"][2] == "AGENT_KEY"
    with pytest.raises(UserError, match="--judge-api-key-env NOPE"):
        monkeypatch.delenv("NOPE", raising=False)
        judge_api_key("NOPE", DEFAULT_BASE_URL)
