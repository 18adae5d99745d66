"""The one run configuration (``baseline/options.py``): its flags are the command line's, its
record is the manifest's config, and its hash is the one runs were made with before it."""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json

from mhmmkg.baseline import run_cli
from mhmmkg.baseline.options import HASHED, HASHED_UNLESS_DEFAULT, KEPT, RunConfig, RunOptions
from mhmmkg.baseline.runner import execute
from mhmmkg.baseline.settings import QuestionOptions, SearchOptions
from mhmmkg.cli import main


def old_rule_hash(config: dict) -> str:
    """The config hash as ``RunConfig.config_hash`` computed it before the options were declared once."""
    data = dict(config)
    for name in ("dataset", "base_url", "agent_base_urls"):
        data.pop(name)
    if not data["topic_shortlist"]:
        data.pop("topic_shortlist")
    for name, default in (("protocol", "ours"), ("replies", "lenient")):
        if data[name] == default:
            data.pop(name)
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


#: hashes RunConfig gave before this module existed (computed with that code)
PINNED = {
    "plain": "1853453032e434707b6ef76d91ed61ad31e616c2e48bdb90bb8cc1b7d93564c2",
    "everything": "d8682151d9ef46a8d462e8db91448bf9e1f7b8233c967349ae5634db96725579",
}


def test_config_hashes_are_those_of_runs_made_before():
    plain = RunConfig(setting="perceptive", model="offline")
    everything = RunConfig(
        setting="perceptive", model="openai", model_name="m", base_url="http://h/v1", dataset="d",
        dataset_fingerprint="f" * 64, search=SearchOptions(order="dfs", alpha=3, max_depth=None, path_budget=None),
        question=QuestionOptions(style="official", use_name=False), temperature=0.5, max_tokens=100, seed=7,
        prompt_set={"name": "p", "version": 2, "sha256": "0" * 64}, agent_models={"perceiver": "v"},
        agent_base_urls={"perceiver": "http://o/v1"}, captions_sha256="c" * 64, topic_shortlist=5,
        retriever="m:f", protocol="authors", replies="exact")
    assert plain.config_hash() == PINNED["plain"]
    assert everything.config_hash() == PINNED["everything"]
    assert dataclasses.replace(everything, seed=8).config_hash() != PINNED["everything"]
    assert dataclasses.replace(everything, base_url="http://elsewhere/v1").config_hash() == PINNED["everything"]


def test_a_run_records_what_it_recorded_before_and_resumes(tiny_dataset, tmp_path, capsys):
    out = tmp_path / "run"
    execute(RunOptions(setting="perceptive", out=out, dataset=str(tiny_dataset), quiet=True, no_cache=True,
                       concurrency=2, limit=3))
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["config"]) == sorted([
        "agent_base_urls", "agent_models", "base_url", "captions_sha256", "dataset", "dataset_fingerprint",
        "max_tokens", "model", "model_name", "prompt_set", "protocol", "question", "replies", "retriever",
        "search", "seed", "setting", "temperature", "topic_shortlist"])
    assert manifest["config"]["model_name"] == "offline" and manifest["config"]["base_url"] is None
    assert manifest["config_hash"] == old_rule_hash(manifest["config"])
    # a folder whose manifest came from the earlier code (same record, same hash) resumes
    assert main(["run", "--setting", "perceptive", "--out", str(out), "--dataset", str(tiny_dataset), "--limit", "3",
                 "--resume", "--quiet", "--no-cache"]) == 0
    assert json.loads((out / "manifest.json").read_text()) == manifest
    assert main(["run", "--setting", "perceptive", "--out", str(out), "--dataset", str(tiny_dataset), "--limit", "3",
                 "--resume", "--quiet", "--no-cache", "--temperature", "0.3"]) == 2
    assert "differs in: temperature" in capsys.readouterr().err


def test_every_flag_of_run_is_a_declared_option_and_reads_back():
    parser = argparse.ArgumentParser()
    run_cli.configure(parser)
    strings = {s for action in parser._actions for s in action.option_strings} - {"-h", "--help"}
    declared = set()
    for f in dataclasses.fields(RunOptions):
        cli = f.metadata.get("cli")
        for one in (cli.values() if isinstance(cli, dict) else [cli] if cli else []):
            declared.update(one.names)
    assert strings == declared
    options = run_cli.options_from(parser.parse_args([
        "--setting", "know", "--out", "o", "--alpha", "2", "--no-name", "--agent-model", "perceiver=v",
        "--topic-shortlist", "3", "--limit", "4", "--temperature", "0.2"]))
    assert (options.setting, str(options.out), options.search.alpha, options.search.order) == ("know", "o", 2, "bfs")
    assert options.question == QuestionOptions(style="open", use_name=False, use_extra=True)
    assert (options.agent_models, options.topic_shortlist, options.limit, options.temperature) == \
        ({"perceiver": "v"}, 3, 4, 0.2)


def test_every_recorded_option_says_how():
    records = {f.name: f.metadata.get("record") for f in dataclasses.fields(RunOptions)}
    assert set(records.values()) == {None, HASHED, HASHED_UNLESS_DEFAULT, KEPT}
    assert [n for n, r in records.items() if r == KEPT] == ["dataset", "base_url", "agent_base_urls"]
    assert records["concurrency"] is None and records["limit"] is None and records["out"] is None
