"""Build and load speed of the default dataset, and keyframe extraction throughput.

    .venv/bin/python bench/bench_build.py [--runs 5] [--src data]

Prints medians over --runs runs: `mhmmkg build` (in-process), `datasets.load_dataset` of each
config (fresh cache each run), `mhmmkg.load_graph`, and keyframe extraction on generated
720p clips (frames per second decoded and keyframes per second written).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from timing import report, timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", default=str(ROOT / "data"))
    args = parser.parse_args()

    import datasets
    from mhmmkg import load_graph, load_queries
    from mhmmkg.builders.build import build_dataset
    from mhmmkg.builders.media import extract_keyframes
    from media_factory import make_video

    datasets.disable_progress_bars()
    work = Path(tempfile.mkdtemp(prefix="mhmmkg-bench-"))
    out = work / "mh-mmkg"
    report("build default dataset", timed(lambda: build_dataset(args.src, out, quiet=True), args.runs))

    for config, split in (("queries", "test"), ("graph", "kg"), ("attributes", "kg")):
        def load(config=config, split=split):
            cache = tempfile.mkdtemp(dir=work)
            datasets.load_dataset(str(out), config, split=split, cache_dir=cache)
        report(f"load_dataset {config} (cold cache)", timed(load, args.runs))
        datasets.load_dataset(str(out), config, split=split)
        report(f"load_dataset {config} (warm cache)",
               timed(lambda config=config, split=split: datasets.load_dataset(str(out), config, split=split), args.runs))
    report("mhmmkg.load_graph (warm cache)", timed(lambda: load_graph(out), args.runs))
    report("mhmmkg.load_queries (warm cache)", timed(lambda: load_queries(out), args.runs))

    clip = make_video(work / "clip720.mp4", seconds=6, fps=30, size=(1280, 720))
    frames = 6 * 30
    times = timed(lambda: extract_keyframes(clip, "bench"), args.runs)
    report("keyframes, 6 s 720p clip, sampled (10)", times)
    print(f"{'  -> decoded frames per second':<52} {frames / statistics.median(times):8.1f}")
    print(f"{'  -> keyframes written per second':<52} {10 / statistics.median(times):8.1f}")


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
