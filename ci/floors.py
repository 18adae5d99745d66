"""Print the lowest declared versions of mhmmkg's requirements as pip constraints (name==floor).

Reads pyproject.toml, so the floors CI installs can never drift from the floors users are promised:
the runtime dependencies and the extras named on the command line. Every requirement must declare
a floor with ``>=``; one without is an error, because an unbounded dependency cannot be proven.

  python ci/floors.py official > floors.txt
  pip install -c floors.txt -e '.[official]'
"""
from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)")


def floors(extras: list[str]) -> dict[str, str]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    out: dict[str, str] = {}
    for requirement in requirements:
        match = FLOOR.match(requirement)
        if not match:
            raise SystemExit(f"{PYPROJECT}: requirement {requirement!r} declares no floor (name>=version)")
        name, version = match.group(1).lower().replace("_", "-"), match.group(2)
        if out.get(name, version) != version:
            raise SystemExit(f"{PYPROJECT}: {name} has two floors ({out[name]} and {version}) in the chosen extras")
        out[name] = version
    return out


if __name__ == "__main__":
    for name, version in floors(sys.argv[1:]).items():
        print(f"{name}=={version}")
