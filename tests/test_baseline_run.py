"""``mhmmkg run`` / ``mhmmkg caption`` with the offline model: run folder, submission, resume, settings."""
from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest
from conftest import write_json
from media_factory import make_image

from mhmmkg import load_graph, load_queries
from mhmmkg.cli import main
from mhmmkg.eval.submission import SubmissionChecker


def run(*args: str) -> int:
    return main(["run", "--quiet", *map(str, args)])


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def check_submission(dataset: Path, submission: Path):
    checked = SubmissionChecker(load_graph(dataset), load_queries(dataset)).check_file(submission)
    assert checked.ok, checked.problems
    return checked


def test_perceptive_run_writes_a_complete_valid_run_folder(tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out) == 0
    assert capsys.readouterr().out.strip() == str(out / "submission.jsonl")
    for name in ("manifest.json", "calls.jsonl", "results.jsonl", "submission.jsonl", "submission.meta.json",
                 "summary.json"):
        assert (out / name).is_file(), name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["setting"] == "perceptive"
    assert manifest["config"]["prompt_set"]["name"] == "mhmmkg-default"
    assert manifest["config"]["prompt_set"]["version"] >= 1
    assert len(manifest["config"]["prompt_set"]["sha256"]) == 64
    assert manifest["config"]["dataset_fingerprint"]
    assert len(manifest["config_hash"]) == 64 and manifest["mhmmkg_version"]

    submission = lines(out / "submission.jsonl")
    assert [s["query_id"] for s in submission] == [f"wolf-00{i}" for i in range(1, 7)]
    assert all(s["topic"] == "wolf" for s in submission)
    checked = check_submission(tiny_sources, out / "submission.jsonl")
    assert checked.run_meta["setting"] == "perceptive" and checked.run_meta["model"] == "offline"

    calls = lines(out / "calls.jsonl")
    assert len(calls) == sum(s["meta"]["agent_calls"] for s in submission)
    assert {c["agent"] for c in calls} >= {"topic", "expansion", "validation", "summarizer"}
    assert all(c["query_id"] and c["latency"] >= 0 and c["attempts"] == 1 for c in calls)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["queries"] == 6
    assert summary["agent_calls"] == len(calls)
    per_query = [s["meta"]["agent_calls"] for s in submission]
    assert summary["calls_per_query"] == {"mean": round(statistics.fmean(per_query), 4),
                                          "std": round(statistics.pstdev(per_query), 4), "n": 6}
    assert len(set(per_query)) > 1 and summary["calls_per_query"]["std"] > 0
    latencies = [c["latency"] for c in calls]
    assert summary["seconds_per_call"]["n"] == len(calls)
    assert summary["seconds_per_call"]["mean"] == pytest.approx(statistics.fmean(latencies), abs=1e-4)
    retrieval = [s["meta"]["retrieval_time"] for s in submission]
    assert summary["retrieval_seconds_per_query"]["mean"] == pytest.approx(statistics.fmean(retrieval), abs=1e-4)
    assert summary["retrieval_seconds_per_query"]["mean"] > 0
    assert sorted(lines(out / "results.jsonl"), key=lambda s: s["query_id"]) == submission


def test_know_gives_the_ground_truth_paths_to_the_summarizer(tiny_sources, tmp_path):
    out = tmp_path / "know"
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out) == 0
    queries = {q.id: q for q in load_queries(tiny_sources)}
    for line in lines(out / "submission.jsonl"):
        assert line["paths"] == [list(p) for p in queries[line["query_id"]].paths]
        assert line["meta"]["calls_by_agent"] == {"summarizer": 1}
    answers = {s["query_id"]: s["answer"] for s in lines(out / "submission.jsonl")}
    assert answers["wolf-002"] == "Double Slam"
    assert answers["wolf-003"] == "Back Slam"


def test_vanilla_plus_answers_without_the_graph(tiny_sources, tmp_path):
    out = tmp_path / "vp"
    assert run("--setting", "vanilla_plus", "--dataset", tiny_sources, "--out", out, "--limit", "2") == 0
    submission = lines(out / "submission.jsonl")
    assert len(submission) == 2
    assert all(s["paths"] == [] and s["meta"]["calls_by_agent"] == {"direct": 1} for s in submission)


def test_depth_first_option(tiny_sources, tmp_path):
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", tmp_path / "dfs", "--search", "dfs") == 0
    manifest = json.loads((tmp_path / "dfs" / "manifest.json").read_text())
    assert manifest["config"]["search"]["order"] == "dfs"
    check_submission(tiny_sources, tmp_path / "dfs" / "submission.jsonl")


@pytest.mark.parametrize("setting", ["vanilla", "unaided_offline", "unaided_online"])
def test_vision_settings_refuse_a_dataset_without_media(setting, tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    assert run("--setting", setting, "--dataset", tiny_sources, "--out", out) == 2
    err = capsys.readouterr().err
    assert f"has no query media (images or keyframes), which the {setting} setting needs" in err
    assert "vanilla_plus" in err and "Traceback" not in err
    assert not out.exists()


def add_media(src: Path, *, queries: bool = True, entities: tuple[str, ...] = ("wolf", "wolf.double-slam")) -> Path:
    """Give the tiny sources images: one per query, and one for each named wolf entity."""
    wolf = json.loads((src / "monsters" / "wolf.json").read_text())
    for entity in wolf["entities"]:
        if entity["id"] in entities:
            make_image(src / "media" / f"{entity['id']}.png", color=(40, 80, 200))
            entity["media"] = {"images": [f"media/{entity['id']}.png"]}
    write_json(src / "monsters" / "wolf.json", wolf)
    if queries:
        doc = json.loads((src / "queries" / "wolf.json").read_text())
        for q in doc["queries"]:
            make_image(src / "media" / f"{q['id']}.png", color=(200, 40, 30))
            q["media"] = {"images": [f"media/{q['id']}.png"]}
        write_json(src / "queries" / "wolf.json", doc)
    return src


def test_unaided_settings_need_kg_media(tiny_sources, tmp_path, capsys):
    add_media(tiny_sources, entities=())
    assert run("--setting", "unaided_online", "--dataset", tiny_sources, "--out", tmp_path / "u") == 2
    assert "knowledge graph has no media" in capsys.readouterr().err
    assert run("--setting", "vanilla", "--dataset", tiny_sources, "--out", tmp_path / "v") == 0


def test_vision_settings_run_with_media(tiny_sources, tmp_path):
    add_media(tiny_sources)
    assert run("--setting", "vanilla", "--dataset", tiny_sources, "--out", tmp_path / "v") == 0
    calls = lines(tmp_path / "v" / "calls.jsonl")
    assert {(c["agent"], c["images"]) for c in calls} == {("direct", 1)}

    assert run("--setting", "unaided_online", "--dataset", tiny_sources, "--out", tmp_path / "on") == 0
    online = lines(tmp_path / "on" / "submission.jsonl")
    assert all(s["perception"].startswith("1 frame(s): frame 1 is 64x48 and mostly red") for s in online)
    with_paths = [s for s in online if s["paths"]]
    assert with_paths and all(s["captions"]["wolf"].startswith("1 frame(s)") for s in with_paths)
    agents = {c["agent"] for c in lines(tmp_path / "on" / "calls.jsonl")}
    assert {"perceiver", "validation_online"} <= agents
    check_submission(tiny_sources, tmp_path / "on" / "submission.jsonl")

    assert run("--setting", "unaided_offline", "--dataset", tiny_sources, "--out", tmp_path / "off") == 0
    made = json.loads((tmp_path / "off" / "captions.json").read_text())
    assert sorted(made["captions"]) == ["wolf", "wolf.double-slam"]
    assert all("mostly blue" in c for c in made["captions"].values())
    captioner_calls = [c for c in lines(tmp_path / "off" / "calls.jsonl") if c["agent"] == "captioner"]
    assert len(captioner_calls) == 2 and all(c["query_id"] is None for c in captioner_calls)
    check_submission(tiny_sources, tmp_path / "off" / "submission.jsonl")


def test_caption_verb_and_captions_file(tiny_sources, tmp_path, capsys):
    add_media(tiny_sources)
    captions = tmp_path / "captions.json"
    assert main(["caption", "--quiet", "--dataset", str(tiny_sources), "--out", str(captions)]) == 0
    data = json.loads(captions.read_text())
    assert data["model"] == "offline|v1" and sorted(data["captions"]) == ["wolf", "wolf.double-slam"]
    data["captions"]["wolf"] = "A wolf-like wyvern crackling with blue light."
    captions.write_text(json.dumps(data))
    out = tmp_path / "run"
    assert run("--setting", "unaided_offline", "--dataset", tiny_sources, "--out", out, "--captions", captions) == 0
    assert not (out / "captions.json").exists()
    assert "captioner" not in {c["agent"] for c in lines(out / "calls.jsonl")}
    with_paths = [s for s in lines(out / "submission.jsonl") if s["paths"]]
    assert with_paths and all(s["captions"]["wolf"].startswith("A wolf-like wyvern") for s in with_paths)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["captions_sha256"]

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"captions": {"wolf.nope": "x"}}))
    capsys.readouterr()
    assert run("--setting", "unaided_offline", "--dataset", tiny_sources, "--out", tmp_path / "r2", "--captions", bad) == 2
    assert "/captions/wolf.nope: unknown entity" in capsys.readouterr().err


def test_caption_verb_without_kg_media(tiny_sources, tmp_path, capsys):
    assert main(["caption", "--quiet", "--dataset", str(tiny_sources), "--out", str(tmp_path / "c.json")]) == 2
    assert "has no media" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def test_resume_continues_a_partial_run_and_ignores_a_torn_last_line(tiny_sources, tmp_path):
    out = tmp_path / "run"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--limit", "3") == 0
    first = lines(out / "results.jsonl")
    calls_before = len(lines(out / "calls.jsonl"))
    with open(out / "results.jsonl", "ab") as f:
        f.write(b'{"query_id": "wolf-004", "answer": "half writ')
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--resume") == 0
    results = lines(out / "results.jsonl")
    assert results[:3] == first
    assert sorted(r["query_id"] for r in results) == [f"wolf-00{i}" for i in range(1, 7)]
    calls = lines(out / "calls.jsonl")
    assert {c["query_id"] for c in calls[calls_before:]} == {"wolf-004", "wolf-005", "wolf-006"}
    assert len(lines(out / "submission.jsonl")) == 6

    fresh = tmp_path / "fresh"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", fresh) == 0
    strip = [{k: v for k, v in s.items() if k != "meta"} for s in lines(out / "submission.jsonl")]
    assert strip == [{k: v for k, v in s.items() if k != "meta"} for s in lines(fresh / "submission.jsonl")]


def test_resuming_a_finished_run_does_nothing_new(tiny_sources, tmp_path):
    out = tmp_path / "run"
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out) == 0
    before = (out / "results.jsonl").read_bytes()
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out, "--resume") == 0
    assert (out / "results.jsonl").read_bytes() == before
    assert len(lines(out / "submission.jsonl")) == 6


def test_run_folder_guards(tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--limit", "1") == 0
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out) == 2
    assert "not empty; pass --resume" in capsys.readouterr().err
    assert run("--setting", "perceptive", "--dataset", tiny_sources, "--out", out, "--resume", "--alpha", "2") == 2
    assert "different configuration (differs in: search)" in capsys.readouterr().err
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out, "--resume") == 2
    assert "differs in: setting" in capsys.readouterr().err


def test_a_damaged_results_file_is_reported(tiny_sources, tmp_path, capsys):
    out = tmp_path / "run"
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out, "--limit", "2") == 0
    text = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("garbage\n" + "\n".join(text) + "\n")
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", out, "--resume") == 2
    assert "results.jsonl: line 1 is not a JSON object" in capsys.readouterr().err


def test_same_data_in_a_built_folder_resumes_the_same_run(tiny_sources, tiny_dataset, tmp_path):
    out = tmp_path / "run"
    assert run("--setting", "know", "--dataset", tiny_dataset, "--out", out, "--limit", "2") == 0
    assert run("--setting", "know", "--dataset", tiny_dataset, "--out", out, "--resume") == 0
    check_submission(tiny_dataset, out / "submission.jsonl")
    meta = json.loads((out / "submission.meta.json").read_text())
    manifest = json.loads((tiny_dataset / "manifest.json").read_text())
    assert meta["dataset_fingerprint"] == manifest["fingerprint"]


def test_bad_options_are_user_errors(tiny_sources, tmp_path, capsys):
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "a", "--concurrency", "0") == 2
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "b", "--model", "openai") == 2
    assert "needs --model-name" in capsys.readouterr().err
    assert run("--setting", "know", "--dataset", tmp_path / "nowhere", "--out", tmp_path / "c") == 2


@pytest.mark.parametrize("verb", ["run", "caption", "demo"])
def test_help(verb, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([verb, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "--dataset" in text
    if verb == "run":
        assert "unaided_online" in text and "--resume" in text
        assert "--search {bfs,dfs,paper,official}" in text and "--prompts FILE" in text and "--agent-model AGENT=NAME" in text


def test_demo_builds_runs_and_prints_the_table(tiny_sources, tmp_path, capsys):
    dataset = tmp_path / "mh-mmkg"
    args = ["demo", "--quiet", "--src", str(tiny_sources), "--dataset", str(dataset), "--out", str(tmp_path / "runs")]
    assert main(args) == 0
    out = capsys.readouterr().out
    table = out.split("MH benchmark, offline baseline")[1].splitlines()
    assert table[1].split()[:2] == ["setting", "n"]
    know = table[2].split()
    assert know[:2] == ["know", "6"] and know[3:5] == ["100.0", "100.0"]
    assert table[3].split()[0] == "perceptive"
    assert (dataset / "manifest.json").is_file()
    built = (dataset / "manifest.json").stat().st_mtime
    assert main(args) == 0                    # dataset current: no rebuild; the demo folder replaced
    assert (dataset / "manifest.json").stat().st_mtime == built
    (tmp_path / "runs" / "know" / "mine.txt").write_text("keep")
    assert main(args) == 2
    assert "did not write (know/mine.txt)" in capsys.readouterr().err
    assert (tmp_path / "runs" / "know" / "mine.txt").read_text() == "keep"


def test_vision_settings_on_a_built_dataset(tiny_sources, tmp_path):
    from mhmmkg.builders.build import build_dataset

    built = tmp_path / "built"
    build_dataset(add_media(tiny_sources), built, quiet=True)
    assert run("--setting", "unaided_online", "--dataset", built, "--out", tmp_path / "on") == 0
    online = lines(tmp_path / "on" / "submission.jsonl")
    assert all("mostly red" in s["perception"] for s in online)
    assert any(s.get("captions", {}).get("wolf", "").startswith("1 frame(s)") for s in online)
    assert run("--setting", "unaided_offline", "--dataset", built, "--out", tmp_path / "off") == 0
    made = json.loads((tmp_path / "off" / "captions.json").read_text())["captions"]
    assert sorted(made) == ["wolf", "wolf.double-slam"]
    check_submission(built, tmp_path / "off" / "submission.jsonl")


def test_out_must_be_a_run_folder(tiny_sources, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "file") == 2
    assert "is not a folder" in capsys.readouterr().err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    assert run("--setting", "know", "--dataset", tiny_sources, "--out", tmp_path / "other", "--resume") == 2
    assert "not a run folder" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["notes.txt"]
