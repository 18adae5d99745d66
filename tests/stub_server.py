"""A small OpenAI-compatible chat server on 127.0.0.1 for tests and benchmarks.

It records every request (headers and JSON body), answers after a configurable latency, and
injects faults on request: ``429`` (with ``Retry-After``), ``500``, ``400``, ``timeout`` (sleeps
past the client's timeout before answering), ``non_json`` (a 200 whose body is not JSON),
``empty`` (a 200 with empty content), ``drop`` (closes the connection without a reply),
``redirect`` (a 302 to ``redirect_to``) and ``trickle`` (a normal reply sent one byte every
``trickle_interval`` seconds).

Replies come from a responder ``f(body) -> str``: by default it echoes the last user text;
:func:`offline_responder` answers with the package's offline model, so a run against the stub
gives the same results as a run with ``--model offline``.

Run standalone (for benchmarks)::

    python tests/stub_server.py --port 8765 --latency 0.1 --offline
"""
from __future__ import annotations

import argparse
import base64
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

FAULTS = ("429", "500", "400", "timeout", "non_json", "empty", "drop", "redirect", "trickle")


def echo_responder(body: dict) -> str:
    for message in reversed(body["messages"]):
        if message["role"] == "user":
            content = message["content"]
            if isinstance(content, list):
                return " ".join(p["text"] for p in content if p.get("type") == "text")
            return content
    return "ok"


def offline_responder() -> Callable[[dict], str]:
    """A responder that answers as the package's deterministic offline model."""
    from mhmmkg.baseline.offline import OfflineChat
    from mhmmkg.chat import ChatRequest, Message

    model = OfflineChat()

    def respond(body: dict) -> str:
        messages = []
        for m in body["messages"]:
            content = m["content"]
            if isinstance(content, str):
                messages.append(Message(m["role"], content))
                continue
            text = "".join(p["text"] for p in content if p["type"] == "text")
            images = tuple(base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
                           for p in content if p["type"] == "image_url")
            messages.append(Message(m["role"], text, images))
        request = ChatRequest(tuple(messages), temperature=body.get("temperature", 0.0),
                              max_tokens=body.get("max_tokens"), seed=body.get("seed"))
        return model.complete(request).text

    return respond


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that timed out and hung up is expected here; stay quiet."""


class StubServer:
    """``with StubServer(latency=0.1) as s: OpenAIChat(s.url, "stub-model")``.

    ``faults`` is a queue of fault names consumed one per request (``None`` = answer normally);
    ``fault_plan(n)`` (n = 0-based request number) may name a fault for any request as well.
    """

    def __init__(self, responder: Callable[[dict], str] | None = None, *, latency: float = 0.0,
                 faults: list[str | None] | None = None, fault_plan: Callable[[int], str | None] | None = None,
                 retry_after: str = "0", timeout_sleep: float = 1.0, port: int = 0, model: str = "stub-model",
                 redirect_to: str = "http://elsewhere.example.invalid/v1/chat/completions",
                 trickle_interval: float = 0.1):
        self.responder = responder or echo_responder
        self.latency = latency
        self.faults: deque[str | None] = deque(faults or [])
        self.fault_plan = fault_plan
        self.retry_after = retry_after
        self.timeout_sleep = timeout_sleep
        self.model = model
        self.redirect_to = redirect_to
        self.trickle_interval = trickle_interval
        #: {"headers": {...}, "body": {...}, "path": str, "client": (host, port), "fault": str | None}
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> StubServer:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _next_fault(self, record: dict) -> str | None:
        with self._lock:
            n = len(self.requests)
            fault = self.faults.popleft() if self.faults else None
            if fault is None and self.fault_plan is not None:
                fault = self.fault_plan(n)
            self.requests.append({**record, "fault": fault})
        return fault

    def _handler_class(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                # headers and body go out in two writes: without this, Nagle's algorithm and the
                # client's delayed ACK stall every reply on a kept-alive connection by ~40 ms
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _send(self, status: int, payload: bytes, extra: dict | None = None,
                      content_type: str = "application/json"):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if urlsplit(self.path).path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}')
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, b'{"error": "request body is not JSON"}')
                    return
                fault = stub._next_fault({"headers": dict(self.headers.items()), "body": body, "path": self.path,
                                          "client": self.client_address})
                if stub.latency:
                    time.sleep(stub.latency)
                if fault == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if fault == "timeout":
                    time.sleep(stub.timeout_sleep)
                if fault == "429":
                    self._send(429, b'{"error": "rate limited"}', {"Retry-After": stub.retry_after})
                    return
                if fault == "500":
                    self._send(500, b'{"error": "internal error"}')
                    return
                if fault == "400":
                    self._send(400, b'{"error": "bad request"}')
                    return
                if fault == "redirect":
                    self._send(302, b"", {"Location": stub.redirect_to})
                    return
                if fault == "non_json":
                    self._send(200, b"<html>upstream error</html>", content_type="text/html")
                    return
                text = "" if fault == "empty" else stub.responder(body)
                reply = {
                    "id": f"stub-{stub.calls}",
                    "object": "chat.completion",
                    "model": stub.model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": max(1, len(text) // 4)},
                }
                payload = json.dumps(reply).encode("utf-8")
                if fault == "trickle":
                    self._trickle(payload)
                    return
                self._send(200, payload)

            def _trickle(self, payload: bytes):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                try:
                    for i in range(len(payload)):
                        self.wfile.write(payload[i:i + 1])
                        self.wfile.flush()
                        time.sleep(stub.trickle_interval)
                except OSError:
                    self.close_connection = True

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--offline", action="store_true", help="answer with the offline model (default: echo)")
    args = parser.parse_args()
    server = StubServer(offline_responder() if args.offline else None, latency=args.latency, port=args.port)
    print(f"stub server on {server.url}", flush=True)
    server._server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
