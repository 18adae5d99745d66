"""The objects a command leaves to the operating system (``collector.leave_to_exit``)."""
import json
import subprocess
import sys

import pytest

from conftest import TINY_QUERIES

_SCRIPT = """
import gc, os, sys
from mhmmkg.collector import ending_process, leave_to_exit

marker = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_APPEND)

class Data:
    def __init__(self, name, cyclic):
        self.name, self.more = name, [self] if cyclic else []      # a graph's objects may hold cycles
    def __del__(self):
        os.write(marker, self.name.encode() + b"\\n")

if sys.argv[1] == "ending":
    ending_process()
kept, freed = Data("kept", cyclic=True), Data("freed", cyclic=False)
leave_to_exit(kept)
del kept, freed
gc.collect()
os.write(marker, b"end of program\\n")
"""


@pytest.mark.parametrize("process", ["ending", "library"])
def test_objects_left_to_exit_are_never_freed_only_in_a_process_that_ends_with_the_verb(tmp_path, process):
    marker = tmp_path / "freed.txt"
    subprocess.run([sys.executable, "-c", _SCRIPT, process, str(marker)], check=True, timeout=60)
    lines = marker.read_text().splitlines()
    if process == "ending":
        assert lines == ["freed", "end of program"]     # never freed, not even at exit
    else:
        assert lines[:3] == ["kept", "freed", "end of program"] or lines[:3] == ["freed", "kept", "end of program"]


def test_the_command_scores_as_main_does_and_main_keeps_nothing(tiny_dataset, tmp_path):
    from mhmmkg import collector
    from mhmmkg.cli import main

    records = [{"query_id": q["id"], "answer": q["answer"], "paths": q["paths"][:1]} for q in TINY_QUERIES["queries"]]
    submission = tmp_path / "sub.jsonl"
    submission.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    command = [sys.executable, "-m", "mhmmkg", "evaluate", str(submission), "--dataset", str(tiny_dataset), "--quiet"]
    subprocess.run([*command, "--json", str(tmp_path / "command.json")], check=True, timeout=300,
                   stdout=subprocess.DEVNULL)
    assert main(command[3:] + ["--json", str(tmp_path / "main.json")]) == 0
    assert collector._left is None
    by_command, by_main = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("command", "main"))
    assert by_command == by_main and by_main["n"] == len(records) and by_main["acc"] > 0


def test_the_build_command_writes_what_build_dataset_writes(tmp_path):
    from conftest import write_tiny_sources
    from mhmmkg import collector
    from mhmmkg.builders.build import build_dataset

    src = write_tiny_sources(tmp_path / "src")
    subprocess.run([sys.executable, "-m", "mhmmkg", "build", "--src", str(src), "--out", str(tmp_path / "command"),
                    "--quiet"], check=True, timeout=300, stdout=subprocess.DEVNULL)
    build_dataset(src, tmp_path / "library", quiet=True)
    assert collector._left is None
    files = sorted(p.relative_to(tmp_path / "library") for p in (tmp_path / "library").rglob("*") if p.is_file())
    assert len(files) > 3
    assert sorted(p.relative_to(tmp_path / "command") for p in (tmp_path / "command").rglob("*") if p.is_file()) == files
    for file in files:
        assert (tmp_path / "command" / file).read_bytes() == (tmp_path / "library" / file).read_bytes(), file
