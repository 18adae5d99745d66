"""``eval.yaml``: the file that registers a Hub dataset as a benchmark, naming how to run it.

The Hub reads it from the repository root (a beta feature in the Hub's documentation on
evaluation results; the format follows Inspect AI). Each task names the config and split of the
questions, the fields of a sample, and the solver and scorer by their Inspect registry names: the
ones ``mhmmkg.integrations.inspect_eval`` registers under ``mhmmkg/`` (``pip install
'mhmmkg[inspect]'``). One task per setting that needs no media.
"""
from __future__ import annotations

import yaml

from mhmmkg.dataset.configs import DEFAULT_CONFIG, CONFIGS
from mhmmkg.integrations import INSPECT_SETTINGS as SETTINGS


def eval_yaml() -> str:
    tasks = [{
        "id": setting,
        "config": DEFAULT_CONFIG,
        "split": CONFIGS[DEFAULT_CONFIG],
        "field_spec": {"id": "id", "input": "question", "target": "answer"},
        "solvers": [{"name": "mhmmkg/mh_solver", "args": {"setting": setting}}],
        "scorers": [{"name": "mhmmkg/mh_judge"}],
    } for setting in SETTINGS]
    document = {
        "name": "MH-MMKG",
        "description": "Questions about Monster Hunter: World battle scenes whose answers need knowledge from a "
                       "multimodal knowledge graph; tasks: " + "; ".join(f"{k} ({v})" for k, v in SETTINGS.items()),
        "evaluation_framework": "inspect-ai",
        "tasks": tasks,
    }
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000)
