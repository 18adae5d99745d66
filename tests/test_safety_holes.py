"""The holes issue 19 lists one by one: a retriever that exits, raises, fails to import or never
returns; audit of a monster that does not exist; a bad % escape in a report link; an empty
video; sources without queries; blank answers and questions."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deadline import deadline
from mhmmkg.cli import main

ROOT = Path(__file__).resolve().parents[1]
REPORT_JS = ROOT / "eval" / "html_report" / "report.js"


def run_with(retriever_code: str, tiny_sources: Path, tmp_path: Path, capsys) -> tuple[int, str, Path]:
    file = tmp_path / "mine.py"
    file.write_text(retriever_code)
    out = tmp_path / "run"
    with deadline(60):
        code = main(["run", "--quiet", "--setting", "perceptive", "--dataset", str(tiny_sources), "--out", str(out),
                     "--retriever", f"{file}:retrieve"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err, out


@pytest.mark.parametrize("body, words", [
    ("    raise SystemExit(0)\n", ["SystemExit(0)", "tried to end the process"]),
    ("    import sys\n    sys.exit()\n", ["SystemExit(None)"]),
    ("    raise ValueError('my bug')\n", ["ValueError: my bug", "mine.py:2"]),
    ("    return {}['missing']\n", ["KeyError", "mine.py:2"]),
])
def test_a_retriever_that_exits_or_raises_names_the_query_and_the_place(body, words, tiny_sources, tmp_path, capsys):
    code, err, out = run_with("def retrieve(query, graph):\n" + body, tiny_sources, tmp_path, capsys)
    assert code == 2, err
    assert "query wolf-00" in err and all(w in err for w in words), err
    assert not (out / "submission.jsonl").exists()


@pytest.mark.parametrize("code, words", [
    ("def retrieve(query, graph):\n    return [[\n", ["mine.py:2", "not valid Python"]),
    ("import no_such_library_at_all\n", ["cannot import", "no_such_library_at_all"]),
    ("raise RuntimeError('at import')\ndef retrieve(q, g):\n    return []\n", ["RuntimeError: at import", "mine.py:1"]),
    ("raise SystemExit(0)\n", ["SystemExit(0)"]),
])
def test_a_retriever_that_cannot_be_imported_says_where(code, words, tiny_sources, tmp_path, capsys):
    status, err, _ = run_with(code, tiny_sources, tmp_path, capsys)
    assert status == 2 and all(w in err for w in words), err


def test_ctrl_c_stops_a_run_whose_retriever_never_returns(tiny_sources, tmp_path):
    """In a child process (Ctrl-C is a signal to a whole process): the retriever sleeps forever;
    SIGINT ends the run at once with exit 130, a message, and the run folder's records. The child
    gets SIGINT's default action back: a suite started in the background (``make test &``, nohup)
    inherits SIGINT ignored, and Python then rightly keeps ignoring it."""
    called = tmp_path / "called"
    file = tmp_path / "sleepy.py"
    file.write_text(f"import time, pathlib\ndef retrieve(query, graph):\n"
                    f"    pathlib.Path({str(called)!r}).touch()\n    while True:\n        time.sleep(1)\n")
    out = tmp_path / "run"
    child = subprocess.Popen([sys.executable, "-m", "mhmmkg", "run", "--quiet", "--setting", "perceptive",
                              "--dataset", str(tiny_sources), "--out", str(out), "--retriever", f"{file}:retrieve"],
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(600):
            if called.exists() or child.poll() is not None:
                break
            time.sleep(0.1)
        assert called.exists(), "the retriever was never called"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err, err
    assert (out / "manifest.json").is_file() and not (out / "submission.jsonl").exists()


def test_audit_of_a_monster_that_does_not_exist_is_an_error(tiny_sources, capsys):
    code = main(["audit", str(tiny_sources), "--tables", str(ROOT / "data" / "reference" / "mhworlddata"),
                 "--monster", "nosuch"])
    err = capsys.readouterr().err
    assert code == 2 and "'nosuch'" in err and "known: dark-wolf, wolf" in err, err


def test_an_empty_video_is_refused_by_name(tiny_sources, tmp_path, capsys):
    wolf = tiny_sources / "monsters" / "wolf.json"
    doc = json.loads(wolf.read_text())
    doc["entities"][2]["media"] = {"video": "media/empty.mp4"}
    wolf.write_text(json.dumps(doc))
    (tiny_sources / "media").mkdir()
    (tiny_sources / "media" / "empty.mp4").write_bytes(b"")
    code = main(["build", "--src", str(tiny_sources), "--out", str(tmp_path / "ds"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "/entities/2/media/video" in err and "empty (0 bytes)" in err, err


def test_sources_without_queries_are_refused_clearly(tiny_sources, tmp_path, capsys):
    for path in (tiny_sources / "queries").iterdir():
        path.unlink()
    (tiny_sources / "queries").rmdir()
    code = main(["build", "--src", str(tiny_sources), "--out", str(tmp_path / "ds"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "queries: no queries" in err, err
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize("field, blank", [("answer", "  "), ("question", "\t\n"), ("perception", " ")])
def test_a_blank_text_is_refused_by_the_build(field, blank, tiny_sources, tmp_path, capsys):
    queries = tiny_sources / "queries" / "wolf.json"
    doc = json.loads(queries.read_text())
    doc["queries"][1][field] = blank
    queries.write_text(json.dumps(doc))
    code = main(["build", "--src", str(tiny_sources), "--out", str(tmp_path / "ds"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and f"/queries/1/{field}" in err and "blank" in err, err


def test_the_query_browser_reads_a_link_with_a_malformed_escape():
    """report.js decodes the link's fragment through one guarded function; node runs it on the
    escapes that make decodeURIComponent throw."""
    script = REPORT_JS.read_text()
    assert len(re.findall(r"decodeURIComponent\(", script)) == 1, "every decode goes through decoded()"
    body = re.search(r"function decoded\(text\) \{.*?\n  \}", script, re.S)
    assert body, "report.js has no decoded() function"
    node = "/usr/bin/node" if Path("/usr/bin/node").exists() else None
    if node is None:
        pytest.skip("no node to run the function")
    probe = body.group(0) + '\nconsole.log(JSON.stringify(["%E0%A4%A", "100%", "back%20slam", "%"].map(decoded)));'
    done = subprocess.run([node, "-e", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["%E0%A4%A", "100%", "back slam", "%"]
