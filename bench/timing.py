"""Timing helpers shared by the bench scripts: repeat a call, print the median."""
from __future__ import annotations

import statistics
import time


def timed(fn, runs: int) -> list[float]:
    """Wall-clock seconds of ``runs`` calls of ``fn``."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def report(label: str, times: list[float]) -> None:
    print(f"{label:<52} median {statistics.median(times):8.3f} s   "
          f"(min {min(times):.3f}, max {max(times):.3f}, n={len(times)})")
