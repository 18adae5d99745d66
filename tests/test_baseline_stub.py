"""Runs against a real OpenAI-compatible server on 127.0.0.1: request shape, faults, cache, crash safety."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stub_server import StubServer, offline_responder
from test_baseline_run import add_media, check_submission, lines

from mhmmkg.chat import OpenAIChat
from mhmmkg.cli import main


def run_online(server: StubServer, dataset: Path, out: Path, *extra: str) -> int:
    return main(["run", "--quiet", "--model", "openai", "--base-url", server.url, "--model-name", "stub-model",
                 "--dataset", str(dataset), "--out", str(out), "--timeout", "0.5", *extra])


def answers(path: Path) -> list[dict]:
    return [{k: v for k, v in s.items() if k != "meta"} for s in lines(path)]


@pytest.fixture
def offline_run(tiny_sources, tmp_path) -> Path:
    out = tmp_path / "offline"
    assert main(["run", "--quiet", "--setting", "perceptive", "--dataset", str(tiny_sources), "--out", str(out)]) == 0
    return out


def test_a_run_through_http_matches_the_offline_model(tiny_sources, tmp_path, offline_run):
    out = tmp_path / "online"
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, out, "--setting", "perceptive", "--cache",
                          str(tmp_path / "c.sqlite"), "--concurrency", "3") == 0
    assert answers(out / "submission.jsonl") == answers(offline_run / "submission.jsonl")
    calls = lines(out / "calls.jsonl")
    assert server.calls == len(calls) == sum(s["meta"]["agent_calls"] for s in lines(out / "submission.jsonl"))
    body = server.requests[0]["body"]
    assert body["model"] == "stub-model" and body["temperature"] == 0.0 and body["seed"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert all(isinstance(m["content"], str) for m in body["messages"])
    assert "Authorization" not in server.requests[0]["headers"]
    assert all(c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 for c in calls)
    meta = json.loads((out / "submission.meta.json").read_text())
    assert meta["model"] == "stub-model" and server.url in meta["backend"]
    check_submission(tiny_sources, out / "submission.jsonl")


FAULT_CYCLE = ["429", "500", "non_json", "empty", "timeout", "drop"]


def test_faults_are_retried_and_never_become_answers(tiny_sources, tmp_path, offline_run, monkeypatch):
    monkeypatch.setitem(OpenAIChat.__init__.__kwdefaults__, "backoff_base", 0.01)
    plan = lambda n: FAULT_CYCLE[(n // 3) % len(FAULT_CYCLE)] if n % 3 == 0 else None  # noqa: E731
    out = tmp_path / "faulty"
    with StubServer(offline_responder(), fault_plan=plan, timeout_sleep=0.8) as server:
        assert run_online(server, tiny_sources, out, "--setting", "perceptive", "--no-cache",
                          "--concurrency", "4") == 0
    assert answers(out / "submission.jsonl") == answers(offline_run / "submission.jsonl")
    calls = lines(out / "calls.jsonl")
    faults = [r["fault"] for r in server.requests if r["fault"]]
    assert set(faults) == set(FAULT_CYCLE)
    assert sum(c["attempts"] - 1 for c in calls) == len(faults)
    assert server.calls == len(calls) + len(faults)


def test_an_endpoint_that_refuses_stops_the_run_and_keeps_finished_queries(tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    cache = str(tmp_path / "c.sqlite")
    with StubServer(offline_responder(), fault_plan=lambda n: "400" if n >= 20 else None) as server:
        code = run_online(server, tiny_sources, out, "--setting", "perceptive", "--cache", cache, "--concurrency", "1")
    assert code == 2
    err = capsys.readouterr().err
    assert "HTTP 400" in err and "--resume" in err and "Traceback" not in err
    done = lines(out / "results.jsonl")
    assert 1 <= len(done) < 6
    assert not (out / "submission.jsonl").exists()
    with StubServer(offline_responder()) as healthy:
        assert run_online(healthy, tiny_sources, out, "--setting", "perceptive", "--cache", cache, "--resume") == 0
    assert lines(out / "results.jsonl")[: len(done)] == done
    assert len(lines(out / "submission.jsonl")) == 6


def test_a_second_identical_run_is_served_from_the_cache(tiny_sources, tmp_path):
    cache = str(tmp_path / "cache.sqlite")
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, tmp_path / "a", "--setting", "perceptive", "--cache", cache) == 0
        first_calls = server.calls
        assert run_online(server, tiny_sources, tmp_path / "b", "--setting", "perceptive", "--cache", cache) == 0
    assert first_calls > 0 and server.calls == first_calls
    assert answers(tmp_path / "a" / "submission.jsonl") == answers(tmp_path / "b" / "submission.jsonl")
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["cached_calls"] == summary["agent_calls"] == first_calls
    assert all(c["cached"] and c["attempts"] == 0 for c in lines(tmp_path / "b" / "calls.jsonl"))


def test_api_key_from_the_named_variable(tiny_sources, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MY_KEY", "sk-123")
    monkeypatch.setenv("HF_TOKEN", "hf_never_sent")
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, tmp_path / "a", "--setting", "know", "--no-cache", "--limit", "1",
                          "--api-key-env", "MY_KEY") == 0
        assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-123"
        assert not any("hf_never_sent" in json.dumps(r) for r in server.requests)
        assert run_online(server, tiny_sources, tmp_path / "b", "--setting", "know", "--no-cache",
                          "--api-key-env", "UNSET_VAR_XYZ") == 2
    assert "UNSET_VAR_XYZ" in capsys.readouterr().err


def test_unaided_settings_send_images_and_never_human_captions(tiny_sources, tmp_path):
    add_media(tiny_sources)
    with StubServer(offline_responder()) as server:
        for setting in ("vanilla", "unaided_offline", "unaided_online"):
            assert run_online(server, tiny_sources, tmp_path / setting, "--setting", setting, "--no-cache") == 0
    human = ["Rears up and slams both forepaws down twice.", "Flips over and lands on its back.",
             "Snaps its jaws forward."]
    requests = json.dumps([r["body"] for r in server.requests])
    assert not any(caption in requests for caption in human)
    image_parts = [p for r in server.requests for m in r["body"]["messages"] if isinstance(m["content"], list)
                   for p in m["content"] if p["type"] == "image_url"]
    assert image_parts and all(p["image_url"]["url"].startswith("data:image/png;base64,") for p in image_parts)


def test_perceptive_prompts_show_human_captions(tiny_sources, tmp_path):
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, tmp_path / "p", "--setting", "perceptive", "--no-cache",
                          "--limit", "2") == 0
    assert "Rears up and slams both forepaws down twice." in json.dumps([r["body"] for r in server.requests])


def test_a_killed_run_resumes_with_every_query_answered_once(tiny_sources, tmp_path):
    out = tmp_path / "run"
    cache = tmp_path / "cache.sqlite"
    command = [sys.executable, "-m", "mhmmkg", "run", "--quiet", "--setting", "perceptive", "--model", "openai",
               "--model-name", "stub-model", "--dataset", str(tiny_sources), "--out", str(out),
               "--cache", str(cache), "--concurrency", "2"]
    with StubServer(offline_responder(), latency=0.1) as server:
        process = subprocess.Popen([*command, "--base-url", server.url], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        results = out / "results.jsonl"
        while time.monotonic() < deadline and process.poll() is None:
            if results.is_file() and results.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.005)
        assert process.poll() is None, process.stderr.read().decode()
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process.stderr.close()
        before = lines(results)
        assert 2 <= len(before) < 6
        calls_before = server.calls
        resumed = subprocess.run([*command, "--base-url", server.url, "--resume"], capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stderr
    after = lines(results)
    assert after[: len(before)] == before
    assert sorted(r["query_id"] for r in after) == [f"wolf-00{i}" for i in range(1, 7)]
    assert len(lines(out / "submission.jsonl")) == 6
    assert server.calls > calls_before
    check_submission(tiny_sources, out / "submission.jsonl")
