"""The cyclic garbage collector, run rarely while a verb makes many lasting objects."""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def fewer_collections(*, off: bool = False) -> Iterator[None]:
    """The cyclic collector run rarely (``off``: not at all), its state restored after.

    Building, evaluating and reporting make millions of lasting objects (parsed JSON, records,
    the graph, the queries, each run's scores) and few reference cycles; at the default
    thresholds the collector's passes over them take about a fifth of the time at scale. The
    build makes no cyclic garbage and turns it off; the report keeps it on, rarely, because
    turning it off there held about 12 MiB more at 100x."""
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    if off:
        gc.disable()
    else:
        gc.set_threshold(100_000, 20, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()
