"""A build that takes the features' Arrow schemas and card entries from the record
(``mhmmkg.dataset.recorded_features``) writes exactly the folder a build computing them with
``datasets`` writes, never uses a record made under other versions, and imports no ``datasets``."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mhmmkg.dataset import recorded_features
from mhmmkg.dataset.configs import CONFIGS

DATA = Path(__file__).resolve().parent.parent / "data"


def _folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_shipped_record_is_what_the_installed_datasets_makes_or_is_not_used():
    recorded_features._matching_record.cache_clear()
    record = json.loads(recorded_features.RECORD.read_text("utf-8"))
    if record["key"] == recorded_features.installed_key():
        assert recorded_features._matching_record() == recorded_features.computed_record()
    else:
        assert recorded_features._matching_record() is None


def test_forms_from_the_record_equal_the_forms_datasets_computes(monkeypatch):
    from mhmmkg.dataset.features import FEATURES

    recorded_features._matching_record.cache_clear()
    monkeypatch.setattr(recorded_features, "_matching_record", lambda: recorded_features.computed_record())
    for config in CONFIGS:
        recorded = recorded_features.arrow_schema(config)
        assert recorded.equals(FEATURES[config].arrow_schema, check_metadata=True)
        assert recorded.metadata == FEATURES[config].arrow_schema.metadata
        for sizes in [(0, 0, 0, 0), (123456789, 22, 98765, 123456789), (101, 102, 103, 104)]:
            assert recorded_features.dataset_info_yaml(config, *sizes) == \
                recorded_features._computed_info_yaml(config, *sizes)


def test_a_record_made_under_other_versions_or_features_is_not_used(tmp_path, monkeypatch):
    record = recorded_features.computed_record()
    for field, value in [("datasets", "0.0.1"), ("pyarrow", "1.0"), ("features_sha256", "0" * 64)]:
        path = tmp_path / f"{field}.json"
        path.write_text(json.dumps({**record, "key": {**record["key"], field: value}}), encoding="utf-8")
        monkeypatch.setattr(recorded_features, "RECORD", path)
        recorded_features._matching_record.cache_clear()
        assert recorded_features._matching_record() is None
    monkeypatch.setattr(recorded_features, "RECORD", tmp_path / "missing.json")
    recorded_features._matching_record.cache_clear()
    assert recorded_features._matching_record() is None
    monkeypatch.undo()
    recorded_features._matching_record.cache_clear()


def test_build_from_the_record_equals_the_build_computing_with_datasets(tmp_path, monkeypatch):
    from mhmmkg.builders.build import build_dataset

    recorded_features._matching_record.cache_clear()
    monkeypatch.setattr(recorded_features, "_matching_record", lambda: recorded_features.computed_record())
    fast = build_dataset(DATA, tmp_path / "fast", quiet=True)
    monkeypatch.setattr(recorded_features, "_matching_record", lambda: None)
    slow = build_dataset(DATA, tmp_path / "slow", quiet=True)
    assert fast.fingerprint == slow.fingerprint
    assert _folder_bytes(tmp_path / "fast") == _folder_bytes(tmp_path / "slow")


def test_a_build_with_a_current_record_imports_no_datasets(tmp_path):
    recorded_features._matching_record.cache_clear()
    if recorded_features._matching_record() is None:
        pytest.skip("the record was made under other versions: builds import datasets (tested above)")
    code = ("import sys\nfrom mhmmkg.builders.build import build_dataset\n"
            f"build_dataset({str(DATA)!r}, {str(tmp_path / 'out')!r}, quiet=True)\n"
            "print(sorted(m for m in sys.modules if m == 'datasets' or m.startswith('datasets.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert (tmp_path / "out" / "manifest.json").is_file()
