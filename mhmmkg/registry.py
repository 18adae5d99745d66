"""One registry for every family of plug-ins: search strategies, judges, model backends, exports,
settings, question styles, path-matching policies, retrievers.

A :class:`Registry` maps a name to what it names: the object itself, or a lazy ``"module:attr"``
string (:class:`Lazy`) imported on first use (so listing the names imports nothing heavy). Where a family takes
plug-ins from outside the package, a name the registry does not hold but that has the form
``module:attr`` or ``path/to/file.py:attr`` is imported by :func:`load_attr`, the rule
``mhmmkg run --retriever`` has always used. Command-line choices and ``--help`` read
:meth:`Registry.names`, so a new entry is one line in the family's own module.

Two kinds of plug-in: a function (search strategies, judges, backends, exports, retrievers:
``plugins=True``), imported each time it is resolved, and a value of a declared type (settings,
question styles, scoring policies: ``plugins=Setting`` etc.). A value plug-in is loaded when
:meth:`Registry.resolve` is asked for it (by the command line's choice, checked before any
work) and from then on looked up like a registered entry, so every place that reads the name
finds it. Only ``resolve`` imports: a name read from a file (a run's manifest, a submission) is
looked up, never imported.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import traceback
from collections.abc import Callable, Iterator, Mapping
from functools import reduce, wraps
from pathlib import Path
from typing import Any

from .errors import UserError


def failure(exc: BaseException, family: str = "retriever") -> str:
    """``Type: message (at file:line)``: an exception of the user's code and where it came from
    (the innermost frame, which is theirs or the library call they made)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the {family} tried to end the process{where}"
    return f"{type(exc).__name__}: {exc}{where}"


def guarded(function: Callable, where: str, family: str) -> Callable:
    """``function`` (a plug-in's) with whatever it raises, an exit included, turned into one
    UserError naming ``where`` and the place; its own UserErrors pass unchanged."""
    @wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except UserError:
            raise
        except (Exception, SystemExit) as exc:
            raise UserError(f"{where}: raised {failure(exc, family)}") from None
    return call


def is_spec(value: str) -> bool:
    """Whether ``value`` has the shape of a ``module:attr`` plug-in reference."""
    return ":" in value


def load_attr(spec: str, option: str, *, family: str = "retriever", kind: type | None = None) -> Any:
    """``module:function`` or ``path/to/file.py:function`` -> the function (or, with ``kind``, the
    ``kind`` instance ``module:name`` names); UserError naming ``option`` when it is not there."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        what = "FUNCTION" if kind is None else "NAME"
        raise UserError(f"{option} {spec!r}: expected MODULE:{what} or FILE.py:{what}")
    try:
        module = _import_file(Path(where), family) if where.endswith(".py") else importlib.import_module(where)
    except ImportError as exc:
        raise UserError(f"{option} {spec!r}: cannot import {where} ({exc})") from None
    except SyntaxError as exc:
        raise UserError(f"{option} {spec!r}: {exc.filename}:{exc.lineno}: not valid Python: {exc.msg}") from None
    except (Exception, SystemExit) as exc:      # whatever its top-level code raises, or an exit it calls
        raise UserError(f"{option} {spec!r}: importing {where} raised {failure(exc, family)}") from None
    function = getattr(module, name, None)
    if kind is not None:
        return _instance(function, kind, f"{option} {spec!r}: {where}", name)
    if not callable(function):
        raise UserError(f"{option} {spec!r}: {where} has no function {name!r}")
    return function


def _instance(value: Any, kind: type, where: str, name: str) -> Any:
    if value is None:
        raise UserError(f"{where} has no {kind.__name__} {name!r}")
    if not isinstance(value, kind):
        raise UserError(f"{where}: {name} is of type {type(value).__name__}, not a {kind.__name__}")
    return value


def guarded_fields(value: Any, where: str, family: str) -> Any:
    """``value`` (a plug-in's NamedTuple or dataclass) with each of its functions :func:`guarded`."""
    def guard(field: Any) -> Any:
        return guarded(field, where, family) if callable(field) and not isinstance(field, type) else field
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*map(guard, value))
    if dataclasses.is_dataclass(value):
        return dataclasses.replace(value, **{f.name: guard(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    return value


def _import_file(path: Path, family: str):
    if not path.is_file():
        raise ImportError(f"no file {path}")
    module_spec = importlib.util.spec_from_file_location(f"mhmmkg_{family}_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


class Registry(Mapping[str, Any]):
    """Names of one family -> their objects, a read-only mapping in registration order. ``option``
    is the command-line option that picks one (it names the family in messages); ``plugins`` says
    whether :meth:`resolve` accepts a ``module:attr`` reference too: ``True`` for a function, or
    the type a plug-in's value must have (it is then loaded once and looked up like an entry)."""

    def __init__(self, family: str, option: str, entries: dict[str, Any], *, plugins: bool | type = False):
        self.family = family
        self.option = option
        self.plugins = plugins
        self._entries = dict(entries)
        self._loaded: dict[str, Any] = {}

    @property
    def takes_values(self) -> bool:
        """Plug-ins of this family are values of a declared type, not functions."""
        return isinstance(self.plugins, type)

    def __getitem__(self, name: str) -> Any:
        if name not in self._entries and name in self._loaded:
            return self._loaded[name]
        target = self._entries[name]
        if isinstance(target, Lazy):
            module, _, attr = target.partition(":")
            target = self._entries[name] = reduce(getattr, attr.split("."), importlib.import_module(module))
        return target

    def _value_plugin(self, spec: str) -> Any:
        if spec not in self._loaded:
            value = load_attr(spec, self.option, family=self.family, kind=self.plugins)
            self._loaded[spec] = guarded_fields(value, f"{self.option} {spec}", self.family)
        return self._loaded[spec]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def register(self, name: str, target: Any) -> None:
        self._entries[name] = target

    def resolve(self, name: str) -> Any:
        """The object ``name`` stands for: a registered entry or, for a family that takes plug-ins,
        what the ``module:attr`` reference ``name`` names; UserError otherwise."""
        if name in self._entries:
            return self[name]
        if self.takes_values and is_spec(name):
            return self._value_plugin(name)
        if self.plugins and not self.takes_values:
            return load_attr(name, self.option, family=self.family)
        raise UserError(f"unknown {self.family} {name!r} (choose from {', '.join(self._entries)})")

    def check(self, name: str) -> str:
        """``name`` when it is registered or, for a family that takes plug-ins, has the shape
        ``module:attr``: argparse's ``type=`` for the option that picks one."""
        if name in self._entries or (self.plugins and is_spec(name)):
            return name
        raise argparse.ArgumentTypeError(f"invalid choice: {name!r} (choose from {', '.join(self._entries)}"
                                         + (f" or {self.plugin_form()})" if self.plugins else ")"))

    def plugin_form(self) -> str:
        """How a plug-in is named: ``MODULE:FUNCTION``, or ``MODULE:NAME`` for a value plug-in."""
        return "MODULE:NAME" if self.takes_values else "MODULE:FUNCTION"

    def metavar(self) -> str:
        """``{a,b,c}`` as argparse writes choices, with ``|MODULE:FUNCTION`` for a family that takes plug-ins."""
        return "{" + ",".join(self._entries) + "}" + (f"|{self.plugin_form()}" if self.plugins else "")


class Lazy(str):
    """An entry given as ``"module:attr"``, imported the first time it is looked up."""
