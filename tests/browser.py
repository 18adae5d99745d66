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
    _run(page.resolve().as_uri() + fragment, f"--screenshot={out}", f"--window-size={size}")
    return out
