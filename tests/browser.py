"""A real headless Chromium for page tests: the DOM after the page's scripts ran, and screenshots.

CI installs Debian's ``chromium-headless-shell`` (see .ci/run); tests that need it skip only
where no Chromium can be found."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
#: the machine's network is closed: no background traffic, no first-run work
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def chromium() -> str | None:
    return next((path for path in map(shutil.which, CANDIDATES) if path), None)


def _run(url: str, *extra: str) -> str:
    binary = chromium()
    assert binary, "no Chromium found"
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000", *extra, url],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dump_dom(page: Path, fragment: str = "") -> str:
    """The page's DOM after its scripts ran (virtual time lets async work finish first)."""
    return _run(page.resolve().as_uri() + fragment, "--dump-dom")


def screenshot(page: Path, out: Path, fragment: str = "", size: str = "1400,1600") -> Path:
    """What the viewport shows once the page is ready (and has scrolled to what a link names)."""
    width, height = map(int, size.split(","))
    with Page((width, height)) as browser:
        return browser.open(page, fragment).screenshot(out)


class Page:
    """One page in a real headless Chromium driven over the DevTools protocol (a pipe, no port):
    open a URL at a window size, wait for the page's scripts, read values from it, take a
    screenshot of what the viewport shows (after the page scrolled itself, unlike --screenshot)."""

    def __init__(self, size: tuple[int, int] = (1400, 900)):
        import os

        binary = chromium()
        assert binary, "no Chromium found"
        self._profile = tempfile.mkdtemp(prefix="chromium-")
        to_browser, self._send = os.pipe()
        self._receive, from_browser = os.pipe()

        def pipes() -> None:     # the browser reads fd 3 and writes fd 4
            high_in, high_out = os.dup(to_browser) + 100, os.dup(from_browser) + 100
            os.dup2(to_browser, high_in)
            os.dup2(from_browser, high_out)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self._process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self._profile}", "--remote-debugging-pipe",
             f"--window-size={size[0]},{size[1]}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=pipes, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next, self._session = b"", 0, None
        target = next(t for t in self._call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self._session = self._call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        self._call("Emulation.setDeviceMetricsOverride", width=size[0], height=size[1], deviceScaleFactor=1, mobile=False)

    def _call(self, method: str, **params):
        import json
        import os

        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if self._session and not method.startswith("Target."):
            message["sessionId"] = self._session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._receive, 1 << 20)
                assert chunk, "Chromium closed the DevTools pipe"
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next:
                assert "error" not in reply, reply["error"]
                return reply.get("result", {})

    def open(self, page: Path, fragment: str = "", ready: str = "document.body && document.body.dataset.ready === 'true'",
             timeout: float = 30.0) -> "Page":
        import time

        self.evaluate("document.body && delete document.body.dataset.ready")    # a new fragment keeps the document
        self._call("Page.navigate", url=page.resolve().as_uri() + fragment)
        deadline = time.monotonic() + timeout
        while not self.evaluate(ready):
            assert time.monotonic() < deadline, f"{page}{fragment}: not ready after {timeout} s"
            time.sleep(0.05)
        time.sleep(0.2)     # let layout and scrolling settle
        return self

    def evaluate(self, expression: str):
        result = self._call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def screenshot(self, out: Path) -> Path:
        import base64

        out.write_bytes(base64.b64decode(self._call("Page.captureScreenshot", format="png")["data"]))
        return out

    def close(self) -> None:
        import os

        self._process.kill()
        self._process.wait()
        os.close(self._send)
        os.close(self._receive)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> "Page":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
