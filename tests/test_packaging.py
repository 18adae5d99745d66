"""The distribution: one import namespace `mhmmkg`, schemas and card template shipped as package
data, and a wheel that works on its own (not only from the editable checkout)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_one_namespace_and_its_data(tmp_path):
    # build from a copy: setuptools leaves build/ and *.egg-info/ in the tree it builds
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "mh-mmkg*", "runs", "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "dist"), str(project)], check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("mhmmkg-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"mhmmkg"}
    for required in ("mhmmkg/schema/monster.schema.json", "mhmmkg/schema/queries.schema.json",
                     "mhmmkg/builders/dataset_card.md", "mhmmkg/eval/__init__.py", "mhmmkg/baseline/__init__.py",
                     "mhmmkg/baseline/prompt_sets/default.json", "mhmmkg/eval/prompt_sets/judge.json",
                     "mhmmkg/official/search.py"):
        assert required in names
    if (ROOT / "eval" / "agreement" / "labels.jsonl").is_file():    # the labelled agreement set, once it is in
        assert "mhmmkg/eval/agreement/labels.jsonl" in names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    from conftest import write_tiny_sources

    src = write_tiny_sources(tmp_path / "src")
    script = (
        "import mhmmkg, sys; from pathlib import Path;"
        f"assert Path(mhmmkg.__file__).is_relative_to({str(site)!r}), mhmmkg.__file__;"
        "from mhmmkg.cli import main;"
        f"sys.exit(main(['build', '--src', {str(src)!r}, '--out', {str(tmp_path / 'out')!r}, '--quiet']))"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                            env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "README.md").is_file()
