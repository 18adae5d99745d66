"""The dataset card: README.md with YAML front matter (configs, features, split sizes) and a body
rendered from ``dataset_card.md``. Sizes are recomputed on every build, because the datasets
library keys its cache of a YAML-configured folder on the YAML alone."""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from string import Template

import pyarrow as pa
import yaml
from datasets import DatasetInfo, SplitDict, SplitInfo

from mhmmkg.features import CONFIGS, DEFAULT_CONFIG, FEATURES

CARD_METADATA = {
    "pretty_name": "MH-MMKG",
    "license": "cc-by-4.0",
    "language": ["en"],
    "task_categories": ["question-answering", "visual-question-answering"],
    "tags": ["knowledge-graph", "multimodal", "retrieval-augmented-generation", "benchmark", "monster-hunter"],
    "size_categories": ["n<1K"],
}


def front_matter(tables: dict[str, pa.Table], files: dict[str, str], folder: Path) -> dict:
    configs, infos = [], []
    for config in CONFIGS:
        entry = {"config_name": config}
        if config == DEFAULT_CONFIG:
            entry["default"] = True
        entry["data_files"] = [{"split": CONFIGS[config], "path": files[config]}]
        configs.append(entry)
        splits = SplitDict()
        splits.add(SplitInfo(name=CONFIGS[config], num_bytes=tables[config].nbytes,
                             num_examples=tables[config].num_rows))
        info = DatasetInfo(features=FEATURES[config], config_name=config, splits=splits,
                           download_size=(folder / files[config]).stat().st_size,
                           dataset_size=tables[config].nbytes)
        infos.append(info._to_yaml_dict())
    return {**CARD_METADATA, "configs": configs, "dataset_info": infos}


def render_card(tables: dict[str, pa.Table], files: dict[str, str], folder: Path, stats_text: str) -> str:
    header = yaml.safe_dump(front_matter(tables, files, folder), sort_keys=False, allow_unicode=True, width=1000)
    template = Template(resources.files("mhmmkg.builders").joinpath("dataset_card.md").read_text("utf-8"))
    body = template.substitute(
        stats=stats_text,
        rows_graph=tables["graph"].num_rows,
        rows_attributes=tables["attributes"].num_rows,
        rows_queries=tables["queries"].num_rows,
    )
    return f"---\n{header}---\n\n{body}"
