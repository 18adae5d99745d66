"""Chat backends: one small protocol, an OpenAI-compatible HTTP client and a SQLite response cache.

Both the baseline's agents and the evaluation's LLM judge talk to models through
:class:`ChatBackend`. :class:`OpenAIChat` needs only the standard library: it posts to
``{base_url}/chat/completions`` over one kept-alive connection per thread (through the proxy
the environment names, if any, for non-loopback hosts), sends images as base64 data URLs,
sends ``Authorization`` only when a key is given and only to the base URL's host (redirects
are reported, never followed), bounds each attempt by an overall deadline and each reply by a
size cap, and retries transient failures (408, 409, 425, 429, 5xx, timeouts, broken
connections, non-JSON bodies, empty replies) with full-jitter backoff (a wait drawn evenly
between 0 and a capped exponential, so clients that failed together do not retry together)
that honours ``Retry-After`` (never sooner than the server asked, up to the cap). Other 4xx answers are the caller's mistake and are not retried. When it gives
up it raises :class:`ChatError`: a failure is never turned into an answer.

:class:`CachedChat` wraps any backend with a SQLite (WAL) cache keyed by the SHA-256 of the
canonical request, so an identical second run makes no calls at all.
"""
from __future__ import annotations

import base64
import email.utils
import hashlib
import http.client
import json
import os
import random
import socket
import sqlite3
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from ..errors import UserError
from . import DEFAULT_BASE_URL, DEFAULT_KEY_VARIABLE  # noqa: F401  (part of this module's API)

RETRY_STATUS = frozenset({408, 409, 425, 429})
MAX_REPLY_BYTES = 16 << 20


@dataclass(frozen=True)
class Message:
    role: str                        # "system" | "user" | "assistant"
    text: str
    images: tuple[bytes, ...] = ()   # encoded image files (PNG/JPEG); sent as base64 data URLs


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class ChatResponse:
    text: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    attempts: int = 1
    cached: bool = False
    latency: float = 0.0             # seconds


@runtime_checkable
class ChatBackend(Protocol):
    fingerprint: str                 # identifies model + endpoint; part of the cache key

    def complete(self, request: ChatRequest) -> ChatResponse: ...


class ChatError(UserError):
    """The endpoint is unreachable, refused the request (4xx) or kept failing until we gave up."""


class _Transient(Exception):
    """A failure worth retrying; ``wait`` is the server's Retry-After in seconds, if it gave one."""

    def __init__(self, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.wait = wait


def image_mime(data: bytes) -> str:
    """MIME type of an encoded image from its magic bytes (PNG, JPEG, GIF, WebP); PNG if unknown."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "image/png"


def message_payload(message: Message) -> dict:
    """One message in the OpenAI chat format: plain text, or text and image_url parts."""
    if not message.images:
        return {"role": message.role, "content": message.text}
    parts: list[dict] = [{"type": "text", "text": message.text}] if message.text else []
    for image in message.images:
        url = f"data:{image_mime(image)};base64,{base64.b64encode(image).decode('ascii')}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": message.role, "content": parts}


def request_payload(request: ChatRequest, model: str) -> dict:
    body: dict = {"model": model, "messages": [message_payload(m) for m in request.messages],
                  "temperature": request.temperature}
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.seed is not None:
        body["seed"] = request.seed
    return body


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _is_loopback(host: str | None) -> bool:
    return host in ("localhost", "127.0.0.1", "::1") or (host or "").startswith("127.")


def proxy_for(url: urllib.parse.SplitResult) -> urllib.parse.SplitResult | None:
    """The proxy the environment names for this URL (never for loopback hosts), or None."""
    if _is_loopback(url.hostname):
        return None
    proxy = urllib.request.getproxies().get(url.scheme)
    if not proxy or urllib.request.proxy_bypass(url.hostname or ""):
        return None
    return urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")


class OpenAIChat:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``base_url`` is the API root (e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8000/v1``).
    Safe to share between threads. ``timeout`` bounds each attempt as a whole (connecting,
    waiting and reading, so a reply that trickles in cannot hold a run); ``backoff_base`` is the
    cap of the first retry's wait in seconds (each wait is drawn from ``rng``, by default a
    generator of its own, between 0 and the capped exponential). Redirects are never followed, and the key is sent to no host
    but the base URL's: a plain-http endpoint behind a proxy with a key is refused.
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0,
                 max_retries: int = 6, max_backoff: float = 30.0, *, backoff_base: float = 0.5,
                 max_reply_bytes: int = MAX_REPLY_BYTES, rng: random.Random | None = None):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise UserError(f"chat endpoint: base URL must start with http:// or https://, got {base_url!r}")
        if not timeout > 0:
            raise UserError(f"chat endpoint: the timeout must be more than 0 seconds, got {timeout!r}")
        if max_retries < 0:
            raise UserError(f"chat endpoint: max retries must be 0 or more, got {max_retries!r}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_backoff = max_backoff
        self.backoff_base = backoff_base
        self.max_reply_bytes = max_reply_bytes
        self._rng = rng or random.Random()
        self._rng_lock = threading.Lock()
        self.fingerprint = f"openai|{self.base_url}|{model}"
        self._api_key = api_key
        self._url = urllib.parse.urlsplit(f"{self.base_url}/chat/completions")
        self._proxy = proxy_for(self._url)
        if self._proxy is not None and api_key and self._url.scheme == "http":
            raise UserError(f"chat endpoint {self.base_url}: the environment sends plain-http requests through the "
                            f"proxy {self._proxy.hostname}, which would see the API key; use an https:// base URL "
                            f"or add {self._url.hostname} to no_proxy")
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"OpenAIChat({self.base_url!r}, {self.model!r})"

    def complete(self, request: ChatRequest) -> ChatResponse:
        body = json.dumps(request_payload(request, self.model)).encode("utf-8")
        started = time.perf_counter()
        last = "no attempt made"
        for attempt in range(1, self.max_retries + 2):
            try:
                text, model, usage = self._post(body)
            except _Transient as exc:
                last = str(exc)
                if attempt > self.max_retries:
                    break
                time.sleep(self._backoff(attempt, exc.wait))
                continue
            return ChatResponse(text=text, model=model or self.model,
                                prompt_tokens=usage.get("prompt_tokens"),
                                completion_tokens=usage.get("completion_tokens"),
                                attempts=attempt, latency=time.perf_counter() - started)
        raise ChatError(f"chat endpoint {self.base_url}: gave up after {self.max_retries + 1} attempts; "
                        f"last failure: {last}")

    def _backoff(self, attempt: int, server_wait: float | None) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^(attempt-1))]. A Retry-After is a floor
        (capped by ``max_backoff``), with up to one ``backoff_base`` of jitter on top."""
        with self._rng_lock:
            if server_wait is not None:
                floor = min(server_wait, self.max_backoff)
                return floor + self._rng.uniform(0, min(self.backoff_base, self.max_backoff - floor))
            return self._rng.uniform(0, min(self.backoff_base * 2 ** (attempt - 1), self.max_backoff))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if self._proxy is not None and self._url.scheme == "http" and self._proxy.username:
            headers["Proxy-Authorization"] = _basic_auth(self._proxy)
        return headers

    def _connection(self) -> http.client.HTTPConnection:
        """This thread's kept-alive connection: to the endpoint, or to the proxy (a CONNECT
        tunnel for https, so only the endpoint sees the request and its key)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        kind = http.client.HTTPSConnection if self._url.scheme == "https" else http.client.HTTPConnection
        if self._proxy is None:
            conn = kind(self._url.hostname, self._url.port, timeout=self.timeout)
        elif self._url.scheme == "https":
            conn = kind(self._proxy.hostname, self._proxy.port, timeout=self.timeout)
            tunnel_headers = {"Proxy-Authorization": _basic_auth(self._proxy)} if self._proxy.username else None
            conn.set_tunnel(self._url.hostname, self._url.port, headers=tunnel_headers)
        else:
            conn = http.client.HTTPConnection(self._proxy.hostname, self._proxy.port, timeout=self.timeout)
        self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _target(self) -> str:
        path = self._url.path + (f"?{self._url.query}" if self._url.query else "")
        if self._proxy is not None and self._url.scheme == "http":
            return f"http://{self._url.netloc}{path}"      # a plain-http proxy wants the absolute URL
        return path

    def _post(self, body: bytes) -> tuple[str, str | None, dict]:
        """One attempt, cut off when ``timeout`` seconds have passed, whatever the server does."""
        reused = getattr(self._local, "conn", None) is not None
        conn = self._connection()
        expired = threading.Event()
        watchdog = threading.Timer(self.timeout, _cut_off, (conn, expired))
        watchdog.daemon = True
        watchdog.start()
        try:
            conn.request("POST", self._target(), body, self._headers())
            reply = conn.getresponse()
            raw = reply.read(self.max_reply_bytes + 1)
        except (TimeoutError, socket.timeout):
            self._drop_connection()
            raise _Transient(f"no reply within {self.timeout:g} s") from None
        except (ConnectionRefusedError, socket.gaierror) as exc:
            self._drop_connection()
            raise _Transient(f"cannot connect to {self._url.netloc}: {exc}") from None
        except (http.client.HTTPException, OSError) as exc:
            self._drop_connection()
            if expired.is_set():
                raise _Transient(f"no complete reply within {self.timeout:g} s") from None
            # a kept-alive connection the server has since closed: try a fresh one at once
            wait = 0.0 if reused and isinstance(exc, (http.client.RemoteDisconnected, ConnectionResetError,
                                                       BrokenPipeError)) else None
            raise _Transient(f"connection failed: {exc.__class__.__name__}: {exc}", wait) from None
        finally:
            watchdog.cancel()
        if expired.is_set():
            self._drop_connection()
            raise _Transient(f"no complete reply within {self.timeout:g} s")
        if len(raw) > self.max_reply_bytes:
            self._drop_connection()
            raise ChatError(f"chat endpoint {self.base_url}: reply larger than {self.max_reply_bytes:,} bytes; "
                            "refused")
        if reply.will_close:
            self._drop_connection()
        if 300 <= reply.status < 400:
            raise ChatError(f"chat endpoint {self.base_url}: HTTP {reply.status} redirect to "
                            f"{reply.getheader('Location') or '(no Location)'}; redirects are not followed, so the "
                            "request and its key go only to --base-url: give the final address as --base-url")
        if reply.status >= 400:
            detail = raw.decode("utf-8", "replace").strip()
            self._http_error(reply.status, f": {detail[:300]}" if detail else "", reply.getheader("Retry-After"))
        return _parse_reply(raw)

    def _http_error(self, status: int, detail: str, retry_after: str | None) -> None:
        if status in RETRY_STATUS or status >= 500:
            raise _Transient(f"HTTP {status}{detail}", parse_retry_after(retry_after))
        hint = " (check --api-key-env)" if status in (401, 403) else ""
        raise ChatError(f"chat endpoint {self.base_url}: HTTP {status}{detail}{hint}")


def _basic_auth(proxy: urllib.parse.SplitResult) -> str:
    user = urllib.parse.unquote(proxy.username or "")
    password = urllib.parse.unquote(proxy.password or "")
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def _cut_off(conn: http.client.HTTPConnection, expired: threading.Event) -> None:
    """Watchdog: end an attempt that overran its deadline by shutting its socket down."""
    expired.set()
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _parse_reply(raw: bytes) -> tuple[str, str | None, dict]:
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _Transient(f"reply is not JSON: {raw[:80]!r}") from None
    try:
        message = data["choices"][0]["message"]
        content = message.get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise _Transient(f"reply has no choices[0].message: {raw[:120]!r}") from None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise _Transient("reply has empty content")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return content, data.get("model"), usage


def request_key(fingerprint: str, request: ChatRequest) -> str:
    """SHA-256 of the canonical request: model fingerprint, messages (with image bytes), parameters."""
    canonical = {
        "fingerprint": fingerprint,
        "messages": [{"role": m.role, "text": m.text,
                      "images": [hashlib.sha256(im).hexdigest() for im in m.images]} for m in request.messages],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "seed": request.seed,
    }
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedChat:
    """A backend whose answers are kept in a SQLite file (WAL mode) and reused for identical requests.

    Only successful responses are stored. Safe to share between threads and between processes.
    ``hits`` and ``misses`` count look-ups of this instance.
    """

    def __init__(self, backend: ChatBackend, path: str | Path):
        self.backend = backend
        self.fingerprint = backend.fingerprint
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise UserError(f"{self.path}: the chat cache must be a regular file (a SQLite database), not a folder, "
                            f"FIFO or device")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, "
                             "model TEXT NOT NULL, prompt_tokens INTEGER, completion_tokens INTEGER, "
                             "created REAL NOT NULL)")
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"{self.path}: cannot open the chat cache: {exc}") from None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"CachedChat({self.backend!r}, {str(self.path)!r})"

    def complete(self, request: ChatRequest) -> ChatResponse:
        started = time.perf_counter()
        key = request_key(self.fingerprint, request)
        with self._lock:
            row = self._db.execute("SELECT text, model, prompt_tokens, completion_tokens FROM responses "
                                   "WHERE key = ?", (key,)).fetchone()
            if row is not None:
                self.hits += 1
            else:
                self.misses += 1
        if row is not None:
            return ChatResponse(text=row[0], model=row[1], prompt_tokens=row[2], completion_tokens=row[3],
                                attempts=0, cached=True, latency=time.perf_counter() - started)
        response = self.backend.complete(request)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                             (key, response.text, response.model, response.prompt_tokens,
                              response.completion_tokens, time.time()))
        return response

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> CachedChat:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def endpoint_key(variable: str | None, flag: str, base_url: str | None = None, *,
                 default_variable: str | None = None) -> str | None:
    """The API key an endpoint gets, one rule for run, caption and the LLM judge: the key in the
    environment variable the user named for that endpoint (``flag`` names the option; a variable
    that is unset or empty is an error); without one, ``default_variable`` (the judge's
    ``$OPENAI_API_KEY``) and only when the endpoint is OpenAI's own, never one the user gave;
    otherwise no key, and no Authorization header is sent.

    Run and caption pass no ``default_variable``: they never read a key the user did not name.
    Giving them the judge's default would send ``$OPENAI_API_KEY`` where runs sent none before.
    """
    if variable:
        key = os.environ.get(variable)
        if not key:
            raise UserError(f"{flag} {variable}: that environment variable is not set or empty")
        return key
    if default_variable and base_url is not None and base_url.rstrip("/") == DEFAULT_BASE_URL:
        return os.environ.get(default_variable) or None
    return None


def endpoint(base_url: str | None, model: str, *, api_key: str | None, cache: str | Path | None,
             **options) -> ChatBackend:
    """An OpenAI-compatible endpoint (``base_url`` None: OpenAI's) behind the SQLite reply cache at
    ``cache`` (None: no cache): the one factory run, caption and evaluate reach a model with; the
    key comes from :func:`endpoint_key`. ``options`` go to :class:`OpenAIChat`."""
    backend = OpenAIChat(base_url or DEFAULT_BASE_URL, model, api_key=api_key, **options)
    return backend if cache is None else CachedChat(backend, cache)
