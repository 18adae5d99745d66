"""One output rule for every file a verb writes (issue 19): each verb's output option is walked
through the same hostile targets. A refusal is exit 2 with one message and leaves the target as
it was; nothing half-written is left beside it; a place we may write is written."""
from __future__ import annotations

import errno
import os
import shutil
import socket
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import write_tiny_sources
from deadline import deadline
from mhmmkg.cli import main
from test_prompt_sets import STAND_IN

SECONDS = 60


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> dict[str, Path]:
    """A built dataset, a run of the offline baseline, an authors' result file made from it and a
    stand-in of the authors' code, made once for the module (treated as read-only)."""
    from mhmmkg.builders.build import build_dataset

    root = tmp_path_factory.mktemp("outputs-bench")
    dataset = build_dataset(write_tiny_sources(root / "src"), root / "ds", quiet=True).out
    run = root / "runs" / "perceptive"
    assert main(["run", "--setting", "perceptive", "--dataset", str(dataset), "--out", str(run), "--quiet"]) == 0
    results = root / "results.json"
    assert main(["export-official-results", str(run / "submission.jsonl"), "--dataset", str(dataset),
                 "--out", str(results)]) == 0
    repo = root / "their-code"
    (repo / "things").mkdir(parents=True)
    (repo / "things" / "templates.py").write_text(STAND_IN.replace("MARKER_PATH", repr(str(root / "ran"))))
    (repo / "evaluation.py").write_text("from things.templates import evaluation_temp\n")
    ranking = root / "bm25.trec"
    assert main(["rank", "--dataset", str(dataset), "--out", str(ranking)]) == 0
    labels = root / "labels.jsonl"
    labels.write_text('{"query_id": "wolf-002", "reply": "Double Slam", "verdict": true, "kind": "hand:sentence"}\n')
    return {"dataset": dataset, "run": run, "submission": run / "submission.jsonl", "results": results, "repo": repo,
            "ranking": ranking, "labels": labels, "pages": root / "pages"}


@dataclass(frozen=True)
class Verb:
    suffix: str
    argv: Callable[[dict, Path], list[str]]
    works: bool = True          # False: the verb fails later for want of data (caption: no media)


VERBS = {
    "export graphml": Verb(".graphml", lambda b, out: ["export", "--format", "graphml", "--dataset", str(b["dataset"]),
                                                      "--out", str(out)]),
    "export triples": Verb(".tsv", lambda b, out: ["export", "--format", "triples", "--dataset", str(b["dataset"]),
                                                  "--out", str(out)]),
    "export jsonl-docs": Verb(".jsonl", lambda b, out: ["export", "--format", "jsonl-docs", "--dataset",
                                                       str(b["dataset"]), "--out", str(out)]),
    "export-official-results": Verb(".json", lambda b, out: ["export-official-results", str(b["submission"]),
                                                            "--dataset", str(b["dataset"]), "--out", str(out)]),
    "import-official-results": Verb(".jsonl", lambda b, out: ["import-official-results", str(b["results"]),
                                                             "--setting", "perceptive", "--kg", str(b["dataset"]),
                                                             "--out", str(out)]),
    "import-official-prompts": Verb(".json", lambda b, out: ["import-official-prompts", str(b["repo"]),
                                                            "--out", str(out)]),
    "evaluate --json": Verb(".json", lambda b, out: ["evaluate", str(b["submission"]), "--dataset", str(b["dataset"]),
                                                    "--bootstrap", "0", "--json", str(out)]),
    "evaluate --plot": Verb(".png", lambda b, out: ["evaluate", str(b["submission"]), "--dataset", str(b["dataset"]),
                                                   "--bootstrap", "0", "--plot", str(out)]),
    "report": Verb(".html", lambda b, out: ["report", str(b["run"]), "--dataset", str(b["dataset"]), "--quiet",
                                           "--out", str(out)]),
    "draw": Verb(".svg", lambda b, out: ["draw", "wolf", "--dataset", str(b["dataset"]), "--out", str(out)]),
    "export turtle": Verb(".ttl", lambda b, out: ["export", "--format", "turtle", "--dataset", str(b["dataset"]),
                                                 "--out", str(out)]),
    "export ntriples": Verb(".nt", lambda b, out: ["export", "--format", "ntriples", "--dataset", str(b["dataset"]),
                                                  "--out", str(out)]),
    "export triples by kind": Verb(".tsv", lambda b, out: ["export", "--format", "triples", "--relation", "kind",
                                                          "--dataset", str(b["dataset"]), "--out", str(out)]),
    "rank": Verb(".trec", lambda b, out: ["rank", "--dataset", str(b["dataset"]), "--out", str(out)]),
    "evaluate-retrieval --json": Verb(".json", lambda b, out: ["evaluate-retrieval", str(b["ranking"]), "--dataset",
                                                              str(b["dataset"]), "--bootstrap", "0", "--json", str(out)]),
    "judge-agreement --json": Verb(".json", lambda b, out: ["judge-agreement", "--labels", str(b["labels"]),
                                                           "--dataset", str(b["dataset"]), "--json", str(out)]),
    "report --csv": Verb(".csv", lambda b, out: ["report", str(b["run"]), "--dataset", str(b["dataset"]), "--quiet",
                                                "--out", str(b["pages"] / "csv.html"), "--csv", str(out)]),
    "report --latex": Verb(".tex", lambda b, out: ["report", str(b["run"]), "--dataset", str(b["dataset"]), "--quiet",
                                                  "--out", str(b["pages"] / "latex.html"), "--latex", str(out)]),
    "caption": Verb(".json", lambda b, out: ["caption", "--dataset", str(b["dataset"]), "--quiet", "--out", str(out)],
                    works=False),
}


def invoke(argv: list[str], capsys) -> tuple[int, str]:
    with deadline(SECONDS):
        code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.err


def state(path: Path):
    """What a target is, without following it: kind, link target, bytes."""
    if path.is_symlink():
        return "link", os.readlink(path)
    if not os.path.lexists(path):
        return "absent", None
    mode = path.lstat().st_mode
    if stat.S_ISREG(mode):
        return "file", path.read_bytes()
    if stat.S_ISDIR(mode):
        return "folder", sorted(p.name for p in path.iterdir())
    return stat.S_IFMT(mode), None


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.is_dir() else []


# ---------------------------------------------------------------------------------------------
# The hostile targets: each makes one under ``room`` and says what the refusal names

def symlink_to_a_device(room: Path, name: str) -> Path:
    (room / name).symlink_to("/dev/null")        # as /dev/stdout is; the real /dev is never touched
    return room / name


def symlink_to_a_file(room: Path, name: str) -> Path:
    (room / "elsewhere.txt").write_text("precious")
    (room / name).symlink_to(room / "elsewhere.txt")
    return room / name


def fifo(room: Path, name: str) -> Path:
    os.mkfifo(room / name)
    return room / name


def unix_socket(room: Path, name: str) -> Path:
    short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))      # socket paths must be short
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(short / "s"))
    server.close()
    os.rename(short / "s", room / name)
    shutil.rmtree(short)
    return room / name


def unrelated_file(room: Path, name: str) -> Path:
    (room / name).write_text("my own notes, years of work\n")
    return room / name


def folder(room: Path, name: str) -> Path:
    (room / name).mkdir()
    (room / name / "keep.txt").write_text("mine")
    return room / name


def inside_a_run_folder(room: Path, name: str) -> Path:
    run = room / "runs" / "other"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text('{"config": {"setting": "know"}, "config_hash": "abc"}\n')
    return run / name


def under_a_file(room: Path, name: str) -> Path:
    (room / "notes.txt").write_text("notes")
    return room / "notes.txt" / name


def read_only_folder(room: Path, name: str) -> Path:
    (room / "locked").mkdir()
    (room / "locked").chmod(0o555)
    return room / "locked" / name


HOSTILE = {
    "symlink to a device": (symlink_to_a_device, "symbolic link"),
    "symlink to a file": (symlink_to_a_file, "symbolic link"),
    "FIFO": (fifo, "FIFO"),
    "socket": (unix_socket, "not a regular file"),
    "unrelated file": (unrelated_file, "--force"),
    "folder": (folder, "is a folder"),
    "inside a run folder": (inside_a_run_folder, "a run folder made by 'mhmmkg run'"),
    "under a file": (under_a_file, "which is a file"),
    "read-only folder": (read_only_folder, "cannot write"),
}


@pytest.mark.parametrize("target", sorted(HOSTILE))
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_a_hostile_target_is_refused_and_left_as_it_was(verb, target, bench, tmp_path, capsys):
    make, reason = HOSTILE[target]
    if target == "read-only folder" and os.geteuid() == 0:
        pytest.skip("root writes into read-only folders (the EROFS/EACCES case is injected below)")
    out = make(tmp_path, "out" + VERBS[verb].suffix)
    before = state(out), state(tmp_path / "elsewhere.txt")
    code, err = invoke(VERBS[verb].argv(bench, out), capsys)
    assert code == 2 and reason in err and str(out.name) in err, err
    assert (state(out), state(tmp_path / "elsewhere.txt")) == before
    assert state(Path("/dev/null"))[0] == stat.S_IFCHR
    assert leftovers(out.parent) == []


@pytest.mark.parametrize("verb", sorted(v for v in VERBS if VERBS[v].works))
def test_a_missing_parent_is_made_and_our_own_file_is_replaced(verb, bench, tmp_path, capsys):
    out = tmp_path / "new" / "deeper" / ("out" + VERBS[verb].suffix)
    assert invoke(VERBS[verb].argv(bench, out), capsys)[0] == 0
    assert out.is_file() and out.stat().st_size > 0
    code, err = invoke(VERBS[verb].argv(bench, out), capsys)         # ours: recognised, replaced
    assert code == 0, err
    assert leftovers(out.parent) == []


@pytest.mark.parametrize("verb", sorted(v for v in VERBS if VERBS[v].works))
def test_force_replaces_a_file_we_did_not_make(verb, bench, tmp_path, capsys):
    out = unrelated_file(tmp_path, "out" + VERBS[verb].suffix)
    code, err = invoke([*VERBS[verb].argv(bench, out), "--force"], capsys)
    assert code == 0, err
    assert b"years of work" not in out.read_bytes()


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS, errno.EACCES])
@pytest.mark.parametrize("verb", sorted(v for v in VERBS if VERBS[v].works))
def test_a_failing_write_is_one_message_and_leaves_the_old_file(verb, error, bench, tmp_path, capsys, monkeypatch):
    """A full disk or a read-only mount cannot be made in a test: the errno is injected where
    every output is put in place (mhmmkg.atomic.publish)."""
    out = tmp_path / ("out" + VERBS[verb].suffix)
    assert invoke(VERBS[verb].argv(bench, out), capsys)[0] == 0
    before = out.read_bytes()

    def fail(staged, target):
        raise OSError(error, os.strerror(error), str(target))

    monkeypatch.setattr("mhmmkg.atomic.publish", fail)
    code, err = invoke(VERBS[verb].argv(bench, out), capsys)
    assert code == 2 and os.strerror(error) in err and out.name in err, err
    assert out.read_bytes() == before
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------------------------------------
# Folder outputs under the same rule

FOLDER_VERBS = {
    "build": lambda b, src, out: ["build", "--src", str(src), "--out", str(out), "--quiet"],
    "export neo4j": lambda b, src, out: ["export", "--format", "neo4j", "--dataset", str(b["dataset"]),
                                         "--out", str(out)],
    "run": lambda b, src, out: ["run", "--setting", "know", "--dataset", str(b["dataset"]), "--out", str(out),
                                "--quiet"],
}
FOLDER_HOSTILE = ("symlink to a device", "FIFO", "socket", "under a file", "unrelated file", "inside a run folder")


@pytest.mark.parametrize("target", FOLDER_HOSTILE)
@pytest.mark.parametrize("verb", sorted(FOLDER_VERBS))
def test_a_folder_output_refuses_the_same_targets(verb, target, bench, tmp_path, capsys):
    src = write_tiny_sources(tmp_path / "src")
    out = HOSTILE[target][0](tmp_path, "out")
    before = state(out)
    code, err = invoke(FOLDER_VERBS[verb](bench, src, out), capsys)
    assert code == 2 and "out" in err, err
    assert state(out) == before
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
@pytest.mark.parametrize("verb", sorted(FOLDER_VERBS))
def test_a_folder_output_on_a_full_or_read_only_disk(verb, error, bench, tmp_path, capsys, monkeypatch):
    src = write_tiny_sources(tmp_path / "src")

    def fail(staged, target):
        raise OSError(error, os.strerror(error), str(target))

    monkeypatch.setattr("mhmmkg.atomic.publish", fail)
    code, err = invoke(FOLDER_VERBS[verb](bench, src, tmp_path / "out"), capsys)
    assert code == 2 and os.strerror(error) in err, err
    if verb != "run":        # a run keeps its records (it resumes); the others leave nothing
        assert not (tmp_path / "out").exists()
    assert leftovers(tmp_path) == []
