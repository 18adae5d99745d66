"""Access to the JSON Schemas shipped in ``mhmmkg.schema`` and validation against them."""
from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from .errors import Problem, json_pointer

SCHEMA_FILES = ("common", "monster", "shared", "queries", "submission")


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("mhmmkg.schema").joinpath(f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)


@cache
def _registry() -> Registry:
    resources_ = []
    for name in SCHEMA_FILES:
        try:
            schema = load_schema(name)
        except FileNotFoundError:
            continue
        resources_.append((f"{name}.schema.json", Resource.from_contents(schema)))
        resources_.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources_)


@cache
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name), registry=_registry())


def schema_problems(name: str, document: Any, file: str, prefix: tuple = ()) -> list[Problem]:
    """Every violation of schema ``name`` in ``document``, each as a Problem at its JSON pointer."""
    problems = []
    for error in validator(name).iter_errors(document):
        leaf = _deepest(error)
        problems.append(Problem(file, json_pointer(*prefix, *leaf.absolute_path), leaf.message))
    return problems


def _deepest(error):
    """For allOf/anyOf failures the useful message is in the deepest sub-error."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error
