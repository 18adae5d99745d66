"""Retrievers that replace the agents' search in ``mhmmkg run``: any RAG system scored with our
summarizer, run folders and metrics.

A retriever is a function ``retrieve(query, graph) -> list[list[str]]``:

- ``query`` is a :class:`RetrievalQuery`: what the agents see of a benchmark query (the question
  as the official release frames it, the auxiliary information, the scene description of the
  setting, the query's images), never its answer or ground-truth paths;
- ``graph`` is the :class:`mhmmkg.KnowledgeGraph` of the run's dataset;
- it returns paths of entity ids, best first, each starting at the topic monster it chose. The
  first ``--alpha`` paths are rendered and given to the summarizer and written to the submission;
  the topic of the submission is the first entity of the first path.

``mhmmkg run --setting perceptive --retriever MODULE:FUNCTION`` (or ``path/to/file.py:FUNCTION``)
plugs one in. Queries run on a thread pool: a retriever must be safe to call from several threads
(or run with ``--concurrency 1``). ``mhmmkg.baseline.retrievers.bm25:retrieve`` is an example.
"""
from __future__ import annotations

import importlib
import importlib.util
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.graph import KnowledgeGraph


@dataclass(frozen=True)
class RetrievalQuery:
    id: str
    question: str
    extra: str = ""
    scene: str = ""
    images: tuple[bytes, ...] = ()

    @property
    def text(self) -> str:
        """Question, auxiliary information and scene description as one text."""
        return "\n".join(part for part in (self.question, self.extra, self.scene) if part)


Retriever = Callable[[RetrievalQuery, KnowledgeGraph], Sequence[Sequence[str]]]


def load_retriever(spec: str) -> Retriever:
    """``module:function`` or ``path/to/file.py:function`` -> the function; UserError when it is not there."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise UserError(f"--retriever {spec!r}: expected MODULE:FUNCTION or FILE.py:FUNCTION")
    try:
        module = _import_file(Path(where)) if where.endswith(".py") else importlib.import_module(where)
    except ImportError as exc:
        raise UserError(f"--retriever {spec!r}: cannot import {where} ({exc})") from None
    except SyntaxError as exc:
        raise UserError(f"--retriever {spec!r}: {exc.filename}:{exc.lineno}: not valid Python: {exc.msg}") from None
    except (Exception, SystemExit) as exc:      # whatever its top-level code raises, or an exit it calls
        raise UserError(f"--retriever {spec!r}: importing {where} raised {failure(exc)}") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise UserError(f"--retriever {spec!r}: {where} has no function {name!r}")
    return function


def _import_file(path: Path):
    if not path.is_file():
        raise ImportError(f"no file {path}")
    module_spec = importlib.util.spec_from_file_location(f"mhmmkg_retriever_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def failure(exc: BaseException) -> str:
    """``Type: message (at file:line)``: an exception of the user's code and where it came from
    (the innermost frame, which is theirs or the library call they made)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the retriever tried to end the process{where}"
    return f"{type(exc).__name__}: {exc}{where}"


def call_retriever(retriever: Retriever, query: RetrievalQuery, graph: KnowledgeGraph, spec: str):
    """The retriever's answer for one query; whatever it raises (an exit included) becomes a
    UserError naming the retriever, the query and the place."""
    try:
        return retriever(query, graph)
    except (Exception, SystemExit) as exc:
        raise UserError(f"retriever {spec}, query {query.id}: raised {failure(exc)}") from None


def checked_paths(paths, query_id: str, graph: KnowledgeGraph, spec: str) -> list[list[str]]:
    """The retriever's answer as a list of paths of known entity ids from one topic monster;
    UserError naming the retriever, the query and the reason otherwise."""
    where = f"retriever {spec}, query {query_id}"
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence):
        raise UserError(f"{where}: expected a list of paths (lists of entity ids), got {type(paths).__name__}")
    out = []
    for i, path in enumerate(paths):
        if isinstance(path, (str, bytes)) or not isinstance(path, Sequence) or not path \
                or not all(isinstance(e, str) for e in path):
            raise UserError(f"{where}: path {i} is not a non-empty list of entity ids: {path!r}")
        unknown = [e for e in path if e not in graph]
        if unknown:
            raise UserError(f"{where}: path {i} names unknown entities {unknown}")
        if graph.entity(path[0]).type != "monster" or path[0] != (out[0][0] if out else path[0]):
            raise UserError(f"{where}: path {i} does not start at the topic monster "
                            f"({out[0][0] if out else 'a monster'}): {list(path)}")
        out.append(list(path))
    return out
