"""A time limit for code run in-process: ``with deadline(5): main([...])`` raises Overtime in
the main thread when the block runs longer (a hang is a failure, never a stuck suite)."""
from __future__ import annotations

import signal
from contextlib import contextmanager


class Overtime(BaseException):
    """The block ran past its deadline (a BaseException, so no ``except Exception`` swallows it)."""


@contextmanager
def deadline(seconds: float):
    def expire(signum, frame):
        raise Overtime(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
