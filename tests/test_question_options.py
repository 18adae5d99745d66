"""``mhmmkg run --no-name / --no-extra / --question-style``: what the endpoint is really asked."""
from __future__ import annotations

import json

from stub_server import StubServer, offline_responder
from test_baseline_stub import run_online

from mhmmkg.baseline.prompts import sections


def asked(server: StubServer) -> dict[str, dict[str, str]]:
    """Sections of the user message of every request (stripped), by question text."""
    found = {}
    for request in server.requests:
        user = next(m["content"] for m in request["body"]["messages"] if m["role"] == "user")
        parts = sections(user if isinstance(user, str) else "".join(p.get("text", "") for p in user))
        found[parts["Question"]] = parts
    return found


def run_asking(tiny_sources, tmp_path, name: str, *options: str) -> dict[str, dict[str, str]]:
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, tmp_path / name, "--setting", "vanilla_plus", "--no-cache",
                          *options) == 0
    return asked(server)


def test_the_question_options_change_what_the_model_is_asked(tiny_sources, tmp_path):
    default = run_asking(tiny_sources, tmp_path, "default")
    assert default["I am playing 'Monster Hunter: World' and fighting with Wolf. Which attack is Wolf using?"][
        "Auxiliary information"] == "Wolf is charged."

    anonymous = run_asking(tiny_sources, tmp_path, "no-name", "--no-name")
    assert anonymous["I am playing 'Monster Hunter: World'. Which attack is the monster using?"][
        "Auxiliary information"] == "The monster is charged."
    text_only = "I am playing 'Monster Hunter: World' and fighting with Wolf. What is the nickname of Wolf?"
    assert text_only in anonymous      # wolf-001 has no scene: only its name tells which monster it is
    assert not any("Wolf" in text for question, parts in anonymous.items() if question != text_only
                   for text in parts.values())

    bare = run_asking(tiny_sources, tmp_path, "no-extra", "--no-extra")
    assert {parts["Auxiliary information"] for parts in bare.values()} == {""}

    authors = run_asking(tiny_sources, tmp_path, "authors", "--no-name", "--question-style", "official")
    assert authors["I am playing 'Monster Hunter: World'. Which attack is  the monster using?"][
        "Auxiliary information"] == "Wolf is charged."   # the authors' code names the monster here


def test_question_options_are_part_of_the_run_configuration(tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(offline_responder()) as server:
        assert run_online(server, tiny_sources, out, "--setting", "vanilla_plus", "--no-cache", "--no-name") == 0
        config = json.loads((out / "manifest.json").read_text())["config"]
        assert config["question"] == {"style": "open", "use_name": False, "use_extra": True}
        assert json.loads((out / "submission.meta.json").read_text())["question"]["use_name"] is False
        assert run_online(server, tiny_sources, out, "--setting", "vanilla_plus", "--no-cache", "--resume") == 2
    assert "differs in: question" in capsys.readouterr().err
