"""The command line's parser: a command line that starts with its verb is parsed by a parser
holding that verb alone, with the same help, the same errors and the same arguments as the parser
of every verb."""
from __future__ import annotations

import pytest

from mhmmkg.cli import VERBS, build_parser, main


def _parsed(argv: list[str], capsys, **alone) -> tuple[object, str, str]:
    try:
        outcome = vars(build_parser(argv[0], **alone).parse_args(argv))
    except SystemExit as exc:
        outcome = ("exit", exc.code)
    captured = capsys.readouterr()
    return outcome, captured.out, captured.err


@pytest.mark.parametrize("argv", [
    ["evaluate", "--help"], ["evaluate"], ["evaluate", "sub.jsonl"], ["evaluate", "sub.jsonl", "--no-such-option"],
    ["evaluate", "sub.jsonl", "--bootstrap", "many"], ["evaluate", "sub.jsonl", "info", "--quiet", "--seed", "3"],
    ["validate", "sub.jsonl", "extra"], ["info", "--help"], ["info"],
])
def test_a_verb_alone_is_parsed_as_among_every_verb(argv, capsys):
    alone = _parsed(argv, capsys, alone=True)
    assert alone == _parsed(argv, capsys)
    assert alone[1] or alone[2] or alone[0]["verb"] == argv[0]


def test_a_command_line_starting_with_an_option_still_lists_every_verb(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["-h", "evaluate"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and all(verb in out for verb in VERBS)
