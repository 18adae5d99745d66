"""What ``datasets`` makes of the features of each config, recorded, so that a build need not
import ``datasets`` (about 0.4 s of every build, whatever its size).

A build takes two things from ``datasets``: each config's Arrow schema
(``FEATURES[config].arrow_schema``, whose ``huggingface`` metadata ``load_dataset`` reads back)
and the config's ``dataset_info`` entry in the card (``DatasetInfo._to_yaml_dict``). Both follow
from the installed ``datasets`` and ``pyarrow`` and from ``features.py`` alone.
``recorded_features.json`` holds them as computed under one such triple, and they are taken from
there only when all three are those of this process (the two versions as the installed
packages' metadata gives them, ``features.py`` by its SHA-256); otherwise ``datasets`` computes
them, as it always did. After an upgrade, refresh the record (the build stays correct without):

    python -m mhmmkg.dataset.recorded_features --write
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
from functools import cache
from pathlib import Path

import pyarrow as pa

from .configs import CONFIGS

RECORD = Path(__file__).with_name("recorded_features.json")
FEATURES_MODULE = Path(__file__).with_name("features.py")
#: the sizes a recorded ``dataset_info`` entry is made with, each replaced by the real one
_NUM_BYTES, _NUM_EXAMPLES, _DOWNLOAD_SIZE, _DATASET_SIZE = -101, -102, -103, -104


def arrow_schema(config: str) -> pa.Schema:
    """``FEATURES[config].arrow_schema``."""
    record = _matching_record()
    if record is None:
        from .features import FEATURES

        return FEATURES[config].arrow_schema
    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(record["arrow_schemas"][config])))


def dataset_info_yaml(config: str, num_bytes: int, num_examples: int, download_size: int,
                      dataset_size: int) -> dict:
    """The card's ``dataset_info`` entry of ``config``, whose one split has these sizes:
    ``DatasetInfo(features=FEATURES[config], ...)._to_yaml_dict()``."""
    record = _matching_record()
    if record is None:
        return _computed_info_yaml(config, num_bytes, num_examples, download_size, dataset_size)
    sizes = {_NUM_BYTES: num_bytes, _NUM_EXAMPLES: num_examples, _DOWNLOAD_SIZE: download_size,
             _DATASET_SIZE: dataset_size}
    return _filled(record["dataset_info"][config], sizes)


def _filled(value, sizes: dict[int, int]):
    """``value`` (JSON) with each whole number that is a key of ``sizes`` replaced by its size."""
    if isinstance(value, dict):
        return {k: _filled(v, sizes) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, sizes) for v in value]
    if type(value) is int and value in sizes:
        return sizes[value]
    return value


def _computed_info_yaml(config: str, num_bytes: int, num_examples: int, download_size: int,
                        dataset_size: int) -> dict:
    from datasets import DatasetInfo, SplitDict, SplitInfo

    from .features import FEATURES

    splits = SplitDict()
    splits.add(SplitInfo(name=CONFIGS[config], num_bytes=num_bytes, num_examples=num_examples))
    info = DatasetInfo(features=FEATURES[config], config_name=config, splits=splits,
                       download_size=download_size, dataset_size=dataset_size)
    return info._to_yaml_dict()


def installed_key() -> dict[str, str] | None:
    """The versions of ``datasets`` and ``pyarrow`` installed and the SHA-256 of ``features.py``;
    None when one cannot be told."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {"datasets": version("datasets"), "pyarrow": version("pyarrow"),
                "features_sha256": hashlib.sha256(FEATURES_MODULE.read_bytes()).hexdigest()}
    except (PackageNotFoundError, OSError):
        return None


@cache
def _matching_record() -> dict | None:
    """The record, when it was made under exactly what this process has installed; else None."""
    key = installed_key()
    try:
        record = json.loads(RECORD.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if key is None or not isinstance(record, dict) or record.get("key") != key:
        return None
    return record


def computed_record() -> dict:
    """The record of what ``datasets`` installed here makes of the features (imports ``datasets``)."""
    from .features import FEATURES

    return {
        "key": installed_key(),
        "arrow_schemas": {config: base64.b64encode(FEATURES[config].arrow_schema.serialize().to_pybytes()).decode()
                          for config in CONFIGS},
        "dataset_info": {config: _computed_info_yaml(config, _NUM_BYTES, _NUM_EXAMPLES, _DOWNLOAD_SIZE, _DATASET_SIZE)
                         for config in CONFIGS},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mhmmkg.dataset.recorded_features",
        description="Check (default) or refresh (--write) recorded_features.json, the Arrow schemas and card "
                    "entries that datasets makes of the dataset's features, which spare a build importing "
                    "datasets. A record made under other versions of datasets or pyarrow, or another "
                    "features.py, is not used (the build then imports datasets, and its output is the same).")
    parser.add_argument("--write", action="store_true", help="write the record for the installed versions")
    args = parser.parse_args(argv)
    record = computed_record()
    if args.write:
        RECORD.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {RECORD} (datasets {record['key']['datasets']}, pyarrow {record['key']['pyarrow']})")
        return 0
    _matching_record.cache_clear()
    if _matching_record() == record:
        print(f"{RECORD.name} is current (datasets {record['key']['datasets']}, pyarrow {record['key']['pyarrow']})")
        return 0
    print(f"{RECORD.name} does not match the installed versions or features.py: builds import datasets; "
          "refresh it with --write")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
