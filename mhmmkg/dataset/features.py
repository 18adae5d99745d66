"""Columns of the built dataset: one ``datasets.Features`` per config, the schema of its Parquet files.

The builder writes tables with ``FEATURES[config].arrow_schema`` and declares the same features in
the dataset card's YAML, so the two cannot drift apart.
"""
from __future__ import annotations

from datasets import Features, Image, Value

try:
    from datasets import List
except ImportError:  # datasets 3.x: a list feature is a Python list holding its item feature
    def List(feature):  # noqa: N802 - stands in for the datasets>=4 class of that name
        return [feature]

from .configs import CONFIGS, DEFAULT_CONFIG  # noqa: E402,F401 - the configs, named here too

_string = Value("string")
_provenance_columns = {
    "sources": List(_string),
    "unverified": Value("bool"),
}
_media_columns = {
    "has_media": Value("bool"),
    "images": List(Image()),
    "keyframes": List(Image()),
    "keyframe_source": _string,
    "video": Value("binary"),
}

FEATURES: dict[str, Features] = {
    "graph": Features({
        "id": _string,
        "head": _string,
        "type": _string,
        "label": _string,
        "condition": _string,
        "info": _string,
        "tail": _string,
        "head_name": _string,
        "head_type": _string,
        "tail_name": _string,
        "tail_type": _string,
        "monster": _string,
        **_provenance_columns,
    }),
    "attributes": Features({
        "id": _string,
        "name": _string,
        "type": _string,
        "monster": _string,
        "aliases": List(_string),
        "text": _string,
        "caption": _string,
        "name_origin": _string,
        **_provenance_columns,
        **_media_columns,
    }),
    "queries": Features({
        "id": _string,
        "subtask": Value("int32"),
        "subtask_name": _string,
        "question": _string,
        "monster": _string,
        "extra": _string,
        "perception": _string,
        "answer": _string,
        "key": {
            "kind": _string,
            "entities": List(_string),
            "polarity": _string,
            "nuggets": List(List(_string)),
            "rivals": List(_string),
            "origin": _string,
        },
        "paths": List(List(_string)),
        "hops": Value("int32"),
        **_media_columns,
    }),
}
