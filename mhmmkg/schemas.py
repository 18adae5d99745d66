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


ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default"})


@cache
def validator(name: str) -> Draft202012Validator:
    """The validator of schema ``name``, built once, with every ``$ref`` resolved beforehand.

    Resolving a ``$ref`` through the registry on every validated item costs far more than the
    check itself (most of a large build's time); inlining the referenced subschemas once gives
    the same errors at the same places.
    """
    schema = load_schema(name)
    registry = _registry()
    inlined = _inline(schema, registry.resolver(base_uri=schema["$id"]), ())
    return Draft202012Validator(inlined, registry=registry)


def _inline(node: Any, resolver, active: tuple[int, ...]) -> Any:
    """``node`` with each ``$ref`` replaced by the subschema it names (a cycle keeps its ``$ref``)."""
    if isinstance(node, list):
        return [_inline(item, resolver, active) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        resolved = resolver.lookup(ref)
        key = id(resolved.contents)
        if key not in active:
            target = _inline(resolved.contents, resolved.resolver, (*active, key))
            rest = {k: _inline(v, resolver, active) for k, v in node.items() if k != "$ref"}
            if not set(rest) - ANNOTATIONS:
                return target
            return {**rest, "allOf": [target, *rest.get("allOf", [])]}
    return {k: v if k in ("enum", "const") else _inline(v, resolver, active) for k, v in node.items()}


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
