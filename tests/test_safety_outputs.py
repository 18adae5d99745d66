"""Nothing lost: an output never lands on an input, and a folder is replaced only when it holds
our own manifest; an interrupted folder swap is repaired by the next run (issue 11)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import write_tiny_sources
from mhmmkg.cli import main
from mhmmkg.manifest import dataset_fingerprint

DEAD_PID = 4_194_304 + 4_242        # above Linux's largest pid_max: never a running process


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def build(src: Path, out: Path | str, capsys) -> tuple[int, str]:
    code = main(["build", "--src", str(src), "--out", str(out), "--quiet"])
    return code, capsys.readouterr().err


@pytest.fixture
def project(tmp_path) -> Path:
    """A working folder holding the sources and other work of a user."""
    write_tiny_sources(tmp_path / "data")
    (tmp_path / "notes.txt").write_text("my notes")
    return tmp_path


@pytest.mark.parametrize("where, reason", [
    ("data", "is the input"),
    ("data/built", "inside the input folder"),
    (".", "holds the input"),
])
def test_build_out_on_or_around_the_sources_is_refused(project, where, reason, capsys, monkeypatch):
    monkeypatch.chdir(project)
    before = snapshot(project)
    code, err = build(Path("data"), where, capsys)
    assert code == 2 and reason in err and "Traceback" not in err, err
    assert snapshot(project) == before


def test_build_out_dot_or_above_the_working_folder_is_refused(project, capsys, monkeypatch):
    work = project / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for out in (".", ".."):
        before = snapshot(project)
        code, err = build(project / "data", out, capsys)
        assert code == 2 and ("current folder" in err or "holds the input" in err), err
        assert snapshot(project) == before


def test_build_refuses_a_folder_or_file_it_did_not_make(project, capsys):
    other = project / "other"
    other.mkdir()
    (other / "thesis.tex").write_text("years of work")
    code, err = build(project / "data", other, capsys)
    assert code == 2 and "is not a dataset folder built by 'mhmmkg build'" in err, err
    assert (other / "thesis.tex").read_text() == "years of work"
    code, err = build(project / "data", project / "notes.txt", capsys)
    assert code == 2 and "is a file" in err
    assert (project / "notes.txt").read_text() == "my notes"
    code, err = build(project / "data", project / "notes.txt" / "ds", capsys)
    assert code == 2 and "which is a file" in err


def test_build_replaces_its_own_output_but_not_files_added_to_it(project, capsys):
    out = project / "ds"
    assert build(project / "data", out, capsys)[0] == 0
    assert build(project / "data", out, capsys)[0] == 0
    (out / "data" / "mine.csv").write_text("added by hand")
    code, err = build(project / "data", out, capsys)
    assert code == 2 and "did not write (data/mine.csv)" in err
    assert (out / "data" / "mine.csv").is_file()
    (out / "manifest.json").write_text("[1, 2")                   # a damaged manifest is not ours
    code, err = build(project / "data", out, capsys)
    assert code == 2 and "no manifest.json of ours" in err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_build_into_a_place_that_cannot_be_written(project, capsys):
    code, err = build(project / "data", "/proc/mhmmkg-out", capsys)
    assert code == 2 and "cannot write in /proc" in err and "Traceback" not in err, err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_build_into_a_read_only_folder(project, capsys):
    locked = project / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        code, err = build(project / "data", locked / "ds", capsys)
    finally:
        locked.chmod(0o755)
    assert code == 2 and "cannot write in" in err


def test_neo4j_export_replaces_only_its_own_folder(project, capsys):
    out = project / "neo4j"
    argv = ["export", "--format", "neo4j", "--dataset", str(project / "data"), "--out", str(out)]
    assert main(argv) == 0
    assert json.loads((out / "manifest.json").read_text())["format"] == "mh-mmkg-neo4j/1"
    assert main(argv) == 0                                       # a re-export replaces it
    assert main([*argv[:-1], str(project)]) == 2                 # the folder of the user's work
    assert "holds the input" in capsys.readouterr().err
    (project / "empty-not").mkdir()
    (project / "empty-not" / "x.cypher").write_text("mine")
    assert main([*argv[:-1], str(project / "empty-not")]) == 2
    assert (project / "empty-not" / "x.cypher").read_text() == "mine"
    assert main(["export", "--format", "triples", "--dataset", str(project / "data"),
                 "--out", str(project / "data" / "shared.json")]) == 2
    assert "inside the input folder" in capsys.readouterr().err
    assert json.loads((project / "data" / "shared.json").read_text())["entities"]


def test_evaluate_never_writes_over_its_inputs(tiny_sources, tmp_path, capsys):
    from mhmmkg.eval import write_submission
    from mhmmkg.submission_file import meta_path

    sub = write_submission(tmp_path / "run.jsonl", [{"query_id": "wolf-001", "answer": "Thunder Wolf",
                                                       "paths": [["wolf"]]}], {"model": "m"})
    before = {p: p.read_bytes() for p in (sub, meta_path(sub))}
    for flag, target in (("--json", sub), ("--json", meta_path(sub)), ("--plot", sub),
                         ("--json", tiny_sources / "shared.json")):
        assert main(["evaluate", str(sub), "--dataset", str(tiny_sources), flag, str(target), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "an output never replaces an input" in err or "inside the input folder" in err
    assert {p: p.read_bytes() for p in before} == before


def test_demo_refuses_a_folder_of_runs_it_did_not_make(tiny_sources, tmp_path, capsys):
    runs = tmp_path / "runs"
    (runs / "know").mkdir(parents=True)
    (runs / "know" / "manifest.json").write_text(json.dumps({"config": {}, "config_hash": "x"}))
    (runs / "know" / "results.jsonl").write_text('{"query_id": "q1"}\n')
    before = snapshot(runs)
    code = main(["demo", "--quiet", "--src", str(tiny_sources), "--dataset", str(tmp_path / "ds"), "--out", str(runs)])
    assert code == 2 and "is not a demo folder made by 'mhmmkg demo'" in capsys.readouterr().err
    assert snapshot(runs) == before and not (tmp_path / "ds").exists()


def test_run_out_on_an_input_is_refused(tiny_sources, capsys):
    code = main(["run", "--setting", "know", "--dataset", str(tiny_sources), "--out", str(tiny_sources / "run")])
    assert code == 2 and "inside the input folder" in capsys.readouterr().err
    assert not (tiny_sources / "run").exists()


# ---------------------------------------------------------------------------------------------
# the staged swap, killed between its two renames

def test_a_swap_killed_between_its_renames_is_restored_by_the_next_run(tiny_sources, tmp_path, capsys):
    out = tmp_path / "ds"
    assert build(tiny_sources, out, capsys)[0] == 0
    fingerprint = dataset_fingerprint(out)
    # the crash: out moved to its backup name, the new build complete in its staging folder
    out.rename(tmp_path / f".ds.old-{DEAD_PID}-0a1b2c3d")
    staging = tmp_path / f".ds.staging-{DEAD_PID}-xyz"
    staging.mkdir()
    (staging / "half.parquet").write_bytes(b"PAR1")
    (tiny_sources / "shared.json").write_text("{")               # the next build fails ...
    code, err = build(tiny_sources, out, capsys)
    assert code == 2 and "shared.json" in err
    assert dataset_fingerprint(out) == fingerprint               # ... but the dataset is back
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "src"]


def test_recovery_cleans_leftovers_and_leaves_live_swaps_alone(tmp_path):
    from mhmmkg.atomic import recover_swap, staged_folder

    out = tmp_path / "ds"
    with staged_folder(out) as staging:
        (staging / "a.txt").write_text("new")
    (tmp_path / f".ds.old-{DEAD_PID}-aa").mkdir()                # the rmtree after a swap was cut short
    (tmp_path / f".ds.staging-{DEAD_PID}-bb").mkdir()            # a build killed while writing
    live = tmp_path / f".ds.staging-{os.getpid()}-cc"           # a build running right now
    live.mkdir()
    (tmp_path / ".ds.staging-notapid").mkdir()                   # not named the way we name ours
    recover_swap(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".ds.staging-notapid", live.name, "ds"])
    assert (out / "a.txt").read_text() == "new"
    shutil.rmtree(live)
