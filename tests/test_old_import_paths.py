"""The flat layout's import paths keep working after the modules moved into stage sub-packages:
``mhmmkg.<old name>`` is the module at its new path, the very same object, in every import form."""
from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import mhmmkg
from mhmmkg._moved import MOVED


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
