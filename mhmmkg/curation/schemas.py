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
import pkgutil
import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

from ..errors import Problem, json_pointer
from ..files.jsontext import MAX_DEPTH

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEMA_FILES = ("common", "monster", "shared", "queries", "submission")
ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default", "$schema", "$id", "$defs"})


@cache
def load_schema(name: str) -> dict[str, Any]:
    """A shipped schema, read by its package's loader (``pkgutil.get_data``: ``importlib.resources``
    and what it imports cost about 4 ms of each command that checks a file)."""
    return json.loads(pkgutil.get_data("mhmmkg.schema", f"{name}.schema.json").decode("utf-8"))


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


def object_keys(name: str, document: Any) -> int | None:
    """How many keys the objects of ``document`` hold in all, when it is valid against schema
    ``name`` and the schema checks every value of every document it accepts, no deeper than
    MAX_DEPTH levels; None otherwise (invalid, or a schema that leaves some value unchecked).

    The count comes from the walk of the generated check (each object counted once), so a
    reader that must count keys (:func:`mhmmkg.files.jsontext.loads_strict`) need not walk the
    document a second time."""
    check = _counting_check(name)
    if check is None:
        return None
    keys = check(document)
    return keys if type(keys) is int else None


@cache
def _counting_check(name: str) -> Callable[[Any], int | bool] | None:
    """The generated check of schema ``name`` that returns the number of keys instead of True."""
    schema = inlined_schema(name)
    depth = _walked_depth(schema)
    if depth is None or depth >= MAX_DEPTH:
        return None
    try:
        return _compile(schema, counting=True)
    except _Unsupported:
        return None


_WALKERS = ("type", "properties", "additionalProperties", "items")


def _walked_depth(schema: Any) -> int | None:
    """The levels of objects and arrays inside each other in a document ``schema`` accepts, when
    the counting walk (see ``_Code.tests``) reaches every value of it; None when some value may
    go unchecked. A schema without a type or a walker continues in the first part of its allOf,
    as the walk does; an enum or const of strings accepts only a string."""
    if schema is False:
        return 0
    if not isinstance(schema, dict):
        return None
    if not any(key in schema for key in _WALKERS):
        if isinstance(schema.get("const"), str) or (isinstance(schema.get("enum"), list)
                                                    and all(isinstance(v, str) for v in schema["enum"])):
            return 0        # a string (the generated test of enum and const requires one)
        parts = schema.get("allOf")
        return _walked_depth(parts[0]) if isinstance(parts, list) and parts else None
    types = [schema["type"]] if isinstance(schema.get("type"), str) else schema.get("type")
    if not isinstance(types, list):
        return None
    below = [0]
    if "object" in types:
        rest = schema.get("additionalProperties", True)
        children = [*schema.get("properties", {}).values(), *([] if rest is False else [rest])]
        below += [_walked_depth(child) for child in children]
    if "array" in types:
        below.append(_walked_depth(schema["items"]) if "items" in schema else None)
    if None in below:
        return None
    return 1 + max(below) if "object" in types or "array" in types else 0


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _unique_strings(x: list) -> bool:
    return all(isinstance(v, str) for v in x) and len(set(x)) == len(x)


#: the test of each JSON type, as an expression of ``{x}``
_TYPES: dict[str, str] = {
    "string": "isinstance({x}, str)",
    "null": "{x} is None",
    "boolean": "isinstance({x}, bool)",
    "object": "isinstance({x}, dict)",
    "array": "isinstance({x}, list)",
    "number": "_is_number({x})",
    "integer": "(isinstance({x}, int) and not isinstance({x}, bool))",   # 1.0 defers to jsonschema
}
_PYTHON_TYPES = {"string": "str", "object": "dict", "array": "list"}


def _keyword_order(item: tuple[str, Any]) -> int:
    """"required" first (the properties it names are then read without a test), "uniqueItems"
    after "items" (whose test shows the items are strings)."""
    return {"required": 0, "uniqueItems": 2}.get(item[0], 1)


def _compile(schema: Any, counting: bool = False) -> Check:
    """The schema as the source of one Python function, compiled: each keyword becomes a test
    that returns False, with no call per keyword or per property (a large build checks
    millions of values). Subschemas that must answer on their own (anyOf, not, if) become
    functions of their own. ``counting``: the function returns, instead of True, how many keys
    the objects it walks hold."""
    code = _Code()
    entry = code.function(schema, counting)
    namespace: dict[str, Any] = {"_is_number": _is_number, "_unique_strings": _unique_strings, **code.constants}
    exec(compile("\n".join(code.lines), "<schema check>", "exec"), namespace)
    return namespace[entry]


#: per pattern, the texts found to match it: shared by every place and schema that uses the
#: pattern (an entity's id, a relation's head and tail, a query's path all name the same ids)
_MATCHED: dict[str, set[str]] = {}


class _Code:
    """Python source being written for a schema: function definitions and their constants."""

    def __init__(self):
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {}
        self.names = 0

    def name(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    def constant(self, value: Any) -> str:
        name = self.name("_k")
        self.constants[name] = value
        return name

    def function(self, schema: Any, counting: bool = False) -> str:
        """A function ``name(x) -> bool`` for ``schema`` (``counting``: ``-> int | False``, the
        number of keys of the objects walked); its name."""
        name = self.name("check")
        body: list[str] = ["    n = 0"] if counting else []
        self.tests(schema, "x", body, "    ", counting)
        self.lines += [f"def {name}(x):", *body, "    return n" if counting else "    return True", ""]
        return name

    def tests(self, schema: Any, x: str, out: list[str], pad: str, count: bool = False) -> None:
        """Statements that ``return False`` when ``x`` does not satisfy ``schema``.

        ``count``: add the number of keys of ``x``, when an object, to ``n``, and those of the
        values inside it. Each value is counted by one walk only: the schema's own, or, when
        the schema has neither a type nor a walker (``_WALKERS``), its first allOf part's."""
        if schema is True or schema == {}:
            return
        if schema is False:
            out.append(f"{pad}return False")
            return
        if not isinstance(schema, dict):
            raise _Unsupported(repr(schema))
        if "patternProperties" in schema:
            raise _Unsupported("patternProperties")
        known = None
        if isinstance(schema.get("type"), str):
            known = schema["type"]
            out.append(f"{pad}if not {_TYPES[known].format(x=x)}: return False")
        walks = any(key in schema for key in _WALKERS)
        if count and walks:
            types = [known] if known else schema.get("type") if isinstance(schema.get("type"), list) else ()
            if known == "object":
                out.append(f"{pad}n += len({x})")
            elif "object" in types:
                out.append(f"{pad}if isinstance({x}, dict): n += len({x})")
        for key, value in sorted(schema.items(), key=_keyword_order):
            if key not in ANNOTATIONS and not (key == "type" and known):
                self.keyword(key, value, schema, x, known, out, pad, count and (walks or key == "allOf"))

    def keyword(self, key: str, value: Any, schema: dict, x: str, known: str | None, out: list[str],
                pad: str, count: bool = False) -> None:
        def guard(json_type: str, test: str = "") -> str:
            """``x`` is of ``json_type`` (and ``test``); the type is not tested again when the
            schema's type already says so."""
            tests = ([] if known == json_type else [f"isinstance({x}, {_PYTHON_TYPES[json_type]})"]) + [test]
            return " and ".join(filter(None, tests)) or "True"

        if key == "type":
            tests = " or ".join(_TYPES[t].format(x=x) for t in value)
            out.append(f"{pad}if not ({tests}): return False")
        elif key == "properties":
            required = schema.get("required") if isinstance(schema.get("required"), list) else ()
            out.append(f"{pad}if {guard('object')}:")
            item = self.name("v")
            for prop, subschema in value.items():
                if prop in required:        # present: the test of "required" came first
                    inner: list[str] = []
                    self.tests(subschema, item, inner, pad + "    ", count)
                    out += [f"{pad}    {item} = {x}[{prop!r}]", *inner] if inner else []
                else:
                    inner = []
                    self.tests(subschema, item, inner, pad + "        ", count)
                    out += [f"{pad}    if {prop!r} in {x}:", f"{pad}        {item} = {x}[{prop!r}]", *inner] if inner else []
            out.append(f"{pad}    pass")
        elif key == "additionalProperties":
            names = self.constant(frozenset(schema.get("properties", ())))
            if value is False:
                out.append(f"{pad}if {guard('object', f'not {names}.issuperset({x})')}: return False")
            elif value is not True:
                key_name, item = self.name("k"), self.name("v")
                out.append(f"{pad}if {guard('object')}:")
                out.append(f"{pad}    for {key_name}, {item} in {x}.items():")
                out.append(f"{pad}        if {key_name} not in {names}:")
                inner = []
                self.tests(value, item, inner, pad + "            ", count)
                out += inner or [f"{pad}            pass"]
        elif key == "required":
            required = self.constant(frozenset(value))
            out.append(f"{pad}if {guard('object', f'not {x}.keys() >= {required}')}: return False")
        elif key == "dependentRequired":
            for prop, needed in value.items():
                needed_names = self.constant(frozenset(needed))
                out.append(f"{pad}if {guard('object', f'{prop!r} in {x} and not {x}.keys() >= {needed_names}')}: "
                           "return False")
        elif key == "minProperties":
            out.append(f"{pad}if {guard('object', f'len({x}) < {value!r}')}: return False")
        elif key == "items":
            if "prefixItems" in schema:
                raise _Unsupported(key)
            item = self.name("v")
            inner = []
            self.tests(value, item, inner, pad + "        ", count)
            if inner:
                out.append(f"{pad}if {guard('array')}:")
                out.append(f"{pad}    for {item} in {x}:")
                out += inner
        elif key == "minItems":
            out.append(f"{pad}if {guard('array', f'len({x}) < {value!r}')}: return False")
        elif key == "maxItems":
            out.append(f"{pad}if {guard('array', f'len({x}) > {value!r}')}: return False")
        elif key == "uniqueItems":
            items = schema.get("items")
            if value and isinstance(items, dict) and items.get("type") == "string" and "prefixItems" not in schema:
                out.append(f"{pad}if {guard('array', f'len(set({x})) != len({x})')}: return False")   # strings: checked
            elif value:
                out.append(f"{pad}if {guard('array', f'not _unique_strings({x})')}: return False")
        elif key == "minLength":
            out.append(f"{pad}if {guard('string', f'len({x}) < {value!r}')}: return False")
        elif key == "pattern":
            if value == r"\S":      # no character that is not white space: str.isspace's white space is re's
                out.append(f"{pad}if {guard('string', f'(not {x} or {x}.isspace())')}: return False")
            else:       # ids recur (every relation names two): each distinct text is searched once
                search = self.constant(re.compile(value).search)
                matched = self.constant(_MATCHED.setdefault(value, set()))
                out.append(f"{pad}if {guard('string', f'{x} not in {matched}')}:")
                out.append(f"{pad}    if {search}({x}) is None: return False")
                out.append(f"{pad}    {matched}.add({x})")
        elif key in ("minimum", "maximum"):
            compare = "<" if key == "minimum" else ">"
            test = f"{x} {compare} {self.constant(value)}"
            out.append(f"{pad}if {test if known in ('number', 'integer') else f'_is_number({x}) and {test}'}: return False")
        elif key == "enum":
            if not all(isinstance(v, str) for v in value):
                raise _Unsupported(key)
            out.append(f"{pad}if not (isinstance({x}, str) and {x} in {self.constant(frozenset(value))}): "
                       "return False")
        elif key == "allOf":
            walks = any(k in schema for k in _WALKERS)
            for i, part in enumerate(value):
                self.tests(part, x, out, pad, count and not walks and i == 0)
        elif key == "anyOf":
            parts = " or ".join(f"{self.function(part)}({x})" for part in value)
            out.append(f"{pad}if not ({parts or 'False'}): return False")
        elif key == "not":
            out.append(f"{pad}if {self.function(value)}({x}): return False")
        elif key == "const":
            if not isinstance(value, str):
                raise _Unsupported(key)
            out.append(f"{pad}if not (isinstance({x}, str) and {x} == {value!r}): return False")
        elif key == "if":
            then, otherwise = [], []
            self.tests(schema.get("then", True), x, then, pad + "    ")
            self.tests(schema.get("else", True), x, otherwise, pad + "    ")
            out.append(f"{pad}if {self.function(value)}({x}):")
            out += then or [f"{pad}    pass"]
            out.append(f"{pad}else:")
            out += otherwise or [f"{pad}    pass"]
        elif key not in ("then", "else"):
            raise _Unsupported(key)
