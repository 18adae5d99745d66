"""Prompt sets: the file format, our default set, the authors' prompts imported with ast (from a
stand-in the test writes, and from the user's copy of their code when present), and using an
imported set in `mhmmkg run --prompts` and `mhmmkg evaluate --judge-prompts`."""
from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
from stub_server import StubServer
from test_baseline_run import check_submission, lines, run

from mhmmkg.baseline.prompts import default_prompts
from mhmmkg.cli import main
from mhmmkg.errors import UserError
from mhmmkg.prompt_sets import AGENT_FIELDS, load_prompt_set, placeholders, prompt_set_from_dict

ROOT = Path(__file__).resolve().parents[1]


def official_code() -> Path | None:
    for candidate in (ROOT / ".." / "shared" / "official" / "code", Path("/work/shared/official/code")):
        if (candidate / "things" / "templates.py").is_file():
            return candidate.resolve()
    return None


# A stand-in for the authors' things/templates.py: the same structure (a class TP built from a data
# point and a mode, methods that call each other and branch on the mode, the scene, the memory and
# the number of frames; judge functions), with invented text. Top-level code that would leave a
# marker file if it ever ran.
STAND_IN = '''
open(MARKER_PATH, "w").write("the importer ran this file")


class TP:
    def __init__(self, data_point, mode, use_name=True, use_extra=True):
        self.subgraph_options = ["Wolf", "Dark Wolf"]
        self.monster_name = data_point["Monster Name"]
        self.question = data_point["Question"]
        self.images = data_point["Images"]
        self.perception = data_point["Perception"]
        self.use_name = use_name
        self.mode = mode
        self.head = "ZZ-HEAD you help a hunter."

    def frames(self):
        if len(self.images) == 1:
            return "ZZ-ONE-FRAME"
        else:
            return "ZZ-MANY-FRAMES"

    def scene(self):
        if self.perception == "":
            temp = f"ZZ-PLAIN {self.question}"
        elif "Vision-needed" in self.mode:
            temp = self.frames() + f" ZZ-LOOK {self.question}"
        else:
            temp = f"ZZ-SCENE <{self.perception}> ZZ-ASK {self.question}"
        return temp

    def memory(self, memory):
        if memory != "":
            return f"ZZ-SO-FAR [{memory}]"
        return ""

    def topic_entity_selection(self):
        return f"{self.head} ZZ-TOPIC {self.question} from {self.subgraph_options}"

    def question_image_understanding(self):
        return f"{self.head} {self.frames()} ZZ-DESCRIBE {self.question}"

    def question_answer(self, knowledge):
        if knowledge != "":
            temp_ = f"ZZ-KNOWLEDGE [{knowledge}]"
        else:
            temp_ = "ZZ-NO-KNOWLEDGE"
        print("never printed")
        return f"{self.head} {self.scene()} {temp_} ZZ-ANSWER"

    def entity_selection(self, memory, current_entity, neighbor_entity):
        return f"{self.head} ZZ-PICK from {current_entity}: {neighbor_entity} {self.memory(memory)} scene {self.perception}"

    def entity_analysis(self, memory, entity, entity_info, entity_images=""):
        temp = ""
        if "Online" in self.mode and entity_images != "":
            temp += "ZZ-ALSO-DESCRIBE; "
        temp += f"ZZ-ENOUGH? {entity} {entity_info} {self.memory(memory)}"
        return f"{self.head} {self.scene()} {temp}"


def offline_images_description(images, name, entity):
    return f"ZZ-CAPTION{name} {entity} ({len(images)} frames)"


def evaluation_temp(question, answer1, answer2):
    return f"ZZ-JUDGE {question} | {answer1} | {answer2} | {{Yes or No}}"


def evaluation_temp_caption(truth, generated):
    return f"ZZ-CAPTION-JUDGE {truth} | {generated}"
'''


@pytest.fixture
def stand_in(tmp_path) -> Path:
    repo = tmp_path / "their-code"
    (repo / "things").mkdir(parents=True)
    marker = tmp_path / "ran.txt"
    (repo / "things" / "templates.py").write_text(STAND_IN.replace("MARKER_PATH", repr(str(marker))))
    (repo / "evaluation.py").write_text("from things.templates import evaluation_temp\nraise SystemExit(3)\n")
    return repo


def import_set(repo: Path, out: Path) -> dict:
    assert main(["import-official-prompts", str(repo), "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_the_default_set_is_a_valid_versioned_file_of_our_own_prompts():
    default = default_prompts()
    assert default.name == "mhmmkg-default" and default.version >= 1 and len(default.sha256) == 64
    assert set(default.agents) == set(AGENT_FIELDS) - {"judge", "caption_judge"}
    again = prompt_set_from_dict(json.loads(json.dumps(default.as_dict())), "copy")
    assert again.sha256 == default.sha256
    changed = default.as_dict()
    changed["agents"]["topic"]["templates"][0]["user"] += " "
    assert prompt_set_from_dict(changed, "changed").sha256 != default.sha256


def test_imported_stand_in_templates_never_run_and_keep_every_case(stand_in, tmp_path):
    document = import_set(stand_in, tmp_path / "set.json")
    assert not (tmp_path / "ran.txt").exists()
    prompts = load_prompt_set(tmp_path / "set.json")
    assert prompts.name == "official" and prompts.empty == ""
    assert re.search(r"sha256 [0-9a-f]{64}", document["source"])
    assert {a: prompts.reply(a) for a in ("expansion", "validation", "validation_online", "judge")} == {
        "expansion": "names", "validation": "yes_no", "validation_online": "yes_no_description", "judge": "yes_no"}
    fields = {"question": "Q", "full_question": "FULL-Q", "extra": "X", "monster": "Wolf", "scene": "S",
              "knowledge": "K", "memory": "M", "entity": "E", "entity_name": "Bite", "step": "", "path": "Wolf",
              "candidates": "C1; C2", "monsters": ""}
    _, topic = prompts.render("topic", fields)
    assert topic == "ZZ-HEAD you help a hunter. ZZ-TOPIC FULL-Q from ['Wolf', 'Dark Wolf']"
    assert prompts.render("summarizer", fields, 0)[1] == \
        "ZZ-HEAD you help a hunter. ZZ-SCENE <S> ZZ-ASK FULL-Q ZZ-KNOWLEDGE [K] ZZ-ANSWER"
    assert prompts.render("summarizer", {**fields, "scene": ""}, 0)[1] == \
        "ZZ-HEAD you help a hunter. ZZ-PLAIN FULL-Q ZZ-KNOWLEDGE [K] ZZ-ANSWER"
    # frames attached: the authors' vision branch (no description shown), one frame or several
    assert prompts.render("summarizer", fields, 1)[1] == \
        "ZZ-HEAD you help a hunter. ZZ-ONE-FRAME ZZ-LOOK FULL-Q ZZ-KNOWLEDGE [K] ZZ-ANSWER"
    assert "ZZ-MANY-FRAMES ZZ-LOOK" in prompts.render("direct", {**fields, "scene": ""}, 3)[1]
    assert prompts.render("direct", fields, 0)[1].endswith("ZZ-NO-KNOWLEDGE ZZ-ANSWER")
    assert prompts.render("validation", {**fields, "memory": ""})[1] == \
        "ZZ-HEAD you help a hunter. ZZ-SCENE <S> ZZ-ASK FULL-Q ZZ-ENOUGH? Bite E "
    assert "ZZ-ALSO-DESCRIBE; ZZ-ENOUGH? Bite E ZZ-SO-FAR [M]" in prompts.render("validation_online", fields, 1)[1]
    assert prompts.render("expansion", fields)[1].startswith("ZZ-HEAD you help a hunter. ZZ-PICK from Bite: C1; C2")
    assert prompts.render("captioner", {"monster": "Wolf", "entity": "Bite"}, 2)[1] == "ZZ-CAPTION with Wolf Bite (2 frames)"
    assert prompts.render("perceiver", fields, 1)[1] == "ZZ-HEAD you help a hunter. ZZ-ONE-FRAME ZZ-DESCRIBE FULL-Q"
    # the judge comes from templates.py (evaluation.py only imports it); literal braces survive
    assert prompts.render("judge", {"question": "Q", "reference": "R", "prediction": "P"})[1] == \
        "ZZ-JUDGE Q | R | P | {Yes or No}"
    assert prompts.render("caption_judge", {"entity": "Bite", "reference": "R", "prediction": "P"})[1] == \
        "ZZ-CAPTION-JUDGE R | P"
    assert all(t.system == "" for a in prompts.agents.values() for t in a.templates)


def test_unsupported_python_in_their_file_is_a_clear_error(stand_in, tmp_path, capsys):
    path = stand_in / "things" / "templates.py"
    path.write_text(path.read_text().replace('        return "ZZ-PLAIN"', '        return "ZZ-PLAIN"')
                    .replace('    def frames(self):\n', '    def frames(self):\n        for x in self.images:\n'
                             '            pass\n'))
    out = tmp_path / "set.json"
    assert main(["import-official-prompts", str(stand_in), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "For is not supported" in err and "Traceback" not in err
    assert not out.exists()
    assert main(["import-official-prompts", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert "no things/templates.py" in capsys.readouterr().err


def test_the_importer_leaves_files_it_did_not_make(stand_in, tmp_path, capsys):
    precious = tmp_path / "notes.json"
    precious.write_text('{"mine": true}')
    assert main(["import-official-prompts", str(stand_in), "--out", str(precious)]) == 2
    assert "is not a prompt-set file" in capsys.readouterr().err
    assert precious.read_text() == '{"mine": true}'
    target = stand_in / "things" / "templates.py"
    before = target.read_text()
    assert main(["import-official-prompts", str(stand_in), "--out", str(target)]) == 2
    assert target.read_text() == before
    import_set(stand_in, tmp_path / "set.json")
    import_set(stand_in, tmp_path / "set.json")            # our own file may be replaced


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="other"), "/format: expected 'mhmmkg-prompt-set'"),
    (lambda d: d.update(version=0), "/version: expected a positive integer"),
    (lambda d: d["agents"].update(painter=d["agents"]["topic"]), "/agents/painter: unknown agent"),
    (lambda d: d["agents"]["topic"].update(reply="numbers"), "/agents/topic/reply: expected one of monster_name"),
    (lambda d: d["agents"]["topic"]["templates"][0].update(user="{secret}"),
     "/agents/topic/templates/0/user: unknown placeholder(s) secret"),
    (lambda d: d["agents"]["topic"]["templates"][0].update(user="{question!r}"), "must be a plain field name"),
    (lambda d: d["agents"]["topic"]["templates"][0].update(when={"images": "lots"}),
     "/agents/topic/templates/0/when/images: expected one of none, one, many"),
])
def test_a_bad_prompt_set_is_refused_with_file_and_place(change, message, tiny_sources, tmp_path, capsys):
    document = default_prompts().as_dict()
    change(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    out = tmp_path / "run"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--prompts", path) == 2
    err = capsys.readouterr().err
    assert f"{path}: " in err and message in err and "Traceback" not in err
    assert not out.exists()


def test_a_set_without_an_agent_the_setting_calls_is_refused_up_front(stand_in, tiny_sources, tmp_path, capsys):
    document = import_set(stand_in, tmp_path / "set.json")
    del document["agents"]["expansion"]
    (tmp_path / "partial.json").write_text(json.dumps(document))
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", tmp_path / "r", "--model", "openai",
               "--model-name", "m", "--base-url", "http://127.0.0.1:9/v1", "--prompts", tmp_path / "partial.json") == 2
    assert "has no prompt for expansion" in capsys.readouterr().err


def test_the_offline_model_refuses_a_set_it_cannot_read(stand_in, tiny_sources, tmp_path, capsys):
    import_set(stand_in, tmp_path / "set.json")
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "r",
               "--prompts", tmp_path / "set.json") == 2
    assert "the offline model reads only the default prompt set" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def authors_style_responder(body: dict) -> str:
    """Replies in the shapes the authors' prompts ask for (names separated by ';', Yes/No)."""
    text = " ".join(p["text"] if isinstance(p, dict) else p for m in body["messages"]
                    for p in (m["content"] if isinstance(m["content"], list) else [m["content"]]))
    if "ZZ-TOPIC" in text:
        return "Wolf"
    if "ZZ-PICK" in text:
        names = re.findall(r"\[\d+\] (.+?) \((?:attack action|attack phase|attack effect|element|prop|monster)\)$",
                           text, re.M)
        return ";".join(f"Wolf {n}" for n in names) or "None"  # the authors' keys carry the monster's name
    if "ZZ-ENOUGH?" in text:
        return "Yes" if re.search(r"ZZ-ENOUGH\? (Double Slam|Bite|Ice Element|Flash Pod)\b", text) else "No"
    if "ZZ-JUDGE" in text:
        return "Yes"
    return "Double Slam"


def test_a_run_with_the_imported_set_and_the_authors_search(stand_in, tiny_sources, tmp_path):
    import_set(stand_in, tmp_path / "set.json")
    with StubServer(authors_style_responder) as server:
        assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", tmp_path / "r", "--model", "openai",
                   "--base-url", server.url, "--model-name", "m", "--no-cache", "--search", "official",
                   "--timeout", "2", "--max-retries", "0",
                   "--prompts", tmp_path / "set.json") == 0
    users = [m["content"] for r in server.requests for m in r["body"]["messages"]]
    assert all(m["role"] == "user" for r in server.requests for m in r["body"]["messages"])   # their prompts: no system
    assert not any("## Question" in u for u in users)
    assert any("ZZ-TOPIC I am playing 'Monster Hunter: World' and fighting with Wolf. Wolf is charged. "
               "Which attack is Wolf using?" in u for u in users)
    submission = {s["query_id"]: s for s in lines(tmp_path / "r" / "submission.jsonl")}
    assert all(s["topic"] == "wolf" for s in submission.values())
    # names picked as the authors' keys ("Wolf Bite") resolve; the root offers a phase among several
    # picks, so the authors' phase rule follows one random pick: every query's paths share one first step
    assert all(s["paths"] for s in submission.values())
    assert all(len({p[1] for p in s["paths"]}) == 1 for s in submission.values())
    check_submission(tiny_sources, tmp_path / "r" / "submission.jsonl")
    assert all(s["answer"] == "Double Slam" for s in submission.values())
    assert not any(s["meta"].get("unparsed") for s in submission.values())
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["prompt_set"] == load_prompt_set(tmp_path / "set.json").identity()


def test_the_judge_uses_the_imported_judge_prompt(stand_in, tiny_sources, tmp_path):
    import_set(stand_in, tmp_path / "set.json")
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "r") == 0
    with StubServer(authors_style_responder) as server:
        assert main(["evaluate", str(tmp_path / "r" / "submission.jsonl"), "--dataset", str(tiny_sources),
                     "--quiet", "--judge", "openai", "--judge-model", "judge-m", "--judge-base-url", server.url,
                     "--judge-cache", str(tmp_path / "judge.sqlite"), "--judge-prompts", str(tmp_path / "set.json"),
                     "--json", str(tmp_path / "scores.json")]) == 0
    prompts = [r["body"]["messages"] for r in server.requests]
    assert prompts and all(len(m) == 1 and m[0]["content"].startswith("ZZ-JUDGE ") for m in prompts)
    assert any("| Thunder Wolf |" in m[0]["content"] for m in prompts)         # the reference answer
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["acc"] == 1.0


def test_import_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["import-official-prompts", "--help"])
    assert exit_.value.code == 0
    assert "never imported or run" in capsys.readouterr().out


def test_judge_prompts_need_the_llm_judge(stand_in, tiny_sources, tmp_path, capsys):
    import_set(stand_in, tmp_path / "set.json")
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "r") == 0
    assert main(["evaluate", str(tmp_path / "r" / "submission.jsonl"), "--dataset", str(tiny_sources),
                 "--judge-prompts", str(tmp_path / "set.json")]) == 2
    assert "--judge-prompts needs --judge openai" in capsys.readouterr().err


# ---- on the user's copy of the authors' code (skipped when it is not there)

@pytest.mark.skipif(official_code() is None, reason="no copy of the authors' code next to the project")
def test_importing_the_authors_code(tmp_path):
    repo = official_code()
    document = import_set(repo, tmp_path / "official.json")
    prompts = load_prompt_set(tmp_path / "official.json")
    assert set(prompts.agents) == set(AGENT_FIELDS)
    for agent, prompt in prompts.agents.items():
        for template in prompt.templates:
            assert "\x00" not in template.user and placeholders(template.user) <= AGENT_FIELDS[agent]
    assert "full_question" in placeholders(prompts.agents["topic"].templates[0].user)
    assert placeholders(prompts.agents["judge"].templates[0].user) == {"question", "reference", "prediction"}
    assert {"scene", "knowledge", "images"} <= {k for t in prompts.agents["summarizer"].templates for k in t.when}
    fields = dict.fromkeys(AGENT_FIELDS["validation"], "x")
    for scene in ("", "x"):
        for images in (0, 1, 2):
            prompts.render("summarizer", {**dict.fromkeys(AGENT_FIELDS["summarizer"], "x"), "scene": scene}, images)
            prompts.render("direct", {**dict.fromkeys(AGENT_FIELDS["direct"], "x"), "scene": scene}, images)
        prompts.render("validation", {**fields, "scene": scene, "memory": ""})
    assert "evaluation.py" not in document["source"] or "things/templates.py" in document["source"]


@pytest.mark.skipif(official_code() is None, reason="no copy of the authors' code next to the project")
def test_the_project_holds_none_of_the_authors_prompt_text():
    """Every line of text in their templates file, checked against every file the project tracks."""
    tree = ast.parse((official_code() / "things" / "templates.py").read_text(encoding="utf-8"))
    sentences = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            sentences |= {line.strip() for line in node.value.splitlines() if len(line.strip()) >= 40}
    assert len(sentences) > 10
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        path = ROOT / name
        if path.suffix in (".parquet", ".png", ".mp4", ".jpg") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        leaked = [s for s in sentences if s in text]
        assert not leaked, f"{name} holds text of the authors' prompts"
