"""Validate curated sources and build the declarative Hugging Face dataset folder.

Reads a sources folder (shared.json, monsters/*.json, queries/*.json and media), checks every
file and the rules between files, processes media (images to a long side of at most 1024 px;
videos to at most 10 keyframes), and writes the dataset folder: README.md (the dataset card with
its YAML configs), data/<config>/<split>-<hash>.parquet and manifest.json. Every problem is
reported at once with file, JSON pointer and reason (exit code 2). The same sources give byte-identical output, and a
failed build leaves the previous output folder untouched. --out is replaced only when it is a
dataset folder an earlier build wrote (its manifest.json says so) or empty; it may not be, hold
or lie inside --src.

Example:
  mhmmkg build                          # data/ -> ./mh-mmkg
  mhmmkg build --src my-sources --out my-dataset
"""
from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mhmmkg.collector import fewer_collections, leave_to_exit
from mhmmkg.errors import InvalidInput, Problem
from mhmmkg.dataset.configs import CONFIGS
from mhmmkg.dataset.recorded_features import arrow_schema
from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.files.atomic import staged_folder
from mhmmkg.dataset.manifest import sha256_file, write_manifest
from mhmmkg.files.outputs import claim_output_folder
from mhmmkg.kg.stats import compute_stats, stats_record
from mhmmkg.kg.model import SUBTASKS, Media
from mhmmkg.curation.sources import QUERIES_DIR, Sources, load_sources

from .card import render_card
from .eval_yaml import eval_yaml
from .media import EncodedImage, MediaError, extract_keyframes, process_image
from .origin import read_origin

#: rows per Parquet row group in a table whose rows carry media (images, keyframes, video), so
#: a reader holds a few rows' media at a time; a table without media is one row group
MEDIA_ROW_GROUP_SIZE = 64


@dataclass
class MediaColumns:
    images: list[EncodedImage] = field(default_factory=list)
    keyframes: list[EncodedImage] = field(default_factory=list)
    keyframe_source: str | None = None
    video: bytes | None = None

    def row(self) -> dict:
        return {
            "images": [i.as_feature() for i in self.images],
            "keyframes": [k.as_feature() for k in self.keyframes],
            "keyframe_source": self.keyframe_source,
            "video": self.video,
        }


@dataclass(frozen=True)
class BuildResult:
    out: Path
    fingerprint: str
    rows: dict[str, int]


def build_dataset(src: str | Path = "data", out: str | Path = "mh-mmkg", *, quiet: bool = False) -> BuildResult:
    """Sources folder -> dataset folder, in named steps; raises InvalidInput listing every problem."""
    with fewer_collections(off=True):
        return _build_dataset(Path(src), out, quiet=quiet)


def _build_dataset(src: Path, out: str | Path, *, quiet: bool) -> BuildResult:
    out = claim_output_folder(out, "dataset", inputs=[src])
    sources = load_sources(src)
    if not sources.queries:
        raise InvalidInput([Problem(str(src / QUERIES_DIR), "", "no queries: the benchmark needs at least one (a "
                                    f"{QUERIES_DIR}/ folder holding a JSON file of queries)")], "sources")
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    media = process_media(sources, quiet=quiet)
    tables = {
        "graph": graph_table(sources),
        "attributes": attributes_table(sources, media),
        "queries": queries_table(sources, media),
    }
    with staged_folder(out) as staging:
        # pyarrow encodes and writes without the GIL: the statistics are computed meanwhile
        files, stats = _overlapped(lambda: write_parquet(tables, staging),
                                   lambda: compute_stats(kg, sources.queries))
        card = render_card(tables, files, staging, stats, read_origin(src))
        (staging / "README.md").write_text(card, encoding="utf-8")
        (staging / "eval.yaml").write_text(eval_yaml(), encoding="utf-8")
        fingerprint = write_manifest(staging, stats=stats_record(stats))    # for `mhmmkg info`
    leave_to_exit(sources, kg, media, tables)
    return BuildResult(out, fingerprint, {name: t.num_rows for name, t in tables.items()})


def _overlapped(background: Callable[[], Any], foreground: Callable[[], Any]) -> tuple[Any, Any]:
    """(``background()``, ``foreground()``), the first run in a thread while the second runs here.

    The thread is always joined before this returns or raises; an error of ``background`` is
    raised (before one of ``foreground``), as if it had run first, alone."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = background()
        except BaseException as exc:        # raised again in the calling thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="mhmmkg-background")
    thread.start()
    try:
        value = foreground()
    finally:
        thread.join()
        if "error" in outcome:
            raise outcome.pop("error")
    return outcome["value"], value


def process_media(sources: Sources, *, quiet: bool = False) -> dict[str, MediaColumns]:
    """Media columns for every entity and query that has media; problems collected, not raised one by one."""
    todo = [(k, m) for k, m in sources.entity_media.items()] + [(k, m) for k, m in sources.query_media.items()]
    if todo and not quiet:
        from tqdm import tqdm

        todo = tqdm(todo, desc="media", unit="item")
    out: dict[str, MediaColumns] = {}
    problems: list[Problem] = []
    for key, media in todo:
        file, pointer = sources.origin[key]
        columns, item_problems = _media_columns(sources.root, key, media, file, pointer + "/media")
        out[key] = columns
        problems += item_problems
    if problems:
        raise InvalidInput(problems, "sources")
    return out


def _media_columns(root: Path, key: str, media: Media, file: str, pointer: str) -> tuple[MediaColumns, list[Problem]]:
    columns = MediaColumns()
    problems: list[Problem] = []
    columns.images = _images(root, media.images, f"{key}-image", file, f"{pointer}/images", problems)
    if media.keyframe_images:
        columns.keyframe_source = "human"
        columns.keyframes = _images(root, media.keyframe_images, f"{key}-keyframe", file,
                                    f"{pointer}/keyframe_images", problems)
    if media.video:
        path = root / media.video
        try:
            keyframes, source = extract_keyframes(path, key, list(media.keyframe_times) or None)
            if not media.keyframe_images:
                columns.keyframes, columns.keyframe_source = keyframes, source
            columns.video = path.read_bytes()
        except MediaError as exc:
            problems.append(Problem(file, f"{pointer}/video", f"{media.video}: {exc}"))
    return columns, problems


def _images(root: Path, paths: tuple[str, ...], stem: str, file: str, pointer: str,
            problems: list[Problem]) -> list[EncodedImage]:
    """The images at ``paths`` ready to embed; each one that fails becomes a Problem."""
    images = []
    for i, rel in enumerate(paths):
        try:
            images.append(process_image(root / rel, f"{stem}-{i:02d}{Path(rel).suffix.lower()}"))
        except MediaError as exc:
            problems.append(Problem(file, f"{pointer}/{i}", f"{rel}: {exc}"))
    return images


def graph_table(sources: Sources) -> pa.Table:
    entities = sources.entities
    relations = sources.relations
    heads = [entities[r.head] for r in relations]
    tails = [entities[r.tail] for r in relations]
    return _table("graph", {
        "id": [r.id for r in relations], "head": [r.head for r in relations],
        "type": [r.type for r in relations], "label": [r.label for r in relations],
        "condition": [r.condition for r in relations], "info": [r.info for r in relations],
        "tail": [r.tail for r in relations],
        "head_name": [e.name for e in heads], "head_type": [e.type for e in heads],
        "tail_name": [e.name for e in tails], "tail_type": [e.type for e in tails],
        "monster": [e.monster for e in heads],
        "sources": [r.sources for r in relations], "unverified": [r.unverified for r in relations],
    })


def attributes_table(sources: Sources, media: dict[str, MediaColumns]) -> pa.Table:
    entities = list(sources.entities.values())
    return _table("attributes", {
        "id": [e.id for e in entities], "name": [e.name for e in entities], "type": [e.type for e in entities],
        "monster": [e.monster for e in entities], "aliases": [e.aliases for e in entities],
        "text": [e.text for e in entities], "caption": [e.caption for e in entities],
        "name_origin": [e.name_origin for e in entities], "has_media": [e.has_media for e in entities],
        "sources": [e.sources for e in entities], "unverified": [e.unverified for e in entities],
        **_media_table_columns([media.get(e.id) for e in entities]),
    })


def queries_table(sources: Sources, media: dict[str, MediaColumns]) -> pa.Table:
    queries = sources.queries
    return _table("queries", {
        "id": [q.id for q in queries], "subtask": [q.subtask for q in queries],
        "subtask_name": [SUBTASKS[q.subtask] for q in queries], "question": [q.question for q in queries],
        "monster": [q.monster for q in queries], "extra": [q.extra for q in queries],
        "perception": [q.perception for q in queries], "answer": [q.answer for q in queries],
        "key": [q.key.as_json() if q.key else None for q in queries], "paths": [q.paths for q in queries],
        "hops": [q.hops for q in queries], "has_media": [q.has_media for q in queries],
        **_media_table_columns([media.get(q.id) for q in queries]),
    })


def _media_table_columns(media: list[MediaColumns | None]) -> dict[str, list]:
    """The media columns of rows whose media are ``media`` (None: a row without media)."""
    empty = MediaColumns().row()
    rows = [m.row() if m else empty for m in media]
    return {name: [row[name] for row in rows] for name in ("images", "keyframes", "keyframe_source", "video")}


def _table(config: str, columns: dict[str, list]) -> pa.Table:
    """The table of ``columns`` (name -> values), as ``pa.Table.from_pylist`` makes it from rows."""
    return pa.Table.from_pydict(columns, schema=arrow_schema(config))


def write_parquet(tables: dict[str, pa.Table], folder: Path) -> dict[str, str]:
    """One folder per config, as Hub datasets are laid out (``data/<config>/<split>-<hash>.parquet``),
    so that tools globbing a folder never mix two tables. Each file is named after its content hash
    so a changed dataset never shares a path (or a datasets cache entry) with an old one.
    Returns config -> relative path."""
    files = {}
    for config, table in tables.items():
        split = CONFIGS[config]
        (folder / "data" / config).mkdir(parents=True)
        tmp = folder / "data" / config / f"{split}.tmp"
        pq.write_table(table, tmp, row_group_size=_row_group_size(table), compression="zstd",
                       write_statistics=False, store_schema=True)
        digest = sha256_file(tmp)[:12]
        rel = f"data/{config}/{split}-{digest}.parquet"
        tmp.rename(folder / rel)
        files[config] = rel
    return files


def _row_group_size(table: pa.Table) -> int:
    carries_media = "has_media" in table.column_names and any(table.column("has_media").to_pylist())
    return MEDIA_ROW_GROUP_SIZE if carries_media else max(table.num_rows, 1)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--src", default="data", help="curated sources folder (default: data)")
    parser.add_argument("--out", default="mh-mmkg", help="dataset folder to write (default: mh-mmkg, "
                        "so load_dataset('mh-mmkg', ...) works from the project root)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    result = build_dataset(args.src, args.out, quiet=args.quiet)
    counts = ", ".join(f"{name} {n}" for name, n in result.rows.items())
    print(f"built {result.out} ({counts} rows; fingerprint {result.fingerprint[:12]})")
    return 0
