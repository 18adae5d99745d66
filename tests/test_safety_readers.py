"""One strict reader for every file the package reads (issue 19): hostile JSON, JSON Lines, CSV
and text in every input a verb takes end with exit 2 and one message naming the file, the
place and the reason; never a traceback, never a hang on a FIFO."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import write_tiny_sources
from deadline import deadline
from mhmmkg.cli import main
from test_safety_file_outputs import bench  # noqa: F401  (the module's fixture)

SECONDS = 60
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "mhworlddata"

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_JSON = {
    "NaN": ('{"a": NaN}', "NaN is not valid JSON"),
    "Infinity by overflow": ('{"a": 1e999}', "too large"),
    "a 5000-digit integer": ('{"a": ' + "9" * 5000 + "}", "digits"),
    "lone surrogate": ('{"a": "\\ud800"}', "surrogate"),
    "duplicate key": ('{"a": 1, "a": 2}', "duplicate key"),
    "deep nesting": (DEEP, "levels deep"),
    "not UTF-8": (b'{"a": "caf\xe9"}', "not UTF-8"),
    "UTF-16": ('{"a": 1}'.encode("utf-16"), "UTF-16"),
    "garbage": (b"\x00\x01\x02garbage", "invalid JSON"),
}


def write(path: Path, content) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        path.unlink()
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return path


def invoke(argv: list[str], capsys) -> tuple[int, str]:
    with deadline(SECONDS):
        code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def copy_run(bench, tmp_path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(bench["run"], run, ignore=shutil.ignore_patterns(".lock"))
    return run


# Each input: where the hostile content goes, and the command that reads it.
def report_calls(bench, tmp_path, content):
    run = copy_run(bench, tmp_path)
    with (run / "calls.jsonl").open("ab") as log:          # a bad record among good ones is skipped
        log.write(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        log.write(b"\n")
    return run / "calls.jsonl", ["report", run, "--dataset", bench["dataset"], "--quiet", "--out", tmp_path / "r.html"]


def report_manifest(bench, tmp_path, content):
    run = copy_run(bench, tmp_path)
    write(run / "manifest.json", content)
    return run / "manifest.json", ["report", run, "--dataset", bench["dataset"], "--quiet", "--out", tmp_path / "r.html"]


def resume_manifest(bench, tmp_path, content):
    run = copy_run(bench, tmp_path)
    write(run / "manifest.json", content)
    return run / "manifest.json", ["run", "--setting", "perceptive", "--dataset", bench["dataset"], "--out", run,
                                   "--resume", "--quiet"]


def official_results(bench, tmp_path, content):
    path = write(tmp_path / "results.json", content)
    return path, ["import-official-results", path, "--setting", "perceptive", "--out", tmp_path / "sub.jsonl"]


def submission(bench, tmp_path, content):
    path = write(tmp_path / "sub.jsonl", content)
    return path, ["evaluate", path, "--dataset", bench["dataset"], "--bootstrap", "0"]


def run_metadata(bench, tmp_path, content):
    path = write(tmp_path / "sub.jsonl", bench["submission"].read_bytes())
    write(tmp_path / "sub.meta.json", content)
    return tmp_path / "sub.meta.json", ["evaluate", path, "--dataset", bench["dataset"], "--bootstrap", "0"]


def source_file(bench, tmp_path, content):
    src = write_tiny_sources(tmp_path / "src")
    write(src / "monsters" / "wolf.json", content)
    return src / "monsters" / "wolf.json", ["build", "--src", src, "--out", tmp_path / "ds", "--quiet"]


def origin_file(bench, tmp_path, content):
    src = write_tiny_sources(tmp_path / "src")
    write(src / "origin.json", content)
    return src / "origin.json", ["build", "--src", src, "--out", tmp_path / "ds", "--quiet"]


def prompt_set(bench, tmp_path, content):
    path = write(tmp_path / "prompts.json", content)
    return path, ["run", "--setting", "know", "--dataset", bench["dataset"], "--prompts", path, "--out",
                  tmp_path / "r", "--quiet"]


def dataset_manifest(bench, tmp_path, content):
    dataset = tmp_path / "ds"
    shutil.copytree(bench["dataset"], dataset)
    write(dataset / "manifest.json", content)
    return dataset / "manifest.json", ["evaluate", bench["submission"], "--dataset", dataset, "--bootstrap", "0"]


READERS = {
    "report: calls.jsonl": report_calls,
    "report: run manifest": report_manifest,
    "run --resume: run manifest": resume_manifest,
    "import-official-results: result file": official_results,
    "evaluate: submission": submission,
    "evaluate: run metadata": run_metadata,
    "build: source file": source_file,
    "build: origin.json": origin_file,
    "run: prompt set": prompt_set,
    "evaluate: dataset manifest": dataset_manifest,
}
#: readers that skip a bad record instead of stopping (the call log is a record, not a contract)
TOLERANT = {"report: calls.jsonl"}


@pytest.mark.parametrize("case", sorted(HOSTILE_JSON))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_hostile_json_in_every_reader(reader, case, bench, tmp_path, capsys):
    content, reason = HOSTILE_JSON[case]
    if reader in ("evaluate: submission", "report: calls.jsonl") and case == "deep nesting":
        content = "[" * 5000 + "]" * 5000          # one line of a JSON Lines file
    path, argv = READERS[reader](bench, tmp_path, content)
    code, err = invoke(argv, capsys)
    if reader in TOLERANT:
        assert code == 0, err
        return
    assert code == 2, err
    assert path.name in err and (reason in err or "not valid" in err or "invalid" in err), err


@pytest.mark.parametrize("reader", sorted(set(READERS) - TOLERANT))
def test_a_fifo_in_place_of_any_input_is_not_opened(reader, bench, tmp_path, capsys):
    path, argv = READERS[reader](bench, tmp_path, "{}")
    path.unlink()
    os.mkfifo(path)
    code, err = invoke(argv, capsys)
    assert code == 2 and path.name in err, err


@pytest.mark.parametrize("case", sorted(HOSTILE_JSON))
def test_hostile_captions_files(case, bench, tmp_path):
    """The captions file of ``run --captions`` (read once the setting's media checks passed)."""
    from mhmmkg.baseline.runner import load_captions
    from mhmmkg.errors import UserError
    from mhmmkg.loading import load_graph

    content, reason = HOSTILE_JSON[case]
    path = write(tmp_path / "captions.json", content)
    with deadline(SECONDS), pytest.raises(UserError) as refused:
        load_captions(path, load_graph(bench["dataset"]))
    assert "captions.json" in str(refused.value)


def test_a_fifo_call_log_does_not_hang_the_report(bench, tmp_path, capsys):
    path, argv = report_calls(bench, tmp_path, "{}")
    path.unlink()
    os.mkfifo(path)
    code, err = invoke(argv, capsys)
    assert code == 2 and "calls.jsonl" in err and "not a regular file" in err, err


def test_a_run_manifest_whose_config_is_not_an_object(bench, tmp_path, capsys):
    path, argv = resume_manifest(bench, tmp_path, '{"config": [1], "config_hash": "x"}')
    code, err = invoke(argv, capsys)
    assert code == 2 and "manifest.json" in err and "config is an object" in err, err
    path, argv = report_manifest(bench, tmp_path / "b", '{"config": [1]}')
    assert invoke(argv, capsys)[0] == 0


def test_a_utf8_byte_order_mark_is_accepted(bench, tmp_path, capsys):
    src = write_tiny_sources(tmp_path / "src")
    wolf = src / "monsters" / "wolf.json"
    wolf.write_bytes(b"\xef\xbb\xbf" + wolf.read_bytes())
    assert invoke(["build", "--src", src, "--out", tmp_path / "ds", "--quiet"], capsys)[0] == 0


# ---------------------------------------------------------------------------------------------
# CSV: audit --tables

def tables_with(tmp_path: Path, table: str, content: bytes) -> Path:
    folder = tmp_path / "tables"
    shutil.copytree(REFERENCE, folder)
    (folder / table).write_bytes(content)
    return folder


HOSTILE_CSV = {
    "garbage": (b"\x00\x01garbage\n\xff\xfe", "not UTF-8"),
    "latin-1": ("name_en,form\nCaf\xe9,normal\n".encode("latin-1"), "not UTF-8"),
    "no header": (b"", "empty"),
    "missing columns": (b"a,b\n1,2\n", "has no column"),
    "ragged row": (None, "fields where the header has"),
    "a 5 MB field": (None, "not valid CSV"),
    "stars not a number": (None, "expected a star count"),
}


def _weaknesses_row(**change) -> bytes:
    lines = (REFERENCE / "monster_weaknesses.csv").read_bytes().split(b"\n")
    header = lines[0].decode().split(",")
    row = dict(zip(header, lines[1].decode().split(",")))
    row.update(change)
    return (",".join(header) + "\n" + ",".join(row.values()) + "\n").encode()


@pytest.mark.parametrize("case", sorted(HOSTILE_CSV))
def test_hostile_reference_tables(case, tmp_path, capsys):
    content, reason = HOSTILE_CSV[case]
    if case == "ragged row":
        content = (REFERENCE / "monster_weaknesses.csv").read_bytes() + b"only,three,fields\n"
    elif case == "a 5 MB field":
        content = _weaknesses_row(alt_description='"' + "x" * (5 << 20) + '"')
    elif case == "stars not a number":
        content = _weaknesses_row(fire="lots")
    tables = tables_with(tmp_path, "monster_weaknesses.csv", content)
    code, err = invoke(["audit", write_tiny_sources(tmp_path / "src"), "--tables", tables], capsys)
    assert code == 2 and "monster_weaknesses.csv" in err and reason in err, err


def test_audit_of_a_monster_that_does_not_exist(tmp_path, capsys):
    code, err = invoke(["audit", write_tiny_sources(tmp_path / "src"), "--tables", REFERENCE, "--monster", "nosuch"],
                       capsys)
    assert code == 2 and "nosuch" in err and "no monster" in err, err
