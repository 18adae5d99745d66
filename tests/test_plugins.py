"""A plug-in from outside the package for each family that takes one: a module written into the
test's folder and named on the command line as FILE.py:FUNCTION (docs/architecture.md)."""
from __future__ import annotations

import json
from pathlib import Path

from mhmmkg.baseline.search import STRATEGIES
from mhmmkg.cli import main
from mhmmkg.eval.evaluate_cli import JUDGES
from mhmmkg.exports import EXPORTS
from mhmmkg.registry import Lazy, Registry
from test_run_options import old_rule_hash


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def plugin(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "plugin.py"
    file.write_text(text)
    return file


def offline_run(tiny_sources, out: Path, *more) -> int:
    return main(["run", "--quiet", "--setting", "perceptive", "--dataset", str(tiny_sources), "--out", str(out),
                 *map(str, more)])


def test_a_search_strategy_of_ones_own_is_named_by_file_and_function(tiny_sources, tmp_path):
    file = plugin(tmp_path, (
        "from mhmmkg.baseline.search import SearchResult\n"
        "def topic_only(graph, root, expand, validate, **options):\n"
        "    return SearchResult(paths=[(root,)], expansions=0)\n"))
    assert offline_run(tiny_sources, tmp_path / "run", "--search", f"{file}:topic_only") == 0
    submitted = lines(tmp_path / "run" / "submission.jsonl")
    assert submitted and all(line["paths"] == [[line["topic"]]] for line in submitted)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["search"]["order"] == f"{file}:topic_only"


def test_a_judge_of_ones_own_decides_the_accuracy(tiny_sources, tmp_path):
    assert offline_run(tiny_sources, tmp_path / "run") == 0
    file = plugin(tmp_path, (
        "from mhmmkg.eval.judges import Verdict\n"
        "class Refuses:\n"
        "    name = 'refuses-all'\n"
        "    def judge(self, item):\n"
        "        return Verdict(False, 'refuses')\n"
        "def make():\n"
        "    return Refuses()\n"))
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(tmp_path / "run" / "submission.jsonl"), "--dataset", str(tiny_sources),
                 "--judge", f"{file}:make", "--bootstrap", "0", "--quiet", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["judge"]["name"] == "refuses-all" and result["acc"] == 0


def test_an_export_of_ones_own_writes_what_out_names(tiny_sources, tmp_path):
    file = plugin(tmp_path, (
        "def ids(kg, out):\n"
        "    out.write_text(''.join(e.id + '\\n' for e in kg.entities))\n"))
    out = tmp_path / "ids.txt"
    assert main(["export", "--format", f"{file}:ids", "--dataset", str(tiny_sources), "--out", str(out)]) == 0
    assert "wolf" in out.read_text().split()


def test_a_model_backend_of_ones_own_answers_every_agent(tiny_sources, tmp_path, capsys):
    file = plugin(tmp_path, (
        "from mhmmkg.baseline.offline import OfflineChat\n"
        "class Renamed(OfflineChat):\n"
        "    fingerprint = 'my-backend|v1'\n"
        "def backend(options):\n"
        "    return Renamed()\n"))
    assert offline_run(tiny_sources, tmp_path / "mine", "--model", f"{file}:backend") == 0
    assert offline_run(tiny_sources, tmp_path / "offline", "--no-cache") == 0
    manifest = json.loads((tmp_path / "mine" / "manifest.json").read_text())
    assert manifest["backend"] == "my-backend|v1"
    answers = [[(line["query_id"], line["topic"], line["paths"], line["answer"])
                for line in lines(tmp_path / run / "submission.jsonl")] for run in ("mine", "offline")]
    assert answers[0] == answers[1] and answers[0]
    capsys.readouterr()
    assert offline_run(tiny_sources, tmp_path / "bad", "--model", f"{file}:absent") == 2
    assert "has no function 'absent'" in capsys.readouterr().err


def test_a_run_option_of_ones_own_is_one_field_and_the_code_that_reads_it(tiny_sources, tmp_path):
    """A run option from outside the package: a subclass of RunOptions adds one field (its flag and
    its record), and the user's backend reads it; the flag, the manifest and the hash follow."""
    import argparse
    import dataclasses
    import importlib.util

    from mhmmkg.baseline.options import COMMON, MODEL, RUN, SEARCH, add_flags, values_from
    from mhmmkg.baseline.runner import execute

    file = plugin(tmp_path, (
        "from dataclasses import dataclass\n"
        "from dataclasses import replace\n"
        "from mhmmkg.baseline.offline import OfflineChat\n"
        "from mhmmkg.baseline.options import HASHED_UNLESS_DEFAULT, SEARCH, RunOptions, flag, option\n"
        "from mhmmkg.baseline.prompts import agent_of\n"
        "@dataclass\n"
        "class ShoutingOptions(RunOptions):\n"
        "    shout: bool = option(False, record=HASHED_UNLESS_DEFAULT, cli=flag(\n"
        "        '--shout', group=SEARCH, action='store_true', help='answers in capitals'))\n"
        "class Shouting(OfflineChat):\n"
        "    fingerprint = 'shouting|v1'\n"
        "    def complete(self, request):\n"
        "        reply = super().complete(request)\n"
        "        summarizing = agent_of(request.messages[0].text) == 'summarizer'\n"
        "        return replace(reply, text=reply.text.upper()) if summarizing else reply\n"
        "def backend(options):\n"
        "    return Shouting() if options.shout else OfflineChat()\n"))
    spec = importlib.util.spec_from_file_location("shouting_plugin", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parser = argparse.ArgumentParser()
    for group in (RUN, COMMON, MODEL, SEARCH):
        add_flags(parser, group, module.ShoutingOptions)
    assert "--shout" in parser.format_help()
    outcomes = {}
    for name, extra in (("quiet", []), ("loud", ["--shout"])):
        args = parser.parse_args(["--setting", "know", "--out", str(tmp_path / name), "--dataset", str(tiny_sources),
                                  "--model", f"{file}:backend", "--quiet", "--no-cache", *extra])
        options = module.ShoutingOptions(**values_from(args, (RUN, COMMON, MODEL, SEARCH), module.ShoutingOptions))
        outcomes[name] = execute(dataclasses.replace(options, search=dataclasses.replace(options.search, order="bfs")))
    manifests = {name: json.loads((tmp_path / name / "manifest.json").read_text()) for name in outcomes}
    assert manifests["quiet"]["config"]["shout"] is False and manifests["loud"]["config"]["shout"] is True
    before = {k: v for k, v in manifests["quiet"]["config"].items() if k != "shout"}
    assert manifests["quiet"]["config_hash"] == old_rule_hash(before)       # at its default: the hash of before
    assert manifests["quiet"]["config_hash"] != manifests["loud"]["config_hash"]
    answers = {name: [line["answer"] for line in lines(tmp_path / name / "submission.jsonl")] for name in outcomes}
    assert answers["loud"] == [a.upper() for a in answers["quiet"]] and answers["loud"] != answers["quiet"]


def test_registries_list_their_names_lazily_and_refuse_what_they_do_not_hold():
    assert STRATEGIES.names() == ("bfs", "dfs", "paper", "official")
    assert "exact" in JUDGES and "openai" in JUDGES and "graphml" in EXPORTS
    lazy = Registry("demo", "--demo", {"dumps": Lazy("json:dumps")})
    assert lazy["dumps"] is json.dumps
    assert lazy.check("dumps") == "dumps"
    try:
        lazy.check("json:dumps")
    except Exception as exc:          # argparse reports it as a usage error, exit 2
        assert "invalid choice" in str(exc)
    else:
        raise AssertionError("a family without plug-ins accepted MODULE:FUNCTION")


def test_what_a_plug_in_raises_is_one_clear_message(tiny_sources, tmp_path, capsys):
    file = plugin(tmp_path, (
        "def search(graph, root, expand, validate, **options):\n"
        "    raise RuntimeError('no path today')\n"
        "def export(kg, out):\n"
        "    raise SystemExit(3)\n"))
    assert offline_run(tiny_sources, tmp_path / "run", "--search", f"{file}:search") == 2
    assert f"--search {file}:search: raised RuntimeError: no path today (at {file}:2)" in capsys.readouterr().err
    assert main(["export", "--format", f"{file}:export", "--dataset", str(tiny_sources),
                 "--out", str(tmp_path / "out.txt")]) == 2
    assert "the export tried to end the process" in capsys.readouterr().err


def test_a_setting_of_ones_own_is_a_setting_in_a_file(tiny_sources, tmp_path, capsys):
    """``--setting FILE.py:NAME``: a Setting declared outside the package runs as the built-in one
    it copies (here ``know`` under another name); the manifest records the reference."""
    file = plugin(tmp_path, (
        "from mhmmkg.benchmark.settings import Setting\n"
        "GIVEN = Setting('given-paths', 'the description and the ground-truth paths', scene='human',\n"
        "                retrieval='given')\n"
        "NOT_ONE = 'a string'\n"))
    assert main(["run", "--quiet", "--setting", f"{file}:GIVEN", "--dataset", str(tiny_sources),
                 "--out", str(tmp_path / "mine")]) == 0
    assert main(["run", "--quiet", "--setting", "know", "--dataset", str(tiny_sources),
                 "--out", str(tmp_path / "know")]) == 0
    mine, know = (lines(tmp_path / run / "submission.jsonl") for run in ("mine", "know"))
    assert [(m["paths"], m["answer"]) for m in mine] == [(k["paths"], k["answer"]) for k in know] and mine
    assert {m["meta"]["setting"] for m in mine} == {"given-paths"}
    manifest = json.loads((tmp_path / "mine" / "manifest.json").read_text())
    assert manifest["config"]["setting"] == f"{file}:GIVEN"
    capsys.readouterr()
    assert main(["run", "--quiet", "--setting", f"{file}:NOT_ONE", "--dataset", str(tiny_sources),
                 "--out", str(tmp_path / "bad")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"mhmmkg run: error: --setting '{file}:NOT_ONE': {file}: NOT_ONE is of type str, not a Setting")
    assert not (tmp_path / "bad").exists()


def test_a_question_style_of_ones_own_writes_what_the_agents_read(tiny_sources, tmp_path, capsys):
    """``--question-style FILE.py:NAME``: the agents read the text the user's QuestionStyle writes
    (the file's backend answers 'marked' when the summarizer's prompt holds the style's mark)."""
    file = plugin(tmp_path, (
        "from dataclasses import replace\n"
        "from mhmmkg.baseline.offline import OfflineChat\n"
        "from mhmmkg.baseline.prompts import agent_of\n"
        "from mhmmkg.benchmark.render import OPEN, QuestionStyle\n"
        "def marked(query, name, named, extra):\n"
        "    return 'MARK-7 ' + OPEN.question(query, name, named, extra)\n"
        "def broken(query, name, named, extra):\n"
        "    raise RuntimeError('no words today')\n"
        "MARKED = QuestionStyle(OPEN.fill, OPEN.extra, marked)\n"
        "BROKEN = QuestionStyle(OPEN.fill, OPEN.extra, broken)\n"
        "class Reader(OfflineChat):\n"
        "    fingerprint = 'reader|v1'\n"
        "    def complete(self, request):\n"
        "        reply = super().complete(request)\n"
        "        if agent_of(request.messages[0].text) != 'summarizer':\n"
        "            return reply\n"
        "        seen = any('MARK-7' in m.text for m in request.messages)\n"
        "        return replace(reply, text='marked' if seen else 'unmarked')\n"
        "def backend(options):\n"
        "    return Reader()\n"))
    answers = {}
    for name, style in (("mine", [f"{file}:MARKED"]), ("open", [])):
        assert offline_run(tiny_sources, tmp_path / name, "--model", f"{file}:backend", "--no-cache",
                           *(["--question-style", *style] if style else [])) == 0
        answers[name] = {line["answer"] for line in lines(tmp_path / name / "submission.jsonl")}
    assert answers == {"mine": {"marked"}, "open": {"unmarked"}}
    manifest = json.loads((tmp_path / "mine" / "manifest.json").read_text())
    assert manifest["config"]["question"]["style"] == f"{file}:MARKED"
    capsys.readouterr()
    assert offline_run(tiny_sources, tmp_path / "bad", "--question-style", f"{file}:BROKEN") == 2
    assert (f"--question-style {file}:BROKEN: raised RuntimeError: no words today (at {file}:8)"
            in capsys.readouterr().err)


def test_a_scoring_policy_of_ones_own_scores_as_its_fields_say(tiny_sources, tmp_path, capsys):
    """``evaluate --protocol FILE.py:NAME``: a ScoringPolicy of one's own fills the options not
    given, as a registered protocol does: the same scores as those options given one by one."""
    assert offline_run(tiny_sources, tmp_path / "run") == 0
    submission = tmp_path / "run" / "submission.jsonl"
    kept = submission.read_text().splitlines()[1:]
    submission.write_text("".join(line + "\n" for line in kept))        # one prediction missing
    file = plugin(tmp_path, (
        "from mhmmkg.benchmark.scoring import ScoringPolicy\n"
        "FORGIVING = ScoringPolicy('forgiving', matching='any', missing='skip')\n"))

    def scores(name: str, *options: str) -> dict:
        out = tmp_path / f"{name}.json"
        assert main(["evaluate", str(submission), "--dataset", str(tiny_sources), "--bootstrap", "0", "--quiet",
                     "--json", str(out), *options]) == 0
        return json.loads(out.read_text())

    mine = scores("mine", "--protocol", f"{file}:FORGIVING")
    given = scores("given", "--path-matching", "any", "--missing", "skip")
    default = scores("default")
    assert mine["protocol"] == f"{file}:FORGIVING" and given["protocol"] == "ours"
    figures = ("n", "n_missing", "acc", "precision", "recall", "by_subtask")
    assert {k: mine[k] for k in figures} == {k: given[k] for k in figures}
    assert {k: mine[k] for k in figures} != {k: default[k] for k in figures}
    capsys.readouterr()
    assert main(["evaluate", str(submission), "--dataset", str(tiny_sources), "--protocol", f"{file}:ABSENT"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"mhmmkg evaluate: error: --protocol '{file}:ABSENT': {file} has no ScoringPolicy 'ABSENT'")


def test_a_plug_in_is_imported_only_when_the_command_line_asks_for_it(tmp_path):
    """Looking a name up (``in``, ``[]``), as code reading a run's manifest or a submission does,
    never imports the file it names; ``resolve`` (the command line's choice) does, once."""
    from mhmmkg.benchmark.settings import SETTINGS

    marker = tmp_path / "imported"
    file = plugin(tmp_path, (
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text(Path({str(marker)!r}).read_text() + 'x' if Path({str(marker)!r}).exists() else 'x')\n"
        "from mhmmkg.benchmark.settings import Setting\n"
        "MINE = Setting('mine', 'a setting of my own')\n"))
    spec = f"{file}:MINE"
    assert spec not in SETTINGS and not marker.exists()
    try:
        SETTINGS[spec]
    except KeyError:
        pass
    else:
        raise AssertionError("a plug-in was looked up before it was asked for")
    assert not marker.exists()
    assert SETTINGS.resolve(spec).name == "mine" and marker.read_text() == "x"
    assert spec in SETTINGS and SETTINGS[spec] is SETTINGS.resolve(spec) and marker.read_text() == "x"
    assert spec not in SETTINGS.names()


def test_a_scoring_policy_naming_a_question_style_that_is_not_there_is_one_message(tiny_sources, tmp_path, capsys):
    assert offline_run(tiny_sources, tmp_path / "run") == 0
    file = plugin(tmp_path, (
        "from mhmmkg.benchmark.scoring import ScoringPolicy\n"
        "ODD = ScoringPolicy('odd', question_style='plain')\n"))
    assert main(["evaluate", str(tmp_path / "run" / "submission.jsonl"), "--dataset", str(tiny_sources),
                 "--protocol", f"{file}:ODD"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"mhmmkg evaluate: error: --protocol {file}:ODD: its question style: unknown question style 'plain' "
        "(choose from open, official)")


def test_a_scoring_policy_filling_an_option_with_no_such_value_is_one_message(tiny_sources, tmp_path, capsys):
    assert offline_run(tiny_sources, tmp_path / "run") == 0
    file = plugin(tmp_path, (
        "from mhmmkg.benchmark.scoring import ScoringPolicy\n"
        "ODD = ScoringPolicy('odd', matching='fuzzy')\n"))
    assert main(["evaluate", str(tmp_path / "run" / "submission.jsonl"), "--dataset", str(tiny_sources),
                 "--protocol", f"{file}:ODD"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"mhmmkg evaluate: error: --protocol {file}:ODD: --path-matching 'fuzzy' is not one of one-to-one, any, names")
