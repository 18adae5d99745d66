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
    """Builds, loads with datasets (by a folder name, as the README does), writes reports and
    fuzzes in a child pytest whose HOME and working folder are empty folders and whose cache
    variables are unset: the suite must point every cache elsewhere itself, so both stay empty."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HF_", "XDG_", "HUGGINGFACE_")) and k != "MPLCONFIGDIR"}
    env = {k: v for k, v in env.items() if not k.startswith("HYPOTHESIS_")}
    env.update(HOME=str(home), HF_HUB_OFFLINE="1", MHMMKG_FUZZ_EXAMPLES="5")
    tests = ["test_build.py::test_rebuild_after_a_source_change_loads_the_new_data",
             "test_build.py::test_all_configs_load_offline_with_declared_features",
             "test_report.py::test_the_report_refuses_what_it_did_not_write",
             "test_fuzz.py::test_reader_csv"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                           *(str(ROOT / "tests" / t) for t in tests)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []
    assert sorted(p.relative_to(cwd).as_posix() for p in cwd.rglob("*")) == []
