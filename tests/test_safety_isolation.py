"""Tests keep to themselves: the suite's caches live in a folder of its own, and a test session
that builds and loads datasets leaves the user's home as it was (issue 19)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import SESSION_CACHE

ROOT = Path(__file__).resolve().parents[1]


def test_every_cache_of_the_session_lives_in_its_own_folder():
    import datasets
    import huggingface_hub.constants

    for folder in (datasets.config.HF_DATASETS_CACHE, huggingface_hub.constants.HF_HUB_CACHE,
                   os.environ["XDG_CACHE_HOME"], os.environ["MPLCONFIGDIR"]):
        assert Path(folder).resolve().is_relative_to(SESSION_CACHE.resolve()), folder


def test_a_test_session_leaves_the_users_home_untouched(tmp_path):
    """Builds, loads with datasets (by a folder name, as the README does) and writes reports in
    a child pytest whose HOME is an empty folder and whose cache variables are unset: the suite
    must point every cache elsewhere itself, so the folder stays empty."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HF_", "XDG_", "HUGGINGFACE_")) and k != "MPLCONFIGDIR"}
    env.update(HOME=str(home), HF_HUB_OFFLINE="1")
    tests = ["tests/test_build.py::test_rebuild_after_a_source_change_loads_the_new_data",
             "tests/test_build.py::test_all_configs_load_offline_with_declared_features",
             "tests/test_report.py::test_the_report_refuses_what_it_did_not_write"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []
