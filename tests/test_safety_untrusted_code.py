"""The prompt importer reads untrusted Python: every hostile file ends, quickly, with exit 2 and a
message naming the file (issue 19). Nothing here is ever run (test_prompt_sets proves that)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from deadline import deadline
from mhmmkg.cli import main
from test_prompt_sets import STAND_IN

SECONDS = 20


def methods_calling_the_next_twice(n: int) -> str:
    chain = "".join(f"    def m{i}(self):\n        return self.m{i + 1}() + self.m{i + 1}()\n\n" for i in range(n))
    return chain + f"    def m{n}(self):\n        return 'x'\n\n"


def in_topic(body: str) -> str:
    """STAND_IN with the body of topic_entity_selection replaced."""
    old = '    def topic_entity_selection(self):\n        return f"{self.head} ZZ-TOPIC {self.question} from {self.subgraph_options}"\n'
    assert old in STAND_IN
    return STAND_IN.replace(old, "    def topic_entity_selection(self):\n" + body)


def doubling(lines: int, start: str = '"ab"') -> str:
    return in_topic(f"        s = {start}\n" + "        s = s + s\n" * lines + "        return s\n")


def nested_conditionals(depth: int) -> str:
    return in_topic("        return " + "'a' if self.use_name else " * depth + "'b'\n")


CASES = {
    # name: (file text or bytes, words the message holds)
    "40 methods each calling the next twice": (
        in_topic("        return self.m0()\n\n" + methods_calling_the_next_twice(40)), "steps"),
    "40 lines of s = s + s": (doubling(40), "longer than"),
    "a number doubled 400 times": (doubling(400, "1"), "number this large"),
    "a 100 MB constant": (in_topic("        return '" + "x" * (100 << 20) + "'\n"), "over the limit"),
    "200k-term concatenation": (in_topic("        s = 'a'\n        return " + "+".join(["s"] * 200_000) + "\n"),
                                "templates.py"),
    "3,000 nested conditionals": (nested_conditionals(3000), "templates.py"),
    "a NUL escape inside a string": (in_topic('        return "a\\x00b"\n'), "NUL"),
    "a NUL byte in the file": (in_topic('        return "a\x00b"\n'), "NUL"),
    "latin-1 text": (in_topic('        return "caf\xe9"\n').encode("latin-1"), "not UTF-8"),
    "UTF-16 text": (STAND_IN.encode("utf-16"), "UTF-16"),
    "not Python": ("def (:\n", "not valid Python"),
}


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "their-code"
    (root / "things").mkdir(parents=True)
    (root / "evaluation.py").write_text("from things.templates import evaluation_temp\n")
    return root


def run_import(repo: Path, out: Path, capsys) -> tuple[int, str]:
    with deadline(SECONDS):
        code = main(["import-official-prompts", str(repo), "--out", str(out)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_templates_end_with_exit_2(case, repo, tmp_path, capsys):
    text, words = CASES[case]
    target = repo / "things" / "templates.py"
    target.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    code, err = run_import(repo, tmp_path / "set.json", capsys)
    assert code == 2 and words in err and "Traceback" not in err, err
    assert not (tmp_path / "set.json").exists()


def test_the_stand_in_still_imports(repo, tmp_path, capsys):
    (repo / "things" / "templates.py").write_text(STAND_IN.replace("MARKER_PATH", repr(str(tmp_path / "ran"))))
    code, err = run_import(repo, tmp_path / "set.json", capsys)
    assert code == 0, err
    assert not (tmp_path / "ran").exists()


def test_a_templates_fifo_is_not_opened(repo, tmp_path, capsys):
    os.mkfifo(repo / "things" / "templates.py")
    code, err = run_import(repo, tmp_path / "set.json", capsys)
    assert code == 2 and "not a regular file" in err, err


@pytest.mark.parametrize("name", ["things/templates.py", "evaluation.py"])
def test_a_symlink_out_of_the_repository_is_not_followed(name, repo, tmp_path, capsys):
    secret = tmp_path / "secret.py"
    secret.write_text(STAND_IN.replace("MARKER_PATH", repr(str(tmp_path / "ran"))))
    if name == "evaluation.py":
        (repo / "things" / "templates.py").write_text(STAND_IN.replace("MARKER_PATH", repr(str(tmp_path / "ran"))))
        (repo / name).unlink()
    (repo / name).symlink_to(secret)
    code, err = run_import(repo, tmp_path / "set.json", capsys)
    assert code == 2 and "leads outside" in err, err


def test_a_symlink_inside_the_repository_is_read(repo, tmp_path, capsys):
    real = repo / "things" / "real_templates.py"
    real.write_text(STAND_IN.replace("MARKER_PATH", repr(str(tmp_path / "ran"))))
    (repo / "things" / "templates.py").symlink_to(real)
    code, err = run_import(repo, tmp_path / "set.json", capsys)
    assert code == 0, err


def test_out_a_fifo_is_refused_without_blocking(repo, tmp_path, capsys):
    (repo / "things" / "templates.py").write_text(STAND_IN.replace("MARKER_PATH", repr(str(tmp_path / "ran"))))
    os.mkfifo(tmp_path / "out.json")
    code, err = run_import(repo, tmp_path / "out.json", capsys)
    assert code == 2 and "FIFO" in err, err
