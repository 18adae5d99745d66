"""The dataset card: README.md with YAML front matter (configs, features, split sizes) and a body
rendered from ``dataset_card.md``.

Everything in it is computed from the build: the files each config points to, the row counts and
``size_categories``, the byte counts (``num_bytes`` as ``datasets`` counts them, since it keys its
cache of a YAML-configured folder on the YAML alone), the statistics, and what the content is and
under which license (see ``builders.origin``).

Provenance hook: when the statistics (``mhmmkg.stats.compute_stats``) hold a ``provenance``
mapping (``mhmmkg.provenance.provenance_figures``), the card lists it under "Provenance and
verification": ``with_source`` (0..1) as the share of facts with a source, ``by_kind`` as the
share with each kind of source, ``unverified`` (a count, or counts by kind) as the unverified
count, ``name_origin`` as counts per entity type, any other figure by its name (shares as
percentages).
"""
from __future__ import annotations

import pkgutil
from pathlib import Path
from string import Template

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from mhmmkg.dataset.configs import CONFIGS, DEFAULT_CONFIG
from mhmmkg.dataset.recorded_features import dataset_info_yaml
from mhmmkg.kg.stats import format_stats

from .origin import AUTHORS_QUESTIONS, AUTHORS_RELEASE, AUTHORS_REPOSITORY, CURATED

CARD_METADATA = {
    "pretty_name": "MH-MMKG",
    "language": ["en"],
    "task_categories": ["question-answering", "visual-question-answering", "graph-ml"],
    "tags": ["knowledge-graph", "multimodal", "retrieval-augmented-generation", "benchmark", "monster-hunter"],
}
# The authors' repository carries no license, so nothing imported from it can be given one here.
LICENSES = {CURATED: "cc-by-4.0", AUTHORS_RELEASE: "unknown", AUTHORS_QUESTIONS: "unknown"}
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"))
PROVENANCE_STATS_KEY = "provenance"
PROVENANCE_LABELS = {
    "authors_list_only": "share sourced only by the authors' release (question-list rows or its repository)",
    "repository_url": "sources that are the bare repository URL (not a source: no row or page backs them yet)",
    "queries_on_authors_list_only": "queries resting on a fact only the authors' release sources",
}
SOURCE_KIND_NAMES = {"table": "game table", "authors_list": "row of the authors' question list", "page": "public page"}

CONTENT = {
    CURATED: f"""\
The content is curated by the mhmmkg project from game knowledge and written in the project's
own words: monster subgraphs (attack actions with human-written captions of what a player sees,
phases, combos with their conditions, effects, weaknesses, props, monster links) and an open set
of benchmark queries written for this project. It is released under CC BY 4.0. It is **text
only**: no game media (images or videos) is shipped, so the vision settings of the baseline need
media you attach yourself. It is not the authors' annotation of the original MH-MMKG release
({AUTHORS_REPOSITORY}); people who hold that release can convert it with
`mhmmkg import-official ROOT --out DIR` and build it with `mhmmkg build --src DIR`.

Known limitations: captions describe moves from memory of play, not from frame-by-frame review;
move names follow common English usage, with the original release's spellings kept as aliases;
the perception texts stand in for the screenshots and clips of the original benchmark.""",
    AUTHORS_RELEASE: f"""\
This folder was converted with `mhmmkg import-official` from the original MH-MMKG release by the
paper's authors ({AUTHORS_REPOSITORY}): their knowledge graph, captions, media and questions. It
is **not** content of the mhmmkg project, and the mhmmkg project grants no license for it: the
authors' repository carries no license, so the license is unknown (`license: unknown`). Ask the
authors before you redistribute it, and cite their paper (below).""",
    AUTHORS_QUESTIONS: f"""\
The benchmark questions of this folder were converted with `mhmmkg import-official` from the
question list of the paper's authors ({AUTHORS_REPOSITORY}) and resolved against the mhmmkg
project's open knowledge graph (curated by the project, CC BY 4.0). The questions are **not**
content of the mhmmkg project and it grants no license for them: the authors' repository carries
no license, so the license of the whole is unknown (`license: unknown`). Ask the authors before
you redistribute it, and cite their paper (below).""",
}


def size_category(rows: int) -> str:
    return next((name for limit, name in SIZE_CATEGORIES if rows < limit), "n>10M")


def split_num_bytes(path: Path, table: pa.Table | None = None) -> int:
    """The split size as ``datasets`` records it when it prepares a Parquet split: the Arrow size of
    each batch it reads (one row group's number of rows at a time), summed.

    ``table``, the table written to ``path``, spares reading most of the file back: a column
    without nulls and of strings, bytes, booleans, lists or structs of them has in memory the size
    the reader gives it. The others are read back: the reader gives numbers a validity bitmap
    even without nulls, and a column with nulls one only in the batches that hold some."""
    parquet = pq.ParquetFile(path)
    if parquet.metadata.num_row_groups == 0:
        return 0
    batch_size = parquet.metadata.row_group(0).num_rows
    if table is None:
        return sum(pa.Table.from_batches([batch]).nbytes for batch in parquet.iter_batches(batch_size=batch_size))
    read_back = [name for name, column in zip(table.column_names, table.columns)
                 if not all(_sized_alike(chunk) for chunk in column.chunks)]
    in_memory = table.drop_columns(read_back)
    total = sum(in_memory.slice(start, batch_size).nbytes for start in range(0, table.num_rows, batch_size))
    if read_back:
        total += sum(pa.Table.from_batches([batch]).nbytes
                     for batch in parquet.iter_batches(batch_size=batch_size, columns=read_back))
    return total


def _sized_alike(array: pa.Array) -> bool:
    """True when the Parquet reader gives ``array`` the buffers it has in memory: no validity
    bitmap at any level, and only strings, bytes and booleans inside lists and structs."""
    kind = array.type
    if array.buffers()[0] is not None:
        return False
    if pa.types.is_string(kind) or pa.types.is_binary(kind) or pa.types.is_boolean(kind):
        return True
    if pa.types.is_list(kind):
        return _sized_alike(array.values)
    if pa.types.is_struct(kind):
        return all(_sized_alike(array.field(i)) for i in range(kind.num_fields))
    return False


def front_matter(tables: dict[str, pa.Table], files: dict[str, str], folder: Path, origin: str = CURATED) -> dict:
    configs, infos = [], []
    for config in CONFIGS:
        entry = {"config_name": config}
        if config == DEFAULT_CONFIG:
            entry["default"] = True
        entry["data_files"] = [{"split": CONFIGS[config], "path": files[config]}]
        configs.append(entry)
        num_bytes = split_num_bytes(folder / files[config], tables[config])
        infos.append(dataset_info_yaml(config, num_bytes, tables[config].num_rows,
                                       (folder / files[config]).stat().st_size, num_bytes))
    rows = sum(t.num_rows for t in tables.values())
    return {"pretty_name": CARD_METADATA["pretty_name"], "license": LICENSES[origin],
            **{k: v for k, v in CARD_METADATA.items() if k != "pretty_name"},
            "size_categories": [size_category(rows)], "configs": configs, "dataset_info": infos}


def provenance_text(stats: dict) -> str:
    figures = stats.get(PROVENANCE_STATS_KEY)
    if not figures:
        return ("This build records no provenance figures: its sources carry no `sources` or "
                "`unverified` fields.")
    lines = []
    for key, value in figures.items():
        if key == "with_source":
            lines.append(f"- share of facts with a source: {value:.1%}")
        elif key == "by_kind":
            lines.append("- share of facts with a source of each kind: " + ", ".join(
                f"{SOURCE_KIND_NAMES.get(k, k)} {_figure(v)}" for k, v in value.items()))
        elif key == "independently_sourced":
            lines.append(f"- share independently sourced (a game table or a public page): {_figure(value)}")
        elif key == "name_origin":
            lines.append("- name origin: " + "; ".join(
                f"{t} " + ", ".join(f"{origin} {n}" for origin, n in counts.items()) for t, counts in value.items()))
        elif key == "unverified":
            total = sum(value.values()) if isinstance(value, dict) else value
            parts = f" ({', '.join(f'{k} {v}' for k, v in value.items())})" if isinstance(value, dict) else ""
            lines.append(f"- unverified count: {total}{parts}")
        elif isinstance(value, dict):
            lines.append(f"- {_label(key)}: " + ", ".join(f"{k} {_figure(v)}" for k, v in value.items()))
        else:
            lines.append(f"- {_label(key)}: {_figure(value)}")
    return "\n".join(lines)


def _label(key: str) -> str:
    return PROVENANCE_LABELS.get(key, key.replace("_", " "))


def _figure(value) -> str:
    return f"{value:.1%}" if isinstance(value, float) else str(value)


def render_card(tables: dict[str, pa.Table], files: dict[str, str], folder: Path, stats: dict,
                origin: str = CURATED) -> str:
    header = yaml.safe_dump(front_matter(tables, files, folder, origin), sort_keys=False, allow_unicode=True,
                            width=1000)
    template = Template(pkgutil.get_data("mhmmkg.builders", "dataset_card.md").decode("utf-8"))
    body = template.substitute(
        stats=format_stats(stats),
        provenance=provenance_text(stats),
        content=CONTENT[origin],
        rows_graph=tables["graph"].num_rows,
        rows_attributes=tables["attributes"].num_rows,
        rows_queries=tables["queries"].num_rows,
    )
    return f"---\n{header}---\n\n{body}"
