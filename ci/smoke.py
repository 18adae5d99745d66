"""Smoke test of an installed mhmmkg: the dependency versions are the declared floors, the default
dataset builds, every config loads with ``datasets.load_dataset``, and the offline baseline runs and
is evaluated. `make test-floors` runs it in an environment holding the lowest declared versions.

  python ci/smoke.py official      # check the floors of the runtime dependencies and the extra 'official'
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from floors import floors

ROOT = Path(__file__).resolve().parent.parent


def release(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".") if p.isdigit()]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def check_versions(extras: list[str]) -> None:
    wrong = []
    for name, floor in floors(extras).items():
        installed = version(name)
        print(f"  {name:<16} floor {floor:<8} installed {installed}")
        if release(installed) != release(floor):
            wrong.append(name)
    if wrong:
        raise SystemExit(f"smoke: not at their floors: {', '.join(wrong)}")


def mhmmkg(*args: str, cwd: Path) -> None:
    print("$ mhmmkg " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "mhmmkg", *args], cwd=cwd, check=True)


def check_configs(dataset: Path) -> None:
    import datasets
    import yaml

    card = (dataset / "README.md").read_text(encoding="utf-8").split("---\n")[1]
    infos = {info["config_name"]: info for info in yaml.safe_load(card)["dataset_info"]}
    for config in [c["config_name"] for c in yaml.safe_load(card)["configs"]]:
        split = infos[config]["splits"][0]
        rows = datasets.load_dataset(str(dataset), config, split=split["name"])
        print(f"  load_dataset({dataset.name!r}, {config!r}): {rows.num_rows} rows, {len(rows.features)} columns")
        if rows.num_rows != split["num_examples"]:
            raise SystemExit(f"smoke: {config} has {rows.num_rows} rows, the card says {split['num_examples']}")


def main(extras: list[str]) -> int:
    print(f"Python {sys.version.split()[0]}; dependency versions:")
    check_versions(extras)
    with tempfile.TemporaryDirectory(prefix="mhmmkg-smoke-") as tmp:
        work = Path(tmp)
        os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_CACHE=str(work / "cache"))
        mhmmkg("build", "--src", str(ROOT / "data"), "--out", "mh-mmkg", "--quiet", cwd=work)
        check_configs(work / "mh-mmkg")
        mhmmkg("demo", "--src", str(ROOT / "data"), "--dataset", "mh-mmkg", "--out", "runs", "--quiet", cwd=work)
    print("smoke: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
