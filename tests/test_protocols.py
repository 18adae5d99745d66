"""The three protocols (ours, paper, authors): the paper's search against its equations, depth-first
hand-over, option resolution, the manifest record, and the authors' scoring on a stub judge."""
from __future__ import annotations

import argparse
import json

import pytest
from stub_server import StubServer

from mhmmkg.baseline import run_cli
from mhmmkg.baseline.runner import agent_routes
from mhmmkg.baseline.search import search, select_paths, submitted_paths
from mhmmkg.cli import main
from mhmmkg.errors import UserError
from mhmmkg.eval import evaluate_cli
from mhmmkg.eval.authors_files import authors_route_names
from test_baseline_search import complete_at, follow_all, graph_of


def never(path):
    return False


# --- the paper's search (section 4.1, equations 6-10) -------------------------------------------

#   m -> a -> c -> e          c is proposed by a and by b in the same round
#   m -> b -> c, b -> d       c -> a closes a loop
TREE = [("m", "a"), ("m", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "e"), ("c", "a")]


def test_paper_search_follows_the_equations():
    g = graph_of(TREE)
    opened: list[str] = []
    validated: list[tuple] = []

    def validate(path):
        validated.append(path)
        return path[-1] in ("d", "e")

    result = search(g, "m", follow_all(g, opened), validate, order="paper")
    assert opened == ["m", "a", "b", "c"]          # one round per level; the loop entity a is not reopened
    # the root is never validated; c, proposed twice in round 2, is new once and validated once
    assert [p[-1] for p in validated] == ["a", "b", "c", "d", "e"]
    assert (result.expansions, result.validations, result.stopped) == (4, 5, "exhausted")
    # every link from an open entity joins K (eq. 7), so K's root-to-leaf walks, shortest first:
    assert result.paths == [("m", "b", "d"), ("m", "a", "c", "e"), ("m", "b", "c", "e"), ("m", "b", "c", "a")]
    assert select_paths(result.paths, 2, "paper") == [("m", "b", "d"), ("m", "a", "c", "e")]
    assert submitted_paths(result.paths, result.paths[:2], "paper") == result.paths


def test_paper_search_runs_until_nothing_is_open():
    chain = [("m", "a"), ("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f")]
    g = graph_of(chain)
    paper = search(g, "m", follow_all(g), never, order="paper")
    assert paper.paths == [("m", "a", "b", "c", "d", "e", "f")]     # no depth limit, no path budget
    assert paper.stopped == "exhausted" and paper.validations == 6
    ours = search(g, "m", follow_all(g), never, order="bfs")
    assert ours.stopped == "depth" and ours.paths == []


def test_paper_search_keeps_the_root_when_nothing_is_proposed():
    g = graph_of(TREE)
    result = search(g, "m", lambda path: [], never, order="paper")
    assert result.paths == [("m",)] and result.validations == 0 and result.expansions == 1


def test_paper_search_keeps_dead_ends_and_drops_improper_proposals():
    g = graph_of(TREE, phases=("a", "b"))
    proposals = {"m": ["b", "a", "b", "zzz"], "b": ["d"]}
    result = search(g, "m", lambda path: proposals.get(path[-1], []), never, order="paper")
    # one phase per expansion (b, proposed first), no repeats, no non-neighbours; d is open but
    # its expansion proposes nothing, so it is a leaf of K
    assert result.paths == [("m", "b", "d")]


# --- depth-first hands over the first alpha paths it completes (Figure 6b) ---------------------

def test_dfs_and_bfs_hand_the_summarizer_different_paths():
    g = graph_of([("m", "a"), ("m", "b"), ("a", "a1"), ("a1", "a2"), ("b", "b1")])
    done = complete_at("a2", "b1")
    bfs = search(g, "m", follow_all(g), done, order="bfs")
    dfs = search(g, "m", follow_all(g), done, order="dfs")
    assert select_paths(bfs.paths, 1, "bfs") == [("m", "b", "b1")]
    assert select_paths(dfs.paths, 1, "dfs") == [("m", "a", "a1", "a2")]


# --- resolving a protocol: explicit options win -------------------------------------------------

def run_options(*argv: str):
    parser = argparse.ArgumentParser()
    run_cli.configure(parser)
    return run_cli.options_from(parser.parse_args(["--setting", "perceptive", "--out", "x", *argv]))


@pytest.mark.parametrize("argv, protocol, order, alpha, depth, budget, style", [
    ((), "ours", "bfs", 5, 4, 10, "open"),
    (("--protocol", "paper"), "paper", "paper", 5, None, None, "official"),
    (("--protocol", "authors"), "authors", "official", 5, None, None, "official"),
    (("--protocol", "paper", "--search", "dfs", "--alpha", "3"), "paper", "dfs", 3, None, None, "official"),
    (("--protocol", "authors", "--question-style", "open", "--max-depth", "2"), "authors", "official", 5, 2, None,
     "open"),
])
def test_run_protocol_fills_only_what_is_not_given(argv, protocol, order, alpha, depth, budget, style):
    options = run_options(*argv)
    assert options.protocol == protocol
    assert (options.search.order, options.search.alpha, options.search.max_depth, options.search.path_budget) == \
        (order, alpha, depth, budget)
    assert options.question.style == style
    assert options.replies == ("exact" if protocol == "authors" else "lenient")


def evaluate_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    evaluate_cli.configure(parser)
    args = parser.parse_args(["sub.jsonl", *argv])
    evaluate_cli.resolve_protocol(args)
    return args


def test_evaluate_protocol_fills_only_what_is_not_given():
    args = evaluate_args()
    assert (args.protocol, args.path_matching, args.judge_verdict, args.missing) == \
        ("ours", "one-to-one", "first-word", "zero")
    args = evaluate_args("--official", "--missing", "zero")
    assert (args.protocol, args.path_matching, args.judge_verdict, args.missing) == \
        ("authors", "names", "exact-yes", "zero")
    args = evaluate_args("--protocol", "paper")
    assert (args.path_matching, args.missing) == ("one-to-one", "zero")
    with pytest.raises(UserError, match="contradicts"):
        evaluate_args("--official", "--protocol", "ours")


def test_validation_names_both_validation_agents_and_the_narrower_name_wins():
    options = run_options("--model", "openai", "--model-name", "m", "--agent-model", "validation=big",
                          "--agent-model", "searcher=small")
    routes = agent_routes(options)
    assert routes["validation"][0] == routes["validation_online"][0] == "big"
    assert routes["topic"][0] == "small"
    options = run_options("--model", "openai", "--model-name", "m", "--agent-model", "validation=big",
                          "--agent-model", "validation_online=other")
    routes = agent_routes(options)
    assert (routes["validation"][0], routes["validation_online"][0]) == ("big", "other")


def test_run_records_the_protocol(tiny_dataset, tmp_path):
    out = tmp_path / "run"
    assert main(["run", "--setting", "perceptive", "--dataset", str(tiny_dataset), "--protocol", "paper",
                 "--out", str(out), "--quiet", "--no-cache"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["protocol"] == "paper"
    assert manifest["config"]["search"] == {"order": "paper", "alpha": 5, "max_depth": None, "path_budget": None}
    assert manifest["config"]["question"]["style"] == "official"
    meta = json.loads((out / "submission.meta.json").read_text())
    assert meta["protocol"] == "paper"
    result = tmp_path / "scores.json"
    assert main(["evaluate", str(out / "submission.jsonl"), "--dataset", str(tiny_dataset), "--protocol", "paper",
                 "--bootstrap", "0", "--json", str(result)]) == 0
    assert json.loads(result.read_text())["protocol"] == "paper"
    report = tmp_path / "report.html"
    assert main(["report", str(out), "--dataset", str(tiny_dataset), "--out", str(report)]) == 0
    page = report.read_text()
    assert "<th data-sort='text'>Protocol · search</th>" in page and "<td>paper · paper, α=5</td>" in page


# --- the authors' scoring against their script's behaviour --------------------------------------

def test_authors_route_names_as_their_script_builds_them():
    monsters = ("Zinogre", "Stygian Zinogre")
    assert authors_route_names("Zinogre>Junp Slam;Zinogre>Stygian Zinogre>Bite>Thunder Element;", "Zinogre",
                               monsters) == [
        ["Zinogre", "Zinogre Junp Slam"],
        ["Zinogre", "Stygian Zinogre", "Stygian Zinogre Bite", "Thunder Element"],
        [""]]


def judge_replies(body: dict) -> str:
    """A judge that says "Yes." for Double Slam, "Yes" for Back Slam, "No" otherwise (and for empty)."""
    last = body["messages"][-1]["content"]
    if 'Candidate answer: "Double Slam"' in last:
        return "Yes."
    if 'Candidate answer: "Back Slam"' in last:
        return "Yes"
    return "No"


def test_authors_protocol_counts_only_an_exact_yes_and_judges_empty_answers(tiny_dataset, tmp_path):
    lines = [{"query_id": "wolf-002", "answer": "Double Slam", "paths": []},
             {"query_id": "wolf-003", "answer": "Back Slam", "paths": []},
             {"query_id": "wolf-004", "answer": "", "paths": []}]
    sub = tmp_path / "sub.jsonl"
    sub.write_text("".join(json.dumps(line) + "\n" for line in lines))
    scores = {}
    with StubServer(judge_replies) as server:
        for protocol in ("ours", "authors"):
            out = tmp_path / f"{protocol}.json"
            assert main(["evaluate", str(sub), "--dataset", str(tiny_dataset), "--protocol", protocol,
                         "--judge", "openai", "--judge-model", "judge", "--judge-base-url", server.url,
                         "--judge-cache", str(tmp_path / "cache.sqlite"), "--bootstrap", "0",
                         "--json", str(out), "--quiet"]) == 0
            scores[protocol] = json.loads(out.read_text())
        asked = [r["body"]["messages"][-1]["content"] for r in server.requests]
    ours, authors = scores["ours"], scores["authors"]
    correct = {p: {q["query_id"]: q["correct"] for q in s["queries"] if q["predicted"]} for p, s in scores.items()}
    assert correct["ours"] == {"wolf-002": True, "wolf-003": True, "wolf-004": False}
    assert correct["authors"] == {"wolf-002": False, "wolf-003": True, "wolf-004": False}
    assert (ours["n"], authors["n"]) == (6, 3)            # missing predictions: zero vs skipped
    assert authors["judge"]["unparseable_queries"] == ["wolf-002"]      # "Yes." is not their "Yes"
    assert sum('Candidate answer: ""' in a for a in asked) == 1         # only the authors' protocol asks


def test_authors_protocol_compares_route_names(tiny_dataset, tmp_path):
    from mhmmkg.eval import Evaluator

    truth = {"wolf-003": [["Wolf", "Wolf Charged Phase", "Wolf Dubble Slam", "Wolf Back Slam"]]}
    line = {"query_id": "wolf-003", "answer": "Back Slam",
            "paths": [["wolf", "wolf.charged-phase", "wolf.double-slam", "wolf.back-slam"]]}
    by_names = Evaluator(tiny_dataset, protocol="authors", truth_names=truth, resamples=0).eval([line])
    by_kg = Evaluator(tiny_dataset, protocol="authors", resamples=0).eval([line])
    assert (by_names["recall"], by_kg["recall"]) == (0.0, 1.0)     # the misspelling matches nothing
    assert by_kg["route_names"] == "kg" and any("--question-list" in w for w in by_kg["warnings"])


def test_evaluate_names_an_authors_result_file(tiny_dataset, tmp_path, capsys):
    result = tmp_path / "gpt-4o_self Search.json"
    result.write_text(json.dumps({"Wolf_Double Slam": {"Answer": "Double Slam", "Route": [["Wolf"]],
                                                       "Description": [{}]}}, indent=4))
    assert main(["evaluate", str(result), "--dataset", str(tiny_dataset)]) == 2
    err = capsys.readouterr().err
    assert "result file of the authors' code" in err and "import-official-results" in err
    assert "schema" not in err.lower()


def test_a_file_is_told_from_an_authors_result_by_its_first_line_as_by_reading_it_whole(tmp_path):
    """The shortcut (a first line holding one whole JSON value, then more text) says "no single
    JSON document" only of files the whole read refuses, and the refusal is the same either way."""
    import os

    from mhmmkg.errors import UserError
    from mhmmkg.files.jsontext import read_json_file
    from mhmmkg.official.results import authors_files
    from mhmmkg.official.results.authors_files import is_authors_result, refuse_authors_result

    def whole_read_says_authors(path) -> bool:
        try:
            return is_authors_result(read_json_file(path, "submission"))
        except UserError:
            return False

    result = json.dumps({"Wolf_Double Slam": {"Answer": "Double Slam"}})
    line = json.dumps({"query_id": "wolf-003", "answer": "é", "paths": []}, ensure_ascii=False)
    contents = [f"{line}\n{line}\n", f"{line}\n", f"{line}", f"{result}\n", f"{result}", f"{result}\n{result}\n",
                f"{result}  \r\n \t\n", f"{result}\n  x", "1\n2", '"a"\n"b"', "1 2\n3", "[1,\n2]\n", "{\n}\n{}",
                f"\ufeff{result}\n", f"\ufeff{line}\n{line}", f"{line}\u00a0\n{line}", "", "\n\n", f"\n{line}\n{line}",
                "x" * 70_000 + f"\n{line}", "[" * 5000 + "]" * 5000 + f"\n{line}", "[" * 100 + "]" * 100 + f"\n{line}", f'{{"a": "{"y" * 70_000}"}}\n{line}']
    files = []
    for i, text in enumerate(contents):
        files.append(tmp_path / f"{i}.jsonl")
        files[-1].write_text(text, encoding="utf-8")
    files.append(tmp_path / "bad.jsonl")
    files[-1].write_bytes(line.encode() + b"\n\xff\xfe")
    files.append(tmp_path / "folder")
    files[-1].mkdir()
    files.append(tmp_path / "fifo")
    os.mkfifo(files[-1])
    files.append(tmp_path / "missing.jsonl")
    told = 0
    for path in files:
        if authors_files._more_than_its_first_value(path):
            told += 1
            with pytest.raises(UserError):
                read_json_file(path, "submission")
        if whole_read_says_authors(path):
            with pytest.raises(UserError, match="result file of the authors' code"):
                refuse_authors_result(path, "data")
        else:
            assert refuse_authors_result(path, "data") is None
    assert told >= 8


# --- statistics: the paper's definitions beside ours ---------------------------------------------

def test_info_gives_the_papers_depth_beside_ours(tiny_dataset):
    from mhmmkg import load_graph
    from mhmmkg.model import Query
    from mhmmkg.stats import compute_stats, format_stats

    chain = ("wolf", "wolf.charged-phase", "wolf.double-slam", "wolf.back-slam")
    queries = [Query("q1", 3, "?", "wolf", "x", ((chain[0],), chain)),      # 4 entities; lengths 1 and 4
               Query("q2", 3, "?", "wolf", "x", (chain[:2],))]            # 2 entities; length 2
    stats = compute_stats(load_graph(tiny_dataset), queries)
    combo = stats["by_subtask"]["III"]
    assert (combo["avg_entities"], combo["paper_avg_entities"]) == (3.0, 3.0)   # (4 + 2) / 2
    assert combo["avg_depth"] == 2.0            # ours: hops of the longest path, (3 + 1) / 2
    assert combo["paper_avg_depth"] == 2.25     # the paper: mean length in entities, ((1 + 4) / 2 + 2) / 2
    row = next(line for line in format_stats(stats).splitlines() if line.strip().startswith("III"))
    assert row.split()[-4:] == ["3.00", "2.00", "3.000", "2.250"]
    assert "mean path length in entities" in format_stats(stats)


# --- the authors' reading of replies (run --replies exact, set by --protocol authors) -------------

def test_parse_names_exact_reads_as_the_authors_code():
    import random

    from mhmmkg.baseline.agents import parse_names_exact

    keys = ["Wolf Bite", "Wolf Back Slam", "Wolf Charged Phase"]
    rng = random.Random(0)
    assert parse_names_exact("Bite;Wolf Back Slam; Wolf Bite;Wolf Bite", keys, rng) == [2, 1, 1]
    assert parse_names_exact("Wolf Bite;;Wolf Back Slam", keys, rng) == [1]          # an empty item ends the list
    assert parse_names_exact("None", keys, rng) == [] and parse_names_exact("none", keys, rng) == []
    drawn = {tuple(parse_names_exact("Wolf Charged Phase;Nonsense;Wolf Bite", keys, random.Random(seed)))
             for seed in range(40)}
    assert drawn == {(3,), (), (1,)}        # one item of three drawn, even one that names nothing


def sloppy_responder(body: dict) -> str:
    """Replies a lenient reader accepts and the authors' code reads otherwise."""
    text = " ".join(m["content"] if isinstance(m["content"], str) else "" for m in body["messages"])
    if "ZZ-TOPIC" in text:
        return "Wolf." if "Which attack" in text else "Wolf\n"
    if "ZZ-PICK" in text:
        return "Bite; Wolf Back Slam" if "ZZ-PICK from Wolf:" in text else "None"
    if "ZZ-ENOUGH? Wolf " in text:
        return "Yes."
    if "ZZ-ENOUGH?" in text:
        return "Yes"
    return "Bite"


def test_authors_protocol_reads_replies_exactly(tiny_sources, tmp_path):
    from test_prompt_sets import STAND_IN, import_set

    code = tmp_path / "their-code"
    (code / "things").mkdir(parents=True)
    (code / "things" / "templates.py").write_text(STAND_IN.replace("MARKER_PATH", repr(str(tmp_path / "ran"))))
    import_set(code, tmp_path / "set.json")
    paths = {}
    with StubServer(sloppy_responder) as server:
        for replies in ("exact", "lenient"):
            out = tmp_path / replies
            assert main(["run", "--setting", "perceptive", "--dataset", str(tiny_sources), "--out", str(out),
                         "--model", "openai", "--base-url", server.url, "--model-name", "m", "--no-cache",
                         "--protocol", "authors", "--replies", replies, "--prompts", str(tmp_path / "set.json"),
                         "--quiet", "--max-retries", "0"]) == 0
            lines = [json.loads(line) for line in (out / "submission.jsonl").read_text().splitlines()]
            paths[replies] = {line["query_id"]: line["paths"] for line in lines}
    # "Wolf." is no monster's name to their code: no topic, no search
    assert paths["exact"]["wolf-002"] == [] and paths["lenient"]["wolf-002"] == [["wolf"]]
    # "Yes." does not end their search at the topic entity; "Bite" without the monster's name is no key
    assert paths["exact"]["wolf-003"] == [["wolf", "wolf.back-slam"]]
    assert paths["lenient"]["wolf-003"] == [["wolf"]]
