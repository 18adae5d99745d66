"""Keys go only where the user named them, replies cannot hang or flood a run, and push checks
the folder against its manifest before anything is sent (issue 11). Chat tests use a real
HTTP server on 127.0.0.1 (tests/stub_server.py)."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from stub_server import StubServer

from mhmmkg.chat import ChatError, ChatRequest, Message, OpenAIChat
from mhmmkg.cli import main
from mhmmkg.errors import UserError


def ask(text: str = "hello") -> ChatRequest:
    return ChatRequest((Message("user", text),))


def test_a_redirect_is_reported_and_not_followed(tmp_path):
    with StubServer(faults=["redirect"], redirect_to="http://127.0.0.2:9/steal") as server:
        chat = OpenAIChat(server.url, "m", api_key="sk-secret", max_retries=3, backoff_base=0.01)
        with pytest.raises(ChatError, match="HTTP 302 redirect to http://127.0.0.2:9/steal; redirects are not followed"):
            chat.complete(ask())
    assert server.calls == 1


def test_a_redirect_through_a_proxy_is_not_followed(monkeypatch):
    with StubServer(faults=["redirect", "redirect"], redirect_to="http://evil.example.invalid/steal") as proxy:
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        chat = OpenAIChat("http://models.example.invalid/v1", "m", max_retries=2, backoff_base=0.01)
        with pytest.raises(ChatError, match="redirect"):
            chat.complete(ask())
    assert proxy.calls == 1
    assert proxy.requests[0]["path"] == "http://models.example.invalid/v1/chat/completions"


def test_a_key_is_never_sent_in_clear_through_a_proxy(monkeypatch):
    with StubServer() as proxy:
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        with pytest.raises(UserError, match="which would see the API key"):
            OpenAIChat("http://models.example.invalid/v1", "m", api_key="sk-secret").complete(ask())
    assert proxy.calls == 0


def test_a_trickling_reply_is_cut_off_at_the_deadline():
    with StubServer(faults=["trickle"], trickle_interval=0.05) as server:
        chat = OpenAIChat(server.url, "m", timeout=0.5, max_retries=0)
        started = time.monotonic()
        with pytest.raises(ChatError, match=r"no complete reply within 0\.5 s"):
            chat.complete(ask("x" * 200))          # the reply takes ~15 s at one byte per 50 ms
        assert time.monotonic() - started < 3


def test_a_huge_reply_is_refused():
    with StubServer(lambda body: "y" * 50_000) as server:
        with pytest.raises(ChatError, match="reply larger than 10,000 bytes"):
            OpenAIChat(server.url, "m", max_reply_bytes=10_000, max_retries=3).complete(ask())
    assert server.calls == 1


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1}, {"max_retries": -1}])
def test_chat_client_refuses_nonsense_settings(kwargs):
    with pytest.raises(UserError):
        OpenAIChat("http://127.0.0.1:9/v1", "m", **kwargs)


# ---------------------------------------------------------------------------------------------
# the LLM judge's key

def judged_headers(tiny_sources: Path, tmp_path: Path, monkeypatch, *extra: str) -> list[dict]:
    sub = tmp_path / "sub.jsonl"
    sub.write_text('{"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]}\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default")
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-named")
    with StubServer(lambda body: "Yes") as server:
        code = main(["evaluate", str(sub), "--dataset", str(tiny_sources), "--judge", "openai", "--judge-model", "g",
                     "--judge-base-url", server.url, "--judge-cache", str(tmp_path / "cache.sqlite"), "--quiet",
                     "--bootstrap", "0", *extra])
    assert code == 0
    return [r["headers"] for r in server.requests]


def test_the_default_key_never_goes_to_a_judge_url_the_user_gave(tiny_sources, tmp_path, monkeypatch):
    headers = judged_headers(tiny_sources, tmp_path, monkeypatch)
    assert headers and all("Authorization" not in h for h in headers)


def test_the_judge_key_goes_where_the_user_named_it(tiny_sources, tmp_path, monkeypatch):
    headers = judged_headers(tiny_sources, tmp_path, monkeypatch, "--judge-api-key-env", "MY_JUDGE_KEY")
    assert headers and all(h["Authorization"] == "Bearer sk-named" for h in headers)


# ---------------------------------------------------------------------------------------------
# push: the folder must match its manifest before anything is sent

class NoHub:
    """Stands in for huggingface_hub.HfApi; a push that gets as far as the Hub fails the test."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("push reached the Hub")


def rewrite_manifest(folder: Path, change) -> None:
    from mhmmkg.manifest import fingerprint_of

    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    manifest["fingerprint"] = fingerprint_of(manifest["files"])     # a forger recomputes it
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _empty(m):
    m["files"] = {}


def _glob(m):
    rel = next(r for r in m["files"] if r.endswith(".parquet"))
    m["files"]["data/*.parquet"] = m["files"].pop(rel)


def _escape(m):
    m["files"]["../secret.txt"] = {"sha256": "0" * 64, "bytes": 1}


@pytest.mark.parametrize("change, reason", [
    (_empty, "does not list"), (_glob, "lists 'data/*.parquet', which is not a file"),
    (_escape, "lists '../secret.txt', which is not a file"),
])
def test_push_refuses_a_manifest_that_does_not_match_the_folder(tiny_dataset, tmp_path, monkeypatch, capsys,
                                                                change, reason):
    import shutil

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", NoHub)
    folder = Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))
    (tmp_path / "secret.txt").write_text("x")
    rewrite_manifest(folder, change)
    assert main(["push", "--repo-id", "org/x", "--dataset", str(folder)]) == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err, err


def test_push_refuses_a_symlink_and_a_changed_fingerprint(tiny_dataset, tmp_path, monkeypatch, capsys):
    import shutil

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", NoHub)
    folder = Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "fingerprint": "f" * 64}))
    assert main(["push", "--repo-id", "org/x", "--dataset", str(folder)]) == 2
    assert "fingerprint does not match" in capsys.readouterr().err
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "secret.txt").write_text("x")
    (folder / "data" / "extra.parquet").symlink_to(tmp_path / "secret.txt")
    assert main(["push", "--repo-id", "org/x", "--dataset", str(folder)]) == 2
    assert "a symbolic link" in capsys.readouterr().err


def test_push_deletes_only_literal_stale_parquet_paths():
    from mhmmkg.hub import commit_plan

    build = ["README.md", "data/queries-test-1.parquet", "manifest.json"]
    remote = ["README.md", "data/queries-test-0.parquet", "data/*.parquet", "data/graph/kg-9.parquet",
              "docs/old.parquet", "data/queries-test-1.parquet"]
    upload, stale = commit_plan(build, remote)
    assert upload == sorted(build)
    assert stale == ["data/*.parquet", "data/graph/kg-9.parquet", "data/queries-test-0.parquet"]
