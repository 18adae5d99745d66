"""One dataset fingerprint: what a run records is what the evaluator computes, for a built folder
and for a sources folder alike."""
from __future__ import annotations

import copy
import json

from conftest import TINY_QUERIES, write_json, write_tiny_sources

from mhmmkg.baseline.options import RunOptions
from mhmmkg.baseline.runner import execute
from mhmmkg.eval import Evaluator
from mhmmkg.dataset.manifest import build_fingerprint, dataset_fingerprint


def run_on(dataset, out):
    return execute(RunOptions(setting="know", out=out, dataset=str(dataset), quiet=True, no_cache=True))


def test_a_run_on_a_built_folder_records_its_build(tiny_dataset, tmp_path):
    outcome = run_on(tiny_dataset, tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "submission.meta.json").read_text())
    assert meta["dataset_fingerprint"] == build_fingerprint(tiny_dataset) == dataset_fingerprint(tiny_dataset)
    assert not [w for w in Evaluator(tiny_dataset).eval(outcome.submission)["warnings"] if "dataset build" in w]


def test_a_run_on_sources_is_checked_by_the_evaluator(tmp_path):
    src = write_tiny_sources(tmp_path / "src")
    outcome = run_on(src, tmp_path / "run")
    recorded = json.loads((tmp_path / "run" / "submission.meta.json").read_text())["dataset_fingerprint"]
    assert recorded.startswith("content-") and build_fingerprint(src) is None

    def build_notes(dataset):
        return [w for w in Evaluator(dataset).eval(outcome.submission)["warnings"] if "dataset build" in w]

    assert build_notes(src) == []
    other = write_tiny_sources(tmp_path / "other")
    queries = copy.deepcopy(TINY_QUERIES)
    queries["queries"][0]["answer"] = "Thunder Wolf of the North"
    write_json(other / "queries" / "wolf.json", queries)
    notes = build_notes(other)
    assert len(notes) == 1 and recorded[:12] in notes[0]
