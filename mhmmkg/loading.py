"""Loading the KG and the benchmark from a built dataset folder, a Hub repo id or a sources folder."""
from __future__ import annotations

import json
from pathlib import Path

from .errors import UserError
from .graph import KnowledgeGraph
from .model import Entity, Query, Relation


def _kind(source: str | Path) -> str:
    path = Path(source)
    if path.is_dir() and (path / "shared.json").is_file():
        return "sources"
    if path.is_dir():
        if not (path / "README.md").is_file():
            raise UserError(f"{path}: not a built dataset folder (no README.md) nor a sources folder (no shared.json)")
        return "folder"
    if path.exists() or "/" not in str(source) or str(source).startswith((".", "/")):
        raise UserError(f"{source}: no dataset folder here; build one with 'mhmmkg build --out {source}', "
                        "or give a Hub dataset repo id ORG/NAME")
    return "hub"


def _load_config(source: str | Path, config: str, split: str):
    import datasets
    import yaml
    from datasets.exceptions import DatasetsError

    try:
        return datasets.load_dataset(str(source), config, split=split)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2} column {mark.column + 1}" if mark else ""  # +1: the opening ---
        raise UserError(f"{Path(source) / 'README.md'}: the dataset card's YAML header is broken{where}: "
                        f"{getattr(exc, 'problem', None) or exc}") from None
    except DatasetsError as exc:
        raise UserError(f"{source}: cannot read config {config!r}: {_root_cause(exc)}{_damage(source)}") from None
    except FileNotFoundError as exc:
        raise UserError(f"{source}: dataset not found ({exc})") from None
    except ConnectionError as exc:
        raise UserError(f"{source}: cannot reach the dataset on the Hub ({exc}); "
                        "check the repo id and your connection, or unset HF_HUB_OFFLINE") from None
    except ValueError as exc:
        raise UserError(f"{source}: cannot load config {config!r}: {exc}") from None


def _root_cause(exc: BaseException) -> str:
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _damage(source: str | Path) -> str:
    """For a local dataset folder, which file differs from its manifest (the likely culprit)."""
    if not Path(source).is_dir():
        return ""
    from .manifest import verified_files

    try:
        verified_files(source)
    except UserError as exc:
        return f"; {exc}"
    return ""


def _none_if_empty(value):
    return value if value not in ("", None) else None


def load_graph(source: str | Path = "mh-mmkg") -> KnowledgeGraph:
    """The KG of a built dataset folder, a Hub dataset repo id, or a curated sources folder."""
    if _kind(source) == "sources":
        from .sources import graph_from_sources

        return graph_from_sources(source)
    attrs = _load_config(source, "attributes", "kg").select_columns(
        ["id", "name", "type", "monster", "aliases", "text", "caption", "has_media", "sources", "unverified"])
    edges = _load_config(source, "graph", "kg").select_columns(
        ["id", "head", "tail", "type", "label", "condition", "info", "sources", "unverified"])
    entities = [Entity(id=r["id"], name=r["name"], type=r["type"], monster=r["monster"],
                       aliases=tuple(r["aliases"] or ()), text=r["text"], caption=r["caption"],
                       has_media=bool(r["has_media"]), sources=tuple(r["sources"] or ()),
                       unverified=bool(r["unverified"])) for r in attrs]
    relations = [Relation(**{**r, "sources": tuple(r["sources"] or ()), "unverified": bool(r["unverified"])})
                 for r in edges]
    return KnowledgeGraph(entities, relations)


def load_queries(source: str | Path = "mh-mmkg", *, with_images: bool = False) -> list[Query]:
    """The benchmark queries of a built dataset, a Hub repo id or a sources folder.

    ``with_images`` also decodes each query's images and keyframes (as encoded bytes).
    """
    if _kind(source) == "sources":
        from .sources import load_sources

        return load_sources(source).queries
    table = _load_config(source, "queries", "test")
    columns = ["id", "subtask", "question", "monster", "extra", "perception", "answer", "paths", "has_media"]
    out = []
    rows = table if with_images else table.select_columns(columns)
    for r in rows:
        images = ()
        if with_images:
            images = tuple(_image_bytes(im) for im in (r.get("images") or []) + (r.get("keyframes") or []))
        out.append(Query(id=r["id"], subtask=r["subtask"], question=r["question"], monster=r["monster"],
                         answer=r["answer"], paths=tuple(tuple(p) for p in r["paths"]),
                         extra=r["extra"], perception=r["perception"], has_media=bool(r["has_media"]),
                         images=images))
    return out


def _image_bytes(image) -> bytes:
    import io

    buffer = io.BytesIO()
    image.save(buffer, format=image.format or "PNG")
    return buffer.getvalue()
