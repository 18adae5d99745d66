"""Chat backends against a real OpenAI-compatible HTTP server on 127.0.0.1 (tests/stub_server.py)."""
from __future__ import annotations

import base64
import email.utils
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from stub_server import StubServer

from mhmmkg.chat import (CachedChat, ChatBackend, ChatError, ChatRequest, Message, OpenAIChat,
                         parse_retry_after, request_key)
from mhmmkg.errors import UserError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
JPEG = b"\xff\xd8\xff\xe0" + b"\x01" * 16


def ask(text: str = "hello", **kw) -> ChatRequest:
    return ChatRequest((Message("system", "be brief"), Message("user", text)), **kw)


def client(server: StubServer, **kw) -> OpenAIChat:
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("timeout", 5.0)
    return OpenAIChat(server.url, "my-model", **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_text_request_shape_and_response():
    with StubServer() as server:
        reply = client(server).complete(ask("what is 2+2?", temperature=0.3, max_tokens=7, seed=11))
    body = server.requests[0]["body"]
    assert body["model"] == "my-model"
    assert body["messages"] == [{"role": "system", "content": "be brief"},
                                {"role": "user", "content": "what is 2+2?"}]
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 7, 11)
    assert reply.text == "what is 2+2?"
    assert reply.model == "stub-model"
    assert reply.attempts == 1 and not reply.cached
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
    assert reply.latency > 0


def test_optional_parameters_are_left_out():
    with StubServer() as server:
        client(server).complete(ask())
    body = server.requests[0]["body"]
    assert "max_tokens" not in body and "seed" not in body
    assert body["temperature"] == 0.0


def test_images_are_sent_as_base64_data_url_parts():
    request = ChatRequest((Message("user", "describe", (PNG, JPEG)),))
    with StubServer() as server:
        reply = client(server).complete(request)
    content = server.requests[0]["body"]["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "describe"}
    urls = [p["image_url"]["url"] for p in content[1:]]
    assert [p["type"] for p in content[1:]] == ["image_url", "image_url"]
    assert urls[0] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert urls[1] == "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    assert reply.text == "describe"


def test_authorization_only_with_a_key(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    with StubServer() as server:
        client(server).complete(ask())
        client(server, api_key="sk-test").complete(ask())
    no_key, with_key = (r["headers"] for r in server.requests)
    assert not any(k.lower() == "authorization" for k in no_key)
    assert with_key["Authorization"] == "Bearer sk-test"


@pytest.mark.parametrize("fault", ["500", "non_json", "empty", "drop", "timeout"])
def test_transient_faults_are_retried(fault):
    with StubServer(faults=[fault, fault], timeout_sleep=0.6) as server:
        reply = client(server, timeout=0.3).complete(ask("still here"))
    assert reply.text == "still here"
    assert reply.attempts == 3
    assert server.calls == 3


def test_429_honours_retry_after():
    with StubServer(faults=["429"], retry_after="0.4") as server:
        reply = client(server).complete(ask())
    assert reply.attempts == 2
    assert reply.latency >= 0.4


def test_retry_after_is_capped_by_max_backoff():
    with StubServer(faults=["429"], retry_after="120") as server:
        started = time.perf_counter()
        client(server, max_backoff=0.1).complete(ask())
    assert time.perf_counter() - started < 5


def test_other_4xx_is_not_retried():
    with StubServer(faults=["400"]) as server:
        with pytest.raises(ChatError, match="HTTP 400"):
            client(server).complete(ask())
    assert server.calls == 1


def test_gives_up_after_max_retries_with_the_last_reason():
    with StubServer(fault_plan=lambda n: "500") as server:
        with pytest.raises(ChatError, match=r"gave up after 3 attempts.*HTTP 500"):
            client(server, max_retries=2).complete(ask())
    assert server.calls == 3


def test_empty_content_is_never_an_answer():
    with StubServer(fault_plan=lambda n: "empty") as server:
        with pytest.raises(ChatError, match="empty content"):
            client(server, max_retries=1).complete(ask())


def test_connections_are_kept_alive_and_renewed_after_a_drop():
    with StubServer(faults=[None, None, "drop", None]) as server:
        backend = client(server)
        replies = [backend.complete(ask(f"m{i}")) for i in range(3)]
    assert [r.attempts for r in replies] == [1, 1, 2]
    clients = [r["client"] for r in server.requests]
    assert clients[0] == clients[1] == clients[2] != clients[3]


def test_proxy_from_the_environment_is_used_for_remote_hosts(monkeypatch):
    with StubServer() as proxy:
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        reply = OpenAIChat("http://models.example.invalid/v1", "m", backoff_base=0.01).complete(ask("via proxy"))
    assert reply.text == "via proxy"
    assert proxy.requests[0]["path"] == "http://models.example.invalid/v1/chat/completions"


def test_unreachable_endpoint_is_a_user_error():
    backend = OpenAIChat(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=1, backoff_base=0.01)
    with pytest.raises(UserError, match="cannot connect"):
        backend.complete(ask())


def test_bad_base_url():
    with pytest.raises(UserError, match="http"):
        OpenAIChat("127.0.0.1:8000", "m")


def test_parse_retry_after():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after(later) <= 31


def test_openai_chat_is_a_backend():
    backend = OpenAIChat("http://127.0.0.1:1/v1", "m")
    assert isinstance(backend, ChatBackend)
    assert "m" in backend.fingerprint and "127.0.0.1:1" in backend.fingerprint


def test_request_key_covers_model_messages_images_and_parameters():
    base = request_key("a", ask())
    assert base == request_key("a", ask())
    assert base != request_key("b", ask())
    assert base != request_key("a", ask("hello!"))
    assert base != request_key("a", ask(temperature=0.5))
    assert base != request_key("a", ask(max_tokens=5))
    assert base != request_key("a", ask(seed=1))
    with_image = ChatRequest((Message("user", "x", (PNG,)),))
    other_image = ChatRequest((Message("user", "x", (PNG + b"\x01",)),))
    assert request_key("a", with_image) != request_key("a", other_image)


def test_cache_serves_identical_requests_without_calling_the_server(tmp_path):
    path = tmp_path / "cache" / "chat.sqlite"
    with StubServer() as server:
        with CachedChat(client(server), path) as cached:
            first = cached.complete(ask("one"))
            again = cached.complete(ask("one"))
            cached.complete(ask("two"))
            assert (cached.hits, cached.misses) == (1, 2)
        assert server.calls == 2
        with CachedChat(client(server), path) as reopened:
            third = reopened.complete(ask("one"))
            assert len(reopened) == 2
        assert server.calls == 2
    assert not first.cached and again.cached and third.cached
    assert again.text == third.text == first.text == "one"
    assert again.attempts == 0
    assert again.prompt_tokens == first.prompt_tokens


def test_cache_key_includes_the_backend_fingerprint(tmp_path):
    with StubServer() as server:
        a = CachedChat(OpenAIChat(server.url, "model-a"), tmp_path / "c.sqlite")
        b = CachedChat(OpenAIChat(server.url, "model-b"), tmp_path / "c.sqlite")
        a.complete(ask())
        b.complete(ask())
        a.close()
        b.close()
    assert server.calls == 2


def test_failures_are_not_cached(tmp_path):
    with StubServer(faults=["400"]) as server:
        with CachedChat(client(server), tmp_path / "c.sqlite") as cached:
            with pytest.raises(ChatError):
                cached.complete(ask())
            assert cached.complete(ask()).text == "hello"
            assert len(cached) == 1
    assert server.calls == 2


def test_cache_is_safe_across_threads(tmp_path):
    with StubServer(latency=0.01) as server:
        with CachedChat(client(server), tmp_path / "c.sqlite") as cached:
            with ThreadPoolExecutor(8) as pool:
                texts = list(pool.map(lambda i: cached.complete(ask(f"q{i % 10}")).text, range(40)))
            assert len(cached) == 10
    assert texts == [f"q{i % 10}" for i in range(40)]
    assert server.calls <= 40


def test_one_client_serves_many_threads():
    with StubServer(latency=0.01) as server:
        backend = client(server)
        with ThreadPoolExecutor(8) as pool:
            texts = list(pool.map(lambda i: backend.complete(ask(f"t{i}")).text, range(16)))
    assert texts == [f"t{i}" for i in range(16)]
    assert server.calls == 16


def test_backoff_is_full_jitter_from_the_given_generator():
    import random

    backend = OpenAIChat("http://127.0.0.1:9/v1", "m", backoff_base=0.5, max_backoff=4.0, rng=random.Random(7))
    waits = [backend._backoff(attempt, None) for attempt in range(1, 9)]
    expected = random.Random(7)
    assert waits == [expected.uniform(0, min(0.5 * 2 ** (a - 1), 4.0)) for a in range(1, 9)]
    assert all(0 <= w <= min(0.5 * 2 ** (a - 1), 4.0) for a, w in zip(range(1, 9), waits))
    assert len(set(waits)) == len(waits)


def test_clients_that_fail_together_do_not_retry_together():
    import random

    clients = [OpenAIChat("http://127.0.0.1:9/v1", "m", backoff_base=1.0, rng=random.Random(seed)) for seed in range(16)]
    first_waits = [c._backoff(1, None) for c in clients]
    assert len({round(w, 6) for w in first_waits}) == 16
    assert max(first_waits) - min(first_waits) > 0.5        # spread over the whole first window


def test_retry_after_is_a_floor_with_jitter_above_it(monkeypatch):
    import random

    slept = []
    monkeypatch.setattr("mhmmkg.chat.time.sleep", slept.append)
    with StubServer(faults=["429", "429"], retry_after="2") as server:
        reply = client(server, max_backoff=30.0, backoff_base=0.25, rng=random.Random(3)).complete(ask())
    assert reply.attempts == 3 and len(slept) == 2
    assert all(2.0 <= wait <= 2.25 for wait in slept), slept


@pytest.mark.parametrize("kind", ["fifo", "device link", "folder"])
def test_the_cache_is_never_a_fifo_device_or_folder(kind, tmp_path):
    import os

    path = tmp_path / "cache.sqlite"
    {"fifo": lambda: os.mkfifo(path), "device link": lambda: path.symlink_to("/dev/null"),
     "folder": lambda: path.mkdir()}[kind]()
    with StubServer() as server, pytest.raises(UserError, match="must be a regular file"):
        CachedChat(client(server), path)
