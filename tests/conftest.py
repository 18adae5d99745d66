"""Shared fixtures: a tiny sources folder written fresh for each test, and its built dataset."""
from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Tests never touch the network: the Hub client and datasets stay offline throughout.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

#: Tests keep to themselves: every cache a library may write to (the Hugging Face hub and
#: datasets caches, matplotlib's font cache, Hypothesis's files, our chat and judge caches)
#: lives in one folder made for this session and removed after it, never in the user's home.
#: Set here, at import time, before anything imports datasets (which reads these variables once).
SESSION_CACHE = Path(tempfile.mkdtemp(prefix="mhmmkg-test-caches-"))
for _variable, _folder in {"HF_HOME": "hf", "HF_DATASETS_CACHE": "hf/datasets", "HF_HUB_CACHE": "hf/hub",
                           "XDG_CACHE_HOME": "xdg-cache", "XDG_CONFIG_HOME": "xdg-config",
                           "MPLCONFIGDIR": "matplotlib", "HYPOTHESIS_STORAGE_DIRECTORY": "hypothesis"}.items():
    os.environ[_variable] = str(SESSION_CACHE / _folder)
os.environ.pop("HUGGINGFACE_HUB_CACHE", None)
atexit.register(shutil.rmtree, SESSION_CACHE, ignore_errors=True)

#: The authors' files (question list, code), read where they lie when present: ../shared/official
#: beside the checkout, or the folder MHMMKG_OFFICIAL_DIR names (e.g. from a git worktree).
OFFICIAL_DIR = Path(os.environ.get("MHMMKG_OFFICIAL_DIR") or Path(__file__).parents[2] / "shared" / "official")

TINY_SHARED = {
    "entities": [
        {"id": "element.fire", "name": "Fire Element", "type": "element", "aliases": ["Fire"], "text": "Burns."},
        {"id": "element.ice", "name": "Ice Element", "type": "element", "aliases": ["Ice"], "text": "Freezes."},
        {"id": "prop.flash-pod", "name": "Flash Pod", "type": "prop", "text": "Blinds monsters."},
        {"id": "effect.fireblight", "name": "Fireblight", "type": "attack_effect", "text": "The hunter burns."},
    ],
    "relations": [],
}

TINY_WOLF = {
    "monster": "wolf",
    "entities": [
        {"id": "wolf", "name": "Wolf", "type": "monster", "aliases": ["Thunder Wolf"],
         "text": "A fanged wyvern nicknamed the Thunder Wolf that charges itself with thunderbugs."},
        {"id": "wolf.charged-phase", "name": "Charged Phase", "type": "attack_phase",
         "text": "Its back glows; its moves gain thunder."},
        {"id": "wolf.double-slam", "name": "Double Slam", "type": "attack_action",
         "caption": "Rears up and slams both forepaws down twice.", "text": "Thunder damage."},
        {"id": "wolf.back-slam", "name": "Back Slam", "type": "attack_action",
         "caption": "Flips over and lands on its back.", "text": "Hits hunters behind it."},
        {"id": "wolf.bite", "name": "Bite", "type": "attack_action", "caption": "Snaps its jaws forward."},
        {"id": "wolf.spark", "name": "Spark Trail", "type": "attack_effect", "text": "A line of sparks that lingers."},
    ],
    "relations": [
        {"head": "wolf", "type": "has_attack_phase", "tail": "wolf.charged-phase"},
        {"head": "wolf.charged-phase", "type": "has_attack_action", "tail": "wolf.double-slam"},
        {"head": "wolf", "type": "has_attack_action", "tail": "wolf.bite"},
        {"head": "wolf", "type": "has_attack_action", "tail": "wolf.back-slam"},
        {"head": "wolf.double-slam", "type": "continues_with", "tail": "wolf.back-slam", "condition": "if the hunter is behind it"},
        {"head": "wolf.double-slam", "type": "continues_with", "tail": "wolf.bite"},
        {"head": "wolf.back-slam", "type": "continues_with", "tail": "wolf.double-slam", "condition": "when enraged"},
        {"head": "wolf.double-slam", "type": "generates", "tail": "wolf.spark"},
        {"head": "wolf", "type": "mostly_weak_to", "tail": "element.ice"},
        {"head": "wolf", "type": "can_be_stopped_by", "tail": "prop.flash-pod"},
        {"head": "wolf", "type": "has_subspecies", "tail": "dark-wolf"},
    ],
}

TINY_DARK_WOLF = {
    "monster": "dark-wolf",
    "entities": [
        {"id": "dark-wolf", "name": "Dark Wolf", "type": "monster", "text": "Subspecies of the Wolf charged with dragon energy."},
        {"id": "dark-wolf.double-slam", "name": "Double Slam", "type": "attack_action",
         "caption": "Rears up, red sparks, slams twice."},
    ],
    "relations": [
        {"head": "dark-wolf", "type": "has_attack_action", "tail": "dark-wolf.double-slam"},
        {"head": "dark-wolf", "type": "subspecies_of", "tail": "wolf"},
        {"head": "dark-wolf", "type": "weak_to", "tail": "element.fire"},
    ],
}

TINY_QUERIES = {
    "queries": [
        {"id": "wolf-001", "subtask": 1, "monster": "wolf", "question": "What is the nickname of {monster}?",
         "answer": "Thunder Wolf", "paths": [["wolf"]]},
        {"id": "wolf-002", "subtask": 2, "monster": "wolf", "question": "Which attack is {monster} using?",
         "extra": "{monster} is charged.", "perception": "It rears up and slams its paws twice.",
         "answer": "Double Slam", "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam"]]},
        {"id": "wolf-003", "subtask": 3, "monster": "wolf", "question": "What does {monster} do next if I am behind it?",
         "perception": "It slams twice.", "answer": "Back Slam",
         "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam", "wolf.back-slam"]]},
        {"id": "wolf-004", "subtask": 4, "monster": "wolf", "question": "When does {monster} follow its Back Slam with a Double Slam?",
         "perception": "It lands on its back.", "answer": "When enraged",
         "paths": [["wolf", "wolf.back-slam", "wolf.double-slam"]]},
        {"id": "wolf-005", "subtask": 5, "monster": "wolf", "question": "What does this attack leave behind?",
         "perception": "Sparks on the ground.", "answer": "Spark Trail",
         "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam", "wolf.spark"]]},
        {"id": "wolf-006", "subtask": 6, "monster": "wolf", "question": "How does the subspecies' version differ?",
         "perception": "Red sparks.", "answer": "Red sparks instead of blue",
         "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam"], ["wolf", "dark-wolf", "dark-wolf.double-slam"]]},
    ]
}


def write_json(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def write_tiny_sources(root: Path) -> Path:
    """A small but complete sources folder: two monsters, shared entities, six queries (I..VI)."""
    write_json(root / "shared.json", TINY_SHARED)
    write_json(root / "monsters" / "wolf.json", TINY_WOLF)
    write_json(root / "monsters" / "dark-wolf.json", TINY_DARK_WOLF)
    write_json(root / "queries" / "wolf.json", TINY_QUERIES)
    return root


def build_keyed_dataset(root: Path, keys: dict[str, dict]) -> Path:
    """The tiny sources with the given answer keys (query id -> key) on their queries, built into ``root/ds``."""
    import copy

    from mhmmkg.builders.build import build_dataset

    src = write_tiny_sources(root / "src")
    queries = copy.deepcopy(TINY_QUERIES)
    for q in queries["queries"]:
        if q["id"] in keys:
            q["key"] = keys[q["id"]]
    write_json(src / "queries" / "wolf.json", queries)
    return build_dataset(src, root / "ds", quiet=True).out


@pytest.fixture
def tiny_sources(tmp_path) -> Path:
    return write_tiny_sources(tmp_path / "src")


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory) -> Path:
    """The tiny sources built once per session into a dataset folder (treat as read-only)."""
    from mhmmkg.builders.build import build_dataset

    root = tmp_path_factory.mktemp("tiny")
    src = write_tiny_sources(root / "src")
    out = root / "mh-mmkg"
    build_dataset(src, out, quiet=True)
    return out
