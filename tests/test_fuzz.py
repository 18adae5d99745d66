"""A fuzzer in the suite (issue 19): property-based tests feed every reader and every verb
generated hostile input (bytes, encodings, nesting, numbers, paths) and require that each run
ends in success or exit 2 with a message: never a traceback, never a hang (each example runs
under a deadline).

CI runs a fixed, small number of examples with a fixed seed (``derandomize``), about half a
minute on two cores. A longer run with fresh random examples (a failure prints the blob that
reproduces it): ``MHMMKG_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py``.
Hypothesis keeps no example database (nothing is written outside the temporary folders).
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import TINY_QUERIES, TINY_WOLF, write_tiny_sources
from deadline import deadline
from mhmmkg.cli import main
from mhmmkg.errors import UserError

EXAMPLES = int(os.environ.get("MHMMKG_FUZZ_EXAMPLES", "0")) or None
SECONDS = 20
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "mhworlddata"


def fuzz(examples: int):
    """Hypothesis settings of one property: ``examples`` in CI, MHMMKG_FUZZ_EXAMPLES when set."""
    return settings(max_examples=EXAMPLES or examples, derandomize=EXAMPLES is None, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=EXAMPLES is not None)


# ---------------------------------------------------------------------------------------------
# Hostile input

SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(10 ** 30), max_value=10 ** 30)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40))
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=20)
NASTY_TOKENS = st.sampled_from([
    "NaN", "-Infinity", "1e999", "-1e999", "9" * 5000, "1.5e-400", '"\\ud800"', '"\\udfff x"', '"\\u0000"',
    '{"a": 1, "a": 2}', "[" * 3000 + "]" * 3000, "{" * 200, "\ufeff{}", '"' + "x" * 100_000 + '"', "", " ", "\n",
])
ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32", "latin-1", "cp1252"])


@st.composite
def mutated(draw, valid: bytes) -> bytes:
    """``valid`` with a few bytes deleted, replaced or inserted."""
    data = bytearray(valid)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        cut = draw(st.integers(0, 8))
        data[at:at + cut] = draw(st.binary(max_size=8))
    return bytes(data)


@st.composite
def encoded(draw, text: str) -> bytes:
    codec = draw(ENCODINGS)
    return text.encode(codec, errors="replace")


@st.composite
def spliced(draw, valid: str) -> bytes:
    """A nasty token put in place of one value of a JSON text."""
    at = draw(st.integers(0, len(valid)))
    end = min(len(valid), at + draw(st.integers(0, 12)))
    return (valid[:at] + draw(NASTY_TOKENS) + valid[end:]).encode("utf-8", "surrogatepass")


@st.composite
def replaced_somewhere(draw, doc):
    """``doc`` (a JSON document) with one value, anywhere in it, replaced by a generated one."""
    doc = copy.deepcopy(doc)
    parent, key = None, None
    node = doc
    while isinstance(node, (dict, list)) and node and draw(st.booleans()):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, draw(st.sampled_from(keys))
        node = node[key]
    value = draw(JSON_VALUES)
    if parent is None:
        return value
    parent[key] = value
    return doc


def dumps(value) -> bytes:
    return json.dumps(value, allow_nan=True, ensure_ascii=draw_ascii(value)).encode("utf-8", "surrogatepass")


def draw_ascii(value) -> bool:
    return hash(json.dumps(value, allow_nan=True, sort_keys=True, default=str)) % 2 == 0


def hostile_json(valid_doc) -> st.SearchStrategy[bytes]:
    valid = json.dumps(valid_doc, indent=1)
    return st.one_of(
        replaced_somewhere(valid_doc).map(dumps),
        spliced(valid),
        mutated(valid.encode()),
        encoded(valid + " \u00e9\u4e2d"),
        JSON_VALUES.map(dumps),
        st.binary(max_size=300),
    )


# ---------------------------------------------------------------------------------------------
# Running a verb

@contextlib.contextmanager
def scratch():
    folder = Path(tempfile.mkdtemp(prefix="mhmmkg-fuzz-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def ends_cleanly(argv: list, allowed: tuple[int, ...] = (0, 2)) -> int:
    """Run a verb in-process under a deadline: it must return an allowed code, with a message
    when it refuses; any exception (a traceback) or a hang fails the example."""
    err = io.StringIO()
    with deadline(SECONDS), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:           # argparse's own refusal (e.g. --out -x): usage and exit 2
            code = exc.code
    assert code in allowed, (code, err.getvalue())
    if code == 2:
        assert "error:" in err.getvalue(), err.getvalue()
    return code


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    from mhmmkg.builders.build import build_dataset

    root = tmp_path_factory.mktemp("fuzz-bench")
    dataset = build_dataset(write_tiny_sources(root / "src"), root / "ds", quiet=True).out
    run = root / "run"
    assert main(["run", "--setting", "perceptive", "--dataset", str(dataset), "--out", str(run), "--quiet"]) == 0
    return {"dataset": dataset, "run": run}


# ---------------------------------------------------------------------------------------------
# The readers, called directly

@fuzz(600)
@given(data=hostile_json({"a": [1, 2.5, "x"], "b": {"c": None}}))
def test_reader_json_file(data):
    from mhmmkg.jsontext import read_json_file

    with scratch() as folder:
        (folder / "f.json").write_bytes(data)
        with deadline(SECONDS):
            try:
                read_json_file(folder / "f.json", "file")
            except UserError as exc:
                assert "f.json" in str(exc)


@fuzz(400)
@given(data=st.lists(hostile_json({"query_id": "q", "answer": "a", "paths": []}), max_size=4))
def test_reader_json_lines(data):
    from mhmmkg.jsontext import iter_json_lines

    with scratch() as folder:
        (folder / "f.jsonl").write_bytes(b"\n".join(data))
        with deadline(SECONDS):
            try:
                list(iter_json_lines(folder / "f.jsonl", "file"))
            except UserError as exc:
                assert "f.jsonl" in str(exc)


@fuzz(400)
@given(data=st.one_of(mutated(b"name_en,form,fire\nWolf,normal,3\n"), encoded("name_en,form\nW\u00e9,n\n"),
                      st.binary(max_size=300), st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_reader_csv(data):
    from mhmmkg.jsontext import read_csv_file

    with scratch() as folder:
        (folder / "t.csv").write_bytes(data)
        with deadline(SECONDS):
            try:
                read_csv_file(folder / "t.csv", "table", ("name_en",))
            except UserError as exc:
                assert "t.csv" in str(exc)


PYTHON_BITS = st.sampled_from([
    "def f(self):\n", "    return ", "'a' + ", "self.m()", " if x else ", "(", ")", "[", "]", "{", "}", "f'{x}'",
    "\n", "    ", "class TP:\n", "    def __init__(self, d, m, a=1, b=2):\n        self.x = d\n", "s = s + s\n",
    "import os\n", "while True:\n    pass\n", "lambda: 0", "\\x00", "\x00", "\udc80", "#", "'''", "*args", "**kw",
])


@fuzz(500)
@given(text=st.lists(PYTHON_BITS, max_size=40).map("".join), codec=ENCODINGS)
def test_verb_import_official_prompts(text, codec):
    """The prompt importer's reader of untrusted Python, through its verb."""
    with scratch() as folder:
        (folder / "things").mkdir()
        (folder / "things" / "templates.py").write_bytes(text.encode(codec, errors="surrogateescape")
                                                         if codec.startswith("utf-8") else
                                                         text.encode(codec, errors="replace"))
        ends_cleanly(["import-official-prompts", folder, "--out", folder / "set.json"])


@fuzz(150)
@given(data=st.one_of(st.binary(max_size=400), mutated(b"PK\x03\x04" + b"\x00" * 60)))
def test_reader_workbook(data):
    pytest.importorskip("openpyxl")
    from mhmmkg.builders.official.workbooks import read_sheets

    with scratch() as folder:
        (folder / "q.xlsx").write_bytes(data)
        with deadline(SECONDS):
            try:
                read_sheets(folder / "q.xlsx")
            except UserError as exc:
                assert "q.xlsx" in str(exc)


# ---------------------------------------------------------------------------------------------
# The verbs, in-process

@fuzz(150)
@given(monster=hostile_json(TINY_WOLF), queries=st.one_of(st.none(), hostile_json(TINY_QUERIES)))
@example(monster=json.dumps({**TINY_WOLF, "entities": [None]}).encode(), queries=None)    # found by a long run
def test_verb_build(monster, queries):
    with scratch() as folder:
        src = write_tiny_sources(folder / "src")
        (src / "monsters" / "wolf.json").write_bytes(monster)
        if queries is not None:
            (src / "queries" / "wolf.json").write_bytes(queries)
        ends_cleanly(["build", "--src", src, "--out", folder / "ds", "--quiet"])


@fuzz(250)
@given(lines=st.lists(hostile_json({"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]}),
                      min_size=1, max_size=6),
       meta=st.one_of(st.none(), hostile_json({"model": "m", "setting": "know"})))
def test_verb_evaluate(bench, lines, meta):
    with scratch() as folder:
        (folder / "sub.jsonl").write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
        if meta is not None:
            (folder / "sub.meta.json").write_bytes(meta)
        ends_cleanly(["evaluate", folder / "sub.jsonl", "--dataset", bench["dataset"], "--bootstrap", "0",
                      "--json", folder / "out.json"])


@fuzz(250)
@given(doc=hostile_json({"wolf-001": "Thunder Wolf",
                         "wolf-002": {"Answer": "Double Slam", "Route": [["Wolf", "Wolf Double Slam"]],
                                      "Description": [{"Wolf Double Slam": "slams"}]}}))
def test_verb_import_official_results(bench, doc):
    with scratch() as folder:
        (folder / "res.json").write_bytes(doc)
        ends_cleanly(["import-official-results", folder / "res.json", "--setting", "perceptive", "--kg",
                      bench["dataset"], "--out", folder / "sub.jsonl"])


@fuzz(60)
@given(calls=st.lists(hostile_json({"query_id": "wolf-001", "agent": "summarizer", "latency": 0.1}), max_size=3),
       manifest=hostile_json({"config": {"setting": "perceptive", "model": "offline"}, "config_hash": "x",
                              "created": "2025-01-01T00:00:00+00:00"}))
def test_verb_report(bench, calls, manifest):
    with scratch() as folder:
        run = folder / "run"
        shutil.copytree(bench["run"], run, ignore=shutil.ignore_patterns(".lock"))
        with (run / "calls.jsonl").open("ab") as log:
            log.write(b"\n".join(c.replace(b"\n", b" ") for c in calls) + b"\n")
        (run / "manifest.json").write_bytes(manifest)
        ends_cleanly(["report", run, "--dataset", bench["dataset"], "--quiet", "--out", folder / "r.html"])


@fuzz(120)
@given(table=st.sampled_from(["monster_weaknesses.csv", "monster_base.csv", "monster_ailments.csv"]), data=st.data())
def test_verb_audit_tables(table, data):
    valid = (REFERENCE / table).read_bytes()[:4000]
    content = data.draw(st.one_of(mutated(valid), encoded(valid.decode("utf-8", "replace")), st.binary(max_size=200)))
    with scratch() as folder:
        tables = folder / "tables"
        shutil.copytree(REFERENCE, tables)
        (tables / table).write_bytes(content)
        ends_cleanly(["audit", write_tiny_sources(folder / "src"), "--tables", tables], allowed=(0, 1, 2))


PATH_PARTS = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20),
    st.sampled_from(["..", ".", "", " ", "-", "--force", "x" * 300, "a\x00b", "\n", "runs", "ds", "é", "CON", "~",
                     "~0"]),
)


@fuzz(400)
@given(parts=st.lists(PATH_PARTS, min_size=1, max_size=4), fmt=st.sampled_from(["triples", "graphml", "jsonl-docs"]),
       occupant=st.sampled_from(["nothing", "file", "fifo", "folder", "link"]))
@example(parts=["~0"], fmt="triples", occupant="nothing")          # found by a long run
@example(parts=["~", "x.tsv"], fmt="triples", occupant="nothing")
def test_verb_export_to_generated_paths(bench, parts, fmt, occupant):
    """--out is any generated relative path inside a scratch folder (what is already there varies);
    a path that would leave the folder is not tried."""
    with scratch() as folder:
        relative = "/".join(parts)
        if relative.startswith("~") and relative[1:2] not in ("", "/") and "\x00" not in relative \
                and os.path.expanduser(relative.split("/")[0]) != relative.split("/")[0]:
            return                                     # ~user names another user's home: never tried
        target = Path(os.path.normpath(folder / relative)) if "\x00" not in relative else folder / relative
        if "\x00" not in relative and not target.is_relative_to(folder / "work"):
            if not (folder / "work" / relative).resolve().is_relative_to(folder):
                return
        (folder / "work").mkdir()
        out = folder / "work" / relative
        if occupant != "nothing" and "\x00" not in relative and len(out.name.encode()) < 250:
            with contextlib.suppress(OSError, ValueError):
                out.parent.mkdir(parents=True, exist_ok=True)
                {"file": lambda: out.write_text("mine"), "fifo": lambda: os.mkfifo(out), "folder": lambda: out.mkdir(),
                 "link": lambda: out.symlink_to("/dev/null")}[occupant]()
        cwd, home = os.getcwd(), os.environ.get("HOME")
        os.chdir(folder / "work")
        os.environ["HOME"] = str(folder / "home")         # were "~" ever expanded, it would stay in here
        try:
            ends_cleanly(["export", "--format", fmt, "--dataset", bench["dataset"], "--out", relative])
        finally:
            os.chdir(cwd)
            if home is not None:
                os.environ["HOME"] = home
        assert Path("/dev/null").is_char_device()


@fuzz(150)
@given(lines=st.lists(hostile_json({"query_id": "wolf-002", "answer": "Double Slam", "paths": [["wolf"]]}),
                      min_size=1, max_size=4))
def test_verb_validate(bench, lines):
    with scratch() as folder:
        (folder / "sub.jsonl").write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
        ends_cleanly(["validate", folder / "sub.jsonl", "--dataset", bench["dataset"]])


@fuzz(40)
@given(manifest=hostile_json({"config": {"setting": "perceptive"}, "config_hash": "x", "created": "2025"}),
       results=st.lists(hostile_json({"query_id": "wolf-001", "answer": "x", "paths": []}), max_size=2))
def test_verb_run_resume(bench, manifest, results):
    with scratch() as folder:
        run = folder / "run"
        shutil.copytree(bench["run"], run, ignore=shutil.ignore_patterns(".lock"))
        (run / "manifest.json").write_bytes(manifest)
        with (run / "results.jsonl").open("ab") as log:
            log.write(b"".join(r.replace(b"\n", b" ") + b"\n" for r in results))
        ends_cleanly(["run", "--setting", "perceptive", "--dataset", bench["dataset"], "--out", run, "--resume",
                      "--quiet"])
