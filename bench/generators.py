"""The benchmark generators by name, for the ``--generator`` option of bench_scale.py and bench_report.py.

clones: ``synthetic.py``, data/'s 22 monsters copied N times under new ids (the default);
random: ``synthetic_random.py``, monsters drawn at random with skewed sizes and coined words.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import synthetic
import synthetic_random

NAMES = ("clones", "random")
HELP = ("the KG to measure on: 'clones' (default), data/'s monsters copied N times (synthetic.py); "
        "'random', monsters drawn at random with skewed sizes and coined words (synthetic_random.py, seed 0)")


def generate(name: str, out: Path, scale: int) -> dict[str, int]:
    """Write the sources folder of generator ``name`` at ``scale`` into ``out`` (emptied first, so
    that no file of another generator's run stays behind); return its counts."""
    shutil.rmtree(out, ignore_errors=True)
    if name == "clones":
        return synthetic.generate(synthetic.ROOT / "data", out, scale)
    return synthetic_random.generate(out, scale)


def drawn_monster(name: str) -> str:
    """A monster that generator ``name`` makes at every scale, the same one each time (for ``mhmmkg draw``)."""
    return "zinogre" if name == "clones" else synthetic_random.first_monster()
