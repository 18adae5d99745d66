"""Read the authors' prompt templates from their code into a prompt set, without running their code.

Their prompts are Python: methods of a class ``TP`` in ``things/templates.py`` that build
f-strings, call each other and branch on the run's mode, on whether the scene has a
description, on the knowledge found so far and on how many frames are attached; the judge's
prompt is the function ``evaluation_temp`` (called by ``evaluation.py``). This module parses
those files with :mod:`ast` and *interprets* a small, closed subset of Python over the tree
(string and f-string building, ``if``, assignments, ``+=``, ``return``, calls of the file's own
functions and methods, ``len`` and ``str``); anything outside it stops the import with the
file, the line and the construct. Nothing is imported, executed or evaluated by Python itself.

The files are untrusted, so the work is bounded: only regular UTF-8 files inside the given
folder are read (symbolic links resolved), at most :data:`MAX_SOURCE_BYTES` each; a tree of more
than :data:`MAX_NODES` nodes or nested deeper than :data:`MAX_NESTING` is refused before it is
interpreted; the interpreter stops after :data:`MAX_STEPS` steps and refuses texts and lists
longer than :data:`MAX_VALUE_LENGTH`.

Each runtime input is replaced by a marker that becomes a named placeholder of our format
(``self.question`` -> ``{full_question}``, ``self.perception`` -> ``{scene}``, ...). A branch on
an input is resolved by interpreting the template once per case (description given or empty,
one frame or several, ...); cases that give the same text are merged, and the others become
templates with a ``when`` that selects them at run time. The mode each of our agents runs in
is fixed here (:data:`AGENTS`). The set records the SHA-256 of the files it was read from.
"""
from __future__ import annotations

import ast
import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.files.jsontext import read_text_file
from mhmmkg.llm.prompt_sets import FORMAT, prompt_set_from_dict

TEMPLATES = Path("things") / "templates.py"
EVALUATION = Path("evaluation.py")
_MARK = "\x00"
_MAX_DEPTH = 64
#: bounds on the untrusted files: bytes, tree nodes, nesting of the tree, interpreted steps
#: (expressions and statements, over the whole file) and the length of any text or list built
MAX_SOURCE_BYTES = 1 << 20
MAX_NODES = 100_000
MAX_NESTING = 200
MAX_STEPS = 500_000          # the authors' templates take about 9,000
MAX_VALUE_LENGTH = 1 << 20


class Unsupported(UserError):
    """The authors' file uses Python this importer does not interpret."""


def mark(name: str) -> str:
    """A run-time input inside the interpreted text; becomes ``{name}``."""
    return f"{_MARK}{name}{_MARK}"


def to_template(text: str) -> str:
    """Interpreted text -> ``str.format`` template: literal braces doubled, markers to placeholders."""
    text = text.replace("{", "{{").replace("}", "}}")
    parts = text.split(_MARK)
    if len(parts) % 2 == 0:
        raise ValueError("unbalanced placeholder marker")
    return "".join(p if i % 2 == 0 else "{" + p + "}" for i, p in enumerate(parts))


# ---------------------------------------------------------------------------------------------
# The interpreter

class _Return(Exception):
    def __init__(self, value):
        self.value = value


@dataclass
class _Instance:
    cls: str
    attrs: dict


@dataclass(frozen=True)
class _Builtin:
    name: str           # "len" or "str", the only built-ins the templates may call


@dataclass
class _Bound:
    function: ast.FunctionDef
    self_value: _Instance | None


class Interpreter:
    """Interprets the functions and classes of one parsed file (see the module docstring)."""

    def __init__(self, path: Path):
        self.path = path
        source = read_text_file(path, "Python file", max_bytes=MAX_SOURCE_BYTES)
        if "\x00" in source:
            line = source.count("\n", 0, source.index("\x00")) + 1
            raise UserError(f"{path}:{line}: holds a NUL character; not a Python source file")
        try:
            self.tree = ast.parse(source, filename=str(path))
        except SyntaxError as exc:
            raise UserError(f"{path}:{exc.lineno}: not valid Python: {exc.msg}") from None
        except (RecursionError, MemoryError, ValueError) as exc:
            raise UserError(f"{path}: too deeply nested or too large to parse ({type(exc).__name__})") from None
        _check_tree_size(self.tree, path)
        self._steps = 0
        self.sha256 = hashlib.sha256(source.encode("utf-8")).hexdigest()
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef)}
        self.classes = {n.name: {m.name: m for m in n.body if isinstance(m, ast.FunctionDef)}
                        for n in self.tree.body if isinstance(n, ast.ClassDef)}
        self._depth = 0

    def has_function(self, name: str) -> bool:
        return name in self.functions

    def fail(self, node: ast.AST, what: str):
        raise Unsupported(f"{self.path}:{getattr(node, 'lineno', '?')}: {what} is not supported by the prompt "
                          f"importer (it reads templates without running them)")

    # -- entry points
    def new(self, cls: str, *args):
        if cls not in self.classes:
            raise UserError(f"{self.path}: no class {cls!r} (is this the authors' templates file?)")
        instance = _Instance(cls, {})
        if "__init__" in self.classes[cls]:
            self.call(_Bound(self.classes[cls]["__init__"], instance), list(args), {})
        return instance

    def method(self, instance: _Instance, name: str, *args, **kwargs):
        function = self.classes[instance.cls].get(name)
        if function is None:
            raise UserError(f"{self.path}: class {instance.cls!r} has no method {name!r}")
        return self.call(_Bound(function, instance), list(args), kwargs)

    def function(self, name: str, *args, **kwargs):
        if name not in self.functions:
            raise UserError(f"{self.path}: no function {name!r}")
        return self.call(_Bound(self.functions[name], None), list(args), kwargs)

    # -- calls
    def call(self, bound: _Bound, args: list, kwargs: dict):
        function = bound.function
        spec = function.args
        if spec.vararg or spec.kwarg or spec.kwonlyargs or spec.posonlyargs:
            self.fail(function, "*args, **kwargs or keyword-only parameters")
        names = [a.arg for a in spec.args]
        if bound.self_value is not None:
            args = [bound.self_value, *args]
        scope: dict = {}
        defaults = dict(zip(names[len(names) - len(spec.defaults):], spec.defaults))
        for i, name in enumerate(names):
            if i < len(args):
                scope[name] = args[i]
            elif name in kwargs:
                scope[name] = kwargs[name]
            elif name in defaults:
                scope[name] = self.expr(defaults[name], {})
            else:
                raise UserError(f"{self.path}:{function.lineno}: {function.name}() is missing argument {name!r}")
        self._depth += 1
        if self._depth > _MAX_DEPTH:
            self.fail(function, "recursion this deep")
        try:
            self.block(function.body, scope)
        except _Return as returned:
            return returned.value
        finally:
            self._depth -= 1
        return None

    # -- statements
    def block(self, statements: Sequence[ast.stmt], scope: dict) -> None:
        for statement in statements:
            self.statement(statement, scope)

    def step(self, node: ast.AST) -> None:
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise UserError(f"{self.path}:{getattr(node, 'lineno', '?')}: the templates take more than "
                            f"{MAX_STEPS:,} steps to read (calls that multiply?); not imported")

    def statement(self, node: ast.stmt, scope: dict) -> None:
        self.step(node)
        if isinstance(node, ast.Return):
            raise _Return(self.expr(node.value, scope) if node.value is not None else None)
        if isinstance(node, ast.Assign):
            value = self.expr(node.value, scope)
            for target in node.targets:
                self.assign(target, value, scope)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.op, ast.Add):
                self.fail(node, "an augmented assignment other than +=")
            self.assign(node.target, self.binary(node, self.expr(node.target, scope), self.expr(node.value, scope)),
                        scope)
        elif isinstance(node, ast.If):
            self.block(node.body if self.truth(self.expr(node.test, scope)) else node.orelse, scope)
        elif isinstance(node, ast.Expr):
            if not (isinstance(node.value, ast.Constant) or self._is_print(node.value)):
                self.expr(node.value, scope)
        elif not isinstance(node, ast.Pass):
            self.fail(node, f"the statement {type(node).__name__}")

    @staticmethod
    def _is_print(node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"

    def assign(self, target: ast.expr, value, scope: dict) -> None:
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(self.expr(target.value, scope), _Instance):
            self.expr(target.value, scope).attrs[target.attr] = value
        else:
            self.fail(target, "this assignment target")

    # -- expressions
    def expr(self, node: ast.expr, scope: dict):
        self.step(node)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and _MARK in node.value:
                self.fail(node, "a NUL character in a string")
            return node.value
        if isinstance(node, ast.JoinedStr):
            return self.bounded(node, "".join(self.expr(v, scope) for v in node.values))
        if isinstance(node, ast.FormattedValue):
            if node.conversion != -1 or node.format_spec is not None:
                self.fail(node, "a conversion or format spec in an f-string")
            return self.text(self.expr(node.value, scope), node)
        if isinstance(node, ast.Name):
            if node.id in scope:
                return scope[node.id]
            if node.id in self.functions:
                return _Bound(self.functions[node.id], None)
            if node.id in ("len", "str"):
                return _Builtin(node.id)
            self.fail(node, f"the name {node.id!r}")
        if isinstance(node, ast.Attribute):
            owner = self.expr(node.value, scope)
            if isinstance(owner, _Instance):
                if node.attr in owner.attrs:
                    return owner.attrs[node.attr]
                if node.attr in self.classes[owner.cls]:
                    return _Bound(self.classes[owner.cls][node.attr], owner)
            self.fail(node, f"the attribute {node.attr!r}")
        if isinstance(node, ast.Subscript):
            owner, key = self.expr(node.value, scope), self.expr(node.slice, scope)
            if isinstance(owner, (dict, list, tuple, str)):
                try:
                    return owner[key]
                except (KeyError, IndexError, TypeError):
                    pass
            self.fail(node, f"the subscript [{key!r}]")
        if isinstance(node, (ast.List, ast.Tuple)):
            values = [self.expr(e, scope) for e in node.elts]
            return values if isinstance(node, ast.List) else tuple(values)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                self.fail(node, "** in a dict")
            return {self.expr(k, scope): self.expr(v, scope) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.binary(node, self.expr(node.left, scope), self.expr(node.right, scope))
        if isinstance(node, ast.BoolOp):
            return self.boolean(node, scope)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.truth(self.expr(node.operand, scope))
        if isinstance(node, ast.Compare):
            return self.compare(node, scope)
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.truth(self.expr(node.test, scope)) else node.orelse, scope)
        if isinstance(node, ast.Call):
            return self.call_expr(node, scope)
        self.fail(node, f"the expression {type(node).__name__}")

    def call_expr(self, node: ast.Call, scope: dict):
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "*args or **kwargs in a call")
        callee = self.expr(node.func, scope)
        args = [self.expr(a, scope) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, scope) for k in node.keywords}
        sized = len(args) == 1 and isinstance(args[0], (str, list, tuple, dict))
        if callee == _Builtin("len") and sized and not kwargs:
            return len(args[0])
        if callee == _Builtin("str") and len(args) == 1 and not kwargs:
            return self.text(args[0], node)
        if isinstance(callee, _Bound):
            return self.call(callee, args, kwargs)
        self.fail(node, "this call")

    def text(self, value, node: ast.AST) -> str:
        if isinstance(value, (str, int, float, bool)) or value is None:
            return str(value)
        if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
            return str(value)
        self.fail(node, f"turning a {type(value).__name__} into text")

    def binary(self, node: ast.AST, left, right):
        if isinstance(left, str) and isinstance(right, str) or isinstance(left, (int, float)) and \
                isinstance(right, (int, float)) or isinstance(left, list) and isinstance(right, list):
            if isinstance(left, (str, list)) and len(left) + len(right) > MAX_VALUE_LENGTH:
                self.fail(node, f"a text or list longer than {MAX_VALUE_LENGTH:,}")
            total = left + right
            if isinstance(total, int) and total.bit_length() > 256:
                self.fail(node, "a number this large")
            return total
        self.fail(node, f"adding {type(left).__name__} and {type(right).__name__}")

    def bounded(self, node: ast.AST, value):
        if len(value) > MAX_VALUE_LENGTH:
            self.fail(node, f"a text or list longer than {MAX_VALUE_LENGTH:,}")
        return value

    def boolean(self, node: ast.BoolOp, scope: dict):
        value = None
        for operand in node.values:
            value = self.expr(operand, scope)
            if isinstance(node.op, ast.And) and not self.truth(value):
                return value
            if isinstance(node.op, ast.Or) and self.truth(value):
                return value
        return value

    def truth(self, value) -> bool:
        if isinstance(value, (str, int, float, bool, list, tuple, dict)) or value is None:
            return bool(value)
        raise Unsupported(f"{self.path}: a condition on a {type(value).__name__}")

    def compare(self, node: ast.Compare, scope: dict) -> bool:
        left = self.expr(node.left, scope)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node, scope)
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right, (str, list, tuple, dict)) or (isinstance(right, str) and
                                                                       not isinstance(left, str)):
                    self.fail(node, "this membership test")
                result = left in right
                result = result if isinstance(op, ast.In) else not result
            elif isinstance(op, (ast.Eq, ast.NotEq)):
                result = (left == right) == isinstance(op, ast.Eq)
            elif isinstance(op, (ast.Is, ast.IsNot)) and (left is None or right is None):
                result = (left is right) == isinstance(op, ast.Is)
            else:
                self.fail(node, f"the comparison {type(op).__name__}")
            if not result:
                return False
            left = right
        return True


def _check_tree_size(tree: ast.AST, path: Path) -> None:
    """Refuse a tree with more than MAX_NODES nodes or nested deeper than MAX_NESTING (walked
    without recursion, so the check itself cannot exhaust the stack)."""
    stack = [(tree, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise UserError(f"{path}: more than {MAX_NODES:,} syntax nodes; too large for a templates file")
        if depth > MAX_NESTING:
            raise UserError(f"{path}:{getattr(node, 'lineno', '?')}: nested more than {MAX_NESTING} levels deep; "
                            f"too deep for a templates file")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def inside(root: Path, relative: Path) -> Path:
    """``root / relative`` with symbolic links resolved; refused when it leaves ``root``."""
    path = root / relative
    real = path.resolve()
    if not real.is_relative_to(root.resolve()):
        raise UserError(f"{path}: leads outside {root} (a symbolic link to {real}); not read")
    return real


# ---------------------------------------------------------------------------------------------
# Which of their templates each of our agents uses, and in which cases

#: the authors' run modes, by what they change in the templates
TEXT_MODE = "self Search"
VISION_MODE = "Online Vision-needed"


def _frames(count: str):
    """Stand-in for a list of frames: '' (the authors' "no images"), one or two entries."""
    return {"none": "", "one": ["frame"], "many": ["frame", "frame"]}[count]


@dataclass(frozen=True)
class Case:
    """One combination of the inputs a template branches on."""

    scene: bool = True
    knowledge: bool = True
    memory: bool = True
    entity: bool = True
    images: str = "none"

    def when(self, dimensions: Sequence[str]) -> dict[str, str]:
        out = {}
        for name in dimensions:
            value = getattr(self, name)
            out[name] = value if name == "images" else ("given" if value else "empty")
        return out


def _tp(templates: Interpreter, case: Case, mode: str) -> _Instance:
    data_point = {"Monster Name": mark("monster"), "Extra Information": mark("extra"),
                  "Question": mark("full_question"), "Images": _frames(case.images),
                  "Perception": mark("scene") if case.scene else "", "File": "", "Answer": "", "Type": 0}
    return templates.new("TP", data_point, mode, True, True)


def _given(flag: bool, name: str) -> str:
    return mark(name) if flag else ""


@dataclass(frozen=True)
class AgentSource:
    """How one of our agents is read from their code: which call, which cases, which reply shape."""

    reply: str
    dimensions: tuple[str, ...]
    render: Callable[[Interpreter, Case], str]
    images: tuple[str, ...] = ("none",)


def _summarizer(knowledge: bool) -> Callable[[Interpreter, Case], str]:
    """The final answer. In the authors' data a query with frames always has a scene description
    (they never show it when frames are attached), so with frames the case is rendered as
    described: in our vanilla setting the description is not passed at all."""
    def render(t: Interpreter, c: Case) -> str:
        mode = TEXT_MODE if c.images == "none" else VISION_MODE
        if c.images != "none":
            c = Case(scene=True, knowledge=c.knowledge, images=c.images)
        return t.method(_tp(t, c, mode), "question_answer", _given(knowledge and c.knowledge, "knowledge"))
    return render


AGENTS: dict[str, AgentSource] = {
    # the online mode's description of the query frames
    "perceiver": AgentSource("text", ("images",), lambda t, c: t.method(_tp(t, c, VISION_MODE),
                                                                        "question_image_understanding"),
                             images=("one", "many")),
    "topic": AgentSource("monster_name", (), lambda t, c: t.method(_tp(t, c, TEXT_MODE), "topic_entity_selection")),
    "expansion": AgentSource("names", ("scene", "knowledge"), lambda t, c: t.method(
        _tp(t, c, TEXT_MODE), "entity_selection", _given(c.knowledge, "knowledge"), mark("entity_name"),
        mark("candidates"))),
    "validation": AgentSource("yes_no", ("scene", "memory", "entity"), lambda t, c: t.method(
        _tp(t, c, TEXT_MODE), "entity_analysis", _given(c.memory, "memory"), mark("entity_name"),
        _given(c.entity, "entity"))),
    "validation_online": AgentSource("yes_no_description", ("scene", "memory", "entity", "images"), lambda t, c: t.method(
        _tp(t, c, VISION_MODE), "entity_analysis", _given(c.memory, "memory"), mark("entity_name"),
        _given(c.entity, "entity"), _frames(c.images)), images=("one", "many")),
    "summarizer": AgentSource("answer", ("scene", "knowledge", "images"), _summarizer(True),
                              images=("none", "one", "many")),
    "direct": AgentSource("answer", ("scene", "images"), _summarizer(False), images=("none", "one", "many")),
    "captioner": AgentSource("text", ("images",), lambda t, c: t.function(
        "offline_images_description", _frames(c.images), " with " + mark("monster"), mark("entity")),
                             images=("one", "many")),
}

JUDGES: dict[str, tuple[str, Callable[[Interpreter], str]]] = {
    "judge": ("evaluation_temp", lambda t: t.function("evaluation_temp", mark("question"), mark("reference"),
                                                      mark("prediction"))),
    "caption_judge": ("evaluation_temp_caption", lambda t: t.function("evaluation_temp_caption",
                                                                      mark("reference"), mark("prediction"))),
}


def _cases(source: AgentSource) -> list[Case]:
    flags = [d for d in source.dimensions if d != "images"]
    out = []
    for values in itertools.product((True, False), repeat=len(flags)):
        for images in source.images:
            out.append(Case(**dict(zip(flags, values)), images=images))
    return out


def agent_templates(templates: Interpreter, source: AgentSource) -> list[dict]:
    """The agent's templates: one per distinct text, with the least ``when`` that selects it."""
    texts = {case: to_template(source.render(templates, case)) for case in _cases(source)}
    dimensions = [d for d in source.dimensions if _matters(texts, d)]
    if "images" in source.dimensions and "images" not in dimensions and source.images != ("none",):
        dimensions.append("images")      # still say which frame counts the template is for
    chosen: dict[tuple, str] = {}
    for case, text in texts.items():
        chosen.setdefault(tuple(sorted(case.when(dimensions).items())), text)
    return [{"when": dict(when), "user": text} if when else {"user": text} for when, text in chosen.items()]


def _matters(texts: Mapping[Case, str], dimension: str) -> bool:
    """True when changing only ``dimension`` changes the text for some case."""
    for case, text in texts.items():
        for other, other_text in texts.items():
            if other != case and all(getattr(other, f) == getattr(case, f)
                                     for f in ("scene", "knowledge", "memory", "entity", "images") if f != dimension):
                if other_text != text:
                    return True
    return False


def import_prompts(repo: str | Path) -> dict:
    """The prompt-set document read from the authors' code at ``repo``."""
    try:
        return _import_prompts(Path(repo))
    except RecursionError:
        raise UserError(f"{repo}: the templates nest calls and expressions too deeply to read; not imported") from None


def _import_prompts(root: Path) -> dict:
    templates_path = root / TEMPLATES
    if not templates_path.exists():
        raise UserError(f"{root}: no {TEMPLATES} here; give the folder of the authors' code (it holds configs.py, "
                        f"main.py and things/)")
    templates = Interpreter(inside(root, TEMPLATES))
    agents = {name: {"reply": source.reply, "templates": agent_templates(templates, source)}
              for name, source in AGENTS.items()}
    sources = [f"{TEMPLATES.as_posix()} sha256 {templates.sha256}"]
    evaluation = _judge_file(root, templates)
    for agent, (function, render) in JUDGES.items():
        if evaluation.has_function(function):
            agents[agent] = {"reply": "yes_no", "templates": [{"user": to_template(render(evaluation))}]}
    if evaluation is not templates:
        sources.append(f"{EVALUATION.as_posix()} sha256 {evaluation.sha256}")
    document = {"format": FORMAT, "version": 1, "name": "official",
                "source": "the authors' prompts, imported by mhmmkg import-official-prompts from " + "; ".join(sources),
                "empty": "", "agents": agents}
    prompt_set_from_dict(document, str(templates_path))          # what we write must load
    return document


def _judge_file(root: Path, templates: Interpreter) -> Interpreter:
    """Where the judge prompt is defined: evaluation.py itself, else the templates file it imports it from."""
    path = root / EVALUATION
    if path.exists():
        evaluation = Interpreter(inside(root, EVALUATION))
        if evaluation.has_function(JUDGES["judge"][0]):
            return evaluation
    if not templates.has_function(JUDGES["judge"][0]):
        raise UserError(f"{root}: no judge prompt found (a function {JUDGES['judge'][0]!r} in {EVALUATION} "
                        f"or {TEMPLATES})")
    return templates
