"""The flat layout's import paths keep working after the modules moved into stage sub-packages:
``mhmmkg.<old name>`` is the module at its new path, the very same object, in every import form."""
from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import mhmmkg
from mhmmkg._moved import MOVED, MOVED_SUBMODULES


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_is_the_module_at_its_new_path(old):
    new = importlib.import_module(f"mhmmkg.{MOVED[old]}")
    assert importlib.import_module(f"mhmmkg.{old}") is new
    assert getattr(mhmmkg, old) is new and sys.modules[f"mhmmkg.{old}"] is new
    assert new.__name__ == new.__spec__.name == f"mhmmkg.{MOVED[old]}"
    assert importlib.util.find_spec(f"mhmmkg.{old}") is not None


def test_old_paths_in_a_fresh_interpreter_import_only_what_is_asked():
    probe = ("import sys\n"
             "from mhmmkg.graph import KnowledgeGraph\n"
             "from mhmmkg.chat import OpenAIChat\n"
             "import mhmmkg.exports as exports\n"
             "from mhmmkg import manifest\n"
             "from mhmmkg.kg.graph import KnowledgeGraph as Same\n"
             "assert KnowledgeGraph is Same and exports.write_graphml and manifest.dataset_fingerprint\n"
             "assert OpenAIChat.__module__ == 'mhmmkg.llm.chat'\n"
             "print('heavy', sorted(m for m in ('datasets', 'pandas') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "heavy []" in out.stdout


def test_a_name_that_never_was_a_module_is_still_an_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("mhmmkg.no_such_module")
    with pytest.raises(AttributeError):
        mhmmkg.no_such_module


@pytest.mark.parametrize("old", sorted(MOVED_SUBMODULES))
def test_every_old_path_inside_a_sub_package_is_the_module_at_its_new_path(old):
    """The authors' protocol gathered in mhmmkg.official: ``mhmmkg.builders.official.kg``,
    ``mhmmkg.eval.import_results`` and the rest still name the moved modules themselves."""
    new = importlib.import_module(f"mhmmkg.{MOVED_SUBMODULES[old]}")
    assert importlib.import_module(f"mhmmkg.{old}") is new and sys.modules[f"mhmmkg.{old}"] is new
    parent, _, leaf = old.rpartition(".")
    assert getattr(importlib.import_module(f"mhmmkg.{parent}"), leaf) is new
    assert new.__name__ == new.__spec__.name == f"mhmmkg.{MOVED_SUBMODULES[old]}"


def test_old_paths_of_the_authors_protocol_in_a_fresh_interpreter():
    probe = ("from mhmmkg.builders.official import kg\n"
             "from mhmmkg.builders.official.routes import route_keys\n"
             "from mhmmkg.eval.import_results import convert_predictions\n"
             "from mhmmkg.baseline.official_prompts import import_prompts\n"
             "from mhmmkg.baseline.search.official import official_search, TRAITS\n"
             "from mhmmkg.benchmark.official_protocol import AUTHORS_SCORING, QUESTION_STYLE\n"
             "import mhmmkg.official.release.kg as same\n"
             "from mhmmkg.benchmark.protocols import SCORING\n"
             "from mhmmkg.benchmark.render import STYLES\n"
             "assert kg is same and SCORING['authors'] is AUTHORS_SCORING and STYLES['official'] is QUESTION_STYLE\n"
             "assert route_keys.__module__ == 'mhmmkg.official.release.routes'\n"
             "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
