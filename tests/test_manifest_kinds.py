"""One manifest format with a ``kind``: every manifest we write declares what it describes, readers
recognise it by that kind, and manifests written before kinds existed are still recognised by shape."""
from __future__ import annotations

import json
import shutil

import pytest

from mhmmkg.baseline.options import RunOptions
from mhmmkg.baseline.runner import execute
from mhmmkg.errors import UserError
from mhmmkg.interop.exports import write_neo4j
from mhmmkg.dataset.loading import load_graph
from mhmmkg.dataset.manifest import build_fingerprint, kind_of, verified_files
from mhmmkg.files.outputs import claim_output_folder, manifest_kind


def read(folder):
    return json.loads((folder / "manifest.json").read_text())


def drop_kind(folder):
    """The folder's manifest as the code before kinds wrote it."""
    manifest = read(folder)
    del manifest["kind"]
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def test_every_manifest_we_write_declares_its_kind(tiny_dataset, tmp_path):
    assert read(tiny_dataset)["kind"] == "dataset" and manifest_kind(tiny_dataset) == "dataset"
    execute(RunOptions(setting="know", out=tmp_path / "run", dataset=str(tiny_dataset), quiet=True, no_cache=True))
    assert read(tmp_path / "run")["kind"] == "run" and manifest_kind(tmp_path / "run") == "run"
    write_neo4j(load_graph(tiny_dataset), tmp_path / "neo4j")
    assert read(tmp_path / "neo4j")["kind"] == "neo4j" and manifest_kind(tmp_path / "neo4j") == "neo4j"


def test_kind_less_manifests_are_recognised_by_shape(tiny_dataset, tmp_path):
    dataset = tmp_path / "ds"
    shutil.copytree(tiny_dataset, dataset)
    old = drop_kind(dataset)
    assert kind_of(old) == "dataset" and manifest_kind(dataset) == "dataset"
    assert build_fingerprint(dataset) == old["fingerprint"] and "manifest.json" in verified_files(dataset)
    assert claim_output_folder(dataset, "dataset") == dataset
    execute(RunOptions(setting="know", out=tmp_path / "run", dataset=str(dataset), quiet=True, no_cache=True))
    old_run = drop_kind(tmp_path / "run")
    assert kind_of(old_run) == "run"
    execute(RunOptions(setting="know", out=tmp_path / "run", dataset=str(dataset), quiet=True, no_cache=True,
                       resume=True))
    assert read(tmp_path / "run") == {**old_run, "kind": "run"}


def test_a_kind_its_shape_contradicts_is_not_ours(tiny_dataset, tmp_path):
    dataset = tmp_path / "ds"
    shutil.copytree(tiny_dataset, dataset)
    manifest = read(dataset)
    assert kind_of({**manifest, "kind": "neo4j"}) is None and kind_of({**manifest, "kind": "run"}) is None
    (dataset / "manifest.json").write_text(json.dumps({**manifest, "kind": "demo"}))
    assert manifest_kind(dataset) is None and build_fingerprint(dataset) is None
    with pytest.raises(UserError, match="not a build manifest"):
        verified_files(dataset)
    execute(RunOptions(setting="know", out=tmp_path / "run", dataset=str(tiny_dataset), quiet=True, no_cache=True))
    run = read(tmp_path / "run")
    (tmp_path / "run" / "manifest.json").write_text(json.dumps({**run, "kind": "dataset"}))
    with pytest.raises(UserError, match="not a run manifest"):
        execute(RunOptions(setting="know", out=tmp_path / "run", dataset=str(tiny_dataset), quiet=True,
                           no_cache=True, resume=True))
