"""Access to the JSON Schemas shipped in ``mhmmkg.schema`` and validation against them.

Validation has two stages. Each schema is compiled once into a plain Python predicate that
answers "valid?" for the keywords our schemas use, about fifty times faster than ``jsonschema``
(which dominated the time of a large build). Only a document the predicate does not accept goes
through ``jsonschema``, which finds every error with its place and message; so the errors
reported are exactly ``jsonschema``'s, and a valid document never pays for them. The predicate
may be stricter than the schema (it then merely defers to ``jsonschema``), never laxer: the
tests check the two agree.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

from .errors import Problem, json_pointer

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEMA_FILES = ("common", "monster", "shared", "queries", "submission")
ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default", "$schema", "$id", "$defs"})


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("mhmmkg.schema").joinpath(f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)


@cache
def _schemas_by_uri() -> dict[str, dict[str, Any]]:
    out = {}
    for name in SCHEMA_FILES:
        try:
            schema = load_schema(name)
        except FileNotFoundError:
            continue
        out[schema["$id"]] = schema
    return out


def _registry():
    from referencing import Registry, Resource

    by_uri = _schemas_by_uri()
    pairs = [(uri.rsplit("/", 1)[-1], Resource.from_contents(s)) for uri, s in by_uri.items()]
    pairs += [(uri, Resource.from_contents(s)) for uri, s in by_uri.items()]
    return Registry().with_resources(pairs)


@cache
def inlined_schema(name: str, definition: str | None = None) -> dict[str, Any]:
    """Schema ``name`` (or its ``$defs/definition``) with every ``$ref`` replaced by the
    subschema it names, resolved once (a cycle would keep its ``$ref``)."""
    schema = load_schema(name)
    node = schema["$defs"][definition] if definition else schema
    return _inline(node, schema["$id"], ())


def _resolve(ref: str, base: str) -> tuple[Any, str]:
    uri, fragment = urldefrag(urljoin(base, ref))
    node: Any = _schemas_by_uri()[uri]
    for part in filter(None, fragment.split("/")):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, uri


def _inline(node: Any, base: str, active: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, base, active) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and urljoin(base, ref) not in active:
        target, target_base = _resolve(ref, base)
        target = _inline(target, target_base, (*active, urljoin(base, ref)))
        rest = {k: _inline(v, base, active) for k, v in node.items() if k != "$ref"}
        if not set(rest) - ANNOTATIONS:
            return target
        return {**rest, "allOf": [target, *rest.get("allOf", [])]}
    return {k: v if k in ("enum", "const") else _inline(v, base, active) for k, v in node.items()}


@cache
def validator(name: str) -> Draft202012Validator:
    """The ``jsonschema`` validator of schema ``name``, built once on its inlined schema."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(inlined_schema(name), registry=_registry())


def schema_problems(name: str, document: Any, file: str, prefix: tuple = (), *,
                    definition: str | None = None) -> list[Problem]:
    """Every violation of schema ``name`` (or of its ``$defs/definition``) in ``document``,
    each as a Problem at its JSON pointer."""
    quick = quick_check(name, definition)
    if quick is not None and quick(document):
        return []
    check = validator(name)
    if definition:
        check = check.evolve(schema=inlined_schema(name, definition))
    problems = []
    for error in check.iter_errors(document):
        leaf = _deepest(error)
        problems.append(Problem(file, json_pointer(*prefix, *leaf.absolute_path), _message(leaf)))
    return problems


def _message(error) -> str:
    if error.validator == "pattern" and error.validator_value == r"\S":
        return f"{error.instance!r} is blank (white space only); give a text"
    return error.message


def _deepest(error):
    """For allOf/anyOf failures the useful message is in the deepest sub-error."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


# ---------------------------------------------------------------------------------------------
# The compiled predicate

Check = Callable[[Any], bool]


class _Unsupported(Exception):
    """A keyword the compiler does not know: that schema is always checked by jsonschema."""


@cache
def quick_check(name: str, definition: str | None = None) -> Check | None:
    """A predicate that is True only for documents valid against the schema; None when the
    schema uses a keyword the compiler does not handle."""
    try:
        return _compile(inlined_schema(name, definition))
    except _Unsupported:
        return None


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    "string": lambda x: isinstance(x, str),
    "null": lambda x: x is None,
    "boolean": lambda x: isinstance(x, bool),
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "number": _is_number,
    "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),   # 1.0 defers to jsonschema
}


def _compile(schema: Any) -> Check:
    if schema is True or schema == {}:
        return lambda x: True
    if schema is False:
        return lambda x: False
    if not isinstance(schema, dict):
        raise _Unsupported(repr(schema))
    if schema.get("type") == "object" and "patternProperties" not in schema:
        return _object(schema)
    checks = [_keyword(key, value, schema) for key, value in schema.items() if key not in ANNOTATIONS]
    checks = tuple(c for c in checks if c is not None)
    if len(checks) == 1:
        return checks[0]

    def every(x):
        for check in checks:
            if not check(x):
                return False
        return True
    return every


_OBJECT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties"})


def _object(schema: dict) -> Check:
    """An object schema's type, properties, required and additionalProperties checked in one
    function (one call per object instead of one per keyword); other keywords as usual."""
    props = {k: _compile(v) for k, v in schema.get("properties", {}).items()}
    required = frozenset(schema.get("required", ()))
    extra = schema.get("additionalProperties", True)
    closed = extra is False
    extra_check = None if extra is True or closed else _compile(extra)
    rest = _compile({k: v for k, v in schema.items() if k not in _OBJECT_KEYWORDS})

    def obj(x):
        if not isinstance(x, dict) or not x.keys() >= required:
            return False
        for k, v in x.items():
            check = props.get(k)
            if check is None:
                if closed or (extra_check is not None and not extra_check(v)):
                    return False
            elif not check(v):
                return False
        return rest(x)
    return obj


def _keyword(key: str, value: Any, schema: dict) -> Check | None:
    if key == "type":
        tests = [_TYPES[t] for t in ([value] if isinstance(value, str) else value)]
        return tests[0] if len(tests) == 1 else (lambda x: any(t(x) for t in tests))
    if key == "properties":
        props = [(k, _compile(v)) for k, v in value.items()]

        def properties(x):
            if isinstance(x, dict):
                for k, check in props:
                    if k in x and not check(x[k]):
                        return False
            return True
        return properties
    if key == "additionalProperties":
        if "patternProperties" in schema:
            raise _Unsupported(key)
        known = frozenset(schema.get("properties", ()))
        if value is False:
            return lambda x: not isinstance(x, dict) or known.issuperset(x)
        extra = _compile(value)

        def additional(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k not in known and not extra(v):
                        return False
            return True
        return additional
    if key == "required":
        required = frozenset(value)
        return lambda x: not isinstance(x, dict) or x.keys() >= required
    if key == "dependentRequired":
        pairs = list(value.items())
        return lambda x: not isinstance(x, dict) or all(d in x for k, deps in pairs if k in x for d in deps)
    if key == "minProperties":
        return lambda x: not isinstance(x, dict) or len(x) >= value
    if key == "items":
        if "prefixItems" in schema:
            raise _Unsupported(key)
        item = _compile(value)

        def items(x):
            if isinstance(x, list):
                for v in x:
                    if not item(v):
                        return False
            return True
        return items
    if key == "minItems":
        return lambda x: not isinstance(x, list) or len(x) >= value
    if key == "maxItems":
        return lambda x: not isinstance(x, list) or len(x) <= value
    if key == "uniqueItems":
        if not value:
            return None
        return lambda x: not isinstance(x, list) or (all(isinstance(v, str) for v in x) and len(set(x)) == len(x))
    if key == "minLength":
        return lambda x: not isinstance(x, str) or len(x) >= value
    if key == "pattern":
        search = re.compile(value).search
        return lambda x: not isinstance(x, str) or search(x) is not None
    if key == "minimum":
        return lambda x: not _is_number(x) or x >= value
    if key == "maximum":
        return lambda x: not _is_number(x) or x <= value
    if key == "enum":
        if not all(isinstance(v, str) for v in value):
            raise _Unsupported(key)
        allowed = frozenset(value)
        return lambda x: isinstance(x, str) and x in allowed
    if key == "allOf":
        parts = [_compile(v) for v in value]

        def all_of(x):
            for part in parts:
                if not part(x):
                    return False
            return True
        return all_of
    if key == "anyOf":
        parts = [_compile(v) for v in value]

        def any_of(x):
            for part in parts:
                if part(x):
                    return True
            return False
        return any_of
    if key == "not":
        negated = _compile(value)
        return lambda x: not negated(x)
    if key == "const":
        if not isinstance(value, str):
            raise _Unsupported(key)
        return lambda x: isinstance(x, str) and x == value
    if key == "if":
        condition = _compile(value)
        then, otherwise = _compile(schema.get("then", True)), _compile(schema.get("else", True))
        return lambda x: then(x) if condition(x) else otherwise(x)
    if key in ("then", "else"):
        return None
    raise _Unsupported(key)
