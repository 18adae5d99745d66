"""The direction of imports between the top-level folders (DESIGN section 2, docs/architecture.md),
read from the source files: core uses none of the folders on top of it, the baseline never imports
the evaluator, and only the command line wires the authors' protocol (``official/``) in."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from mhmmkg._moved import new_path

ROOT = Path(__file__).resolve().parents[1]
#: top-level folder -> the package it is in the one namespace (pyproject's package-dir)
FOLDERS = {"mhmmkg": "mhmmkg", "builders": "mhmmkg.builders", "eval": "mhmmkg.eval",
           "baseline": "mhmmkg.baseline", "official": "mhmmkg.official"}
ON_TOP = ("mhmmkg.builders", "mhmmkg.eval", "mhmmkg.baseline", "mhmmkg.official")
#: core modules whose job is to wire the parts together (each imports what it runs lazily)
WIRING = {"mhmmkg.cli", "mhmmkg.demo", "mhmmkg.integrations.inspect_eval"}


def modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            out[".".join([package, *parts])] = path
    return out


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported(name: str, path: Path, *, lazy: bool) -> set[str]:
    """The modules ``name`` (in ``path``) imports when it is imported, or with ``lazy`` also in its
    functions; old paths (``mhmmkg._moved``) count as the module they stand for."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child) or (not lazy and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, base]) if base else ".".join(anchor)
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {new_path(m) or m for m in found}


def offences(rule) -> list[str]:
    return sorted(f"{name} imports {target}" for name, path in modules().items()
                  for target in rule(name, path) if target)


def under(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_the_folders_are_read():
    found = modules()
    assert "mhmmkg.kg.graph" in found and "mhmmkg.baseline.runner" in found and "mhmmkg.eval.evaluator" in found


def test_core_imports_nothing_on_top_of_it_when_imported():
    def rule(name, path):
        if not under(name, ["mhmmkg"]) or under(name, ON_TOP) or name in WIRING:
            return ()
        return [m for m in imported(name, path, lazy=False) if under(m, ON_TOP)]
    assert offences(rule) == []


def test_the_baseline_never_imports_the_evaluator():
    def rule(name, path):
        return [m for m in imported(name, path, lazy=True) if under(m, ["mhmmkg.eval"])] \
            if under(name, ["mhmmkg.baseline"]) else ()
    assert offences(rule) == []


@pytest.mark.parametrize("folder", ["mhmmkg", "mhmmkg.builders", "mhmmkg.eval", "mhmmkg.baseline"])
def test_nothing_below_the_authors_protocol_imports_it_when_imported(folder):
    """Core, builders, baseline and eval reach ``mhmmkg.official`` through registry entries (lazy
    "mhmmkg.official.<module>:<attr>" strings), the command line's verb table, or an import inside
    the one function that needs it; never when they are imported."""
    def rule(name, path):
        if not under(name, [folder]) or under(name, [p for p in ON_TOP if p != folder]):
            return ()
        return [m for m in imported(name, path, lazy=False) if under(m, ["mhmmkg.official"])]
    assert offences(rule) == []


def test_importing_every_module_below_it_loads_nothing_of_the_authors_protocol():
    """The registries hold the authors' entries as lazy strings: importing the layers below
    ``mhmmkg.official`` (every module of them, the command line included) imports none of it."""
    below = sorted(name for name in modules() if not under(name, ["mhmmkg.official"]) and name != "mhmmkg.__main__")
    probe = ("import importlib, sys\n"
             f"for name in {below!r}:\n"
             "    importlib.import_module(name)\n"
             "print(sorted(m for m in sys.modules if m.startswith('mhmmkg.official')))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
