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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mhmmkg.errors import UserError
from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.registry import Registry, failure


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

#: retrievers are named only by ``module:attr`` (the built-in one is ``mhmmkg.baseline.retrievers.bm25:retrieve``)
RETRIEVERS = Registry("retriever", "--retriever", {}, plugins=True)


def load_retriever(spec: str) -> Retriever:
    """``module:function`` or ``path/to/file.py:function`` -> the function; UserError when it is not there."""
    return RETRIEVERS.resolve(spec)


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
