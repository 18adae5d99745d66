"""``mhmmkg report``: one self-contained HTML file, checked in a real headless Chromium against
``evaluate --json``; and the rules for where it may write."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browser import chromium, dump_dom, screenshot
from conftest import write_json
from media_factory import make_image
from mhmmkg.builders.build import build_dataset
from mhmmkg.cli import main

needs_browser = pytest.mark.skipif(chromium() is None, reason="no headless Chromium on this machine")
SETTINGS = ("know", "perceptive")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """A tiny dataset with one query that has an image, two offline runs, their scores and a report."""
    from conftest import write_tiny_sources

    root = tmp_path_factory.mktemp("report")
    src = write_tiny_sources(root / "src")
    make_image(src / "media" / "scene.png", size=(320, 200))
    queries = json.loads((src / "queries" / "wolf.json").read_text())
    queries["queries"][1]["media"] = {"images": ["media/scene.png"]}
    write_json(src / "queries" / "wolf.json", queries)
    dataset = root / "mh-mmkg"
    build_dataset(src, dataset, quiet=True)
    runs, scores = [], {}
    for setting in SETTINGS:
        out = root / "runs" / setting
        assert main(["run", "--setting", setting, "--dataset", str(dataset), "--out", str(out), "--no-cache", "--quiet"]) == 0
        assert main(["evaluate", str(out / "submission.jsonl"), "--dataset", str(dataset), "--json", str(root / f"{setting}.json"),
                     "--quiet"]) == 0
        scores[setting] = json.loads((root / f"{setting}.json").read_text())
        runs.append(out)
    report = root / "report.html"
    assert main(["report", *map(str, runs), "--dataset", str(dataset), "--out", str(report)]) == 0
    return {"root": root, "dataset": dataset, "runs": runs, "scores": scores, "report": report}


class Collector(HTMLParser):
    """Tags and attributes of a page, to check what it would load from elsewhere."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_the_report_is_one_self_contained_file(bench):
    html = bench["report"].read_text("utf-8")
    parser = Collector()
    parser.feed(html)
    external = [(t, a) for t, a in parser.tags
                if any(k in a and not str(a[k]).startswith(("data:", "#")) for k in ("src", "href")) or t in ("link", "iframe")]
    assert external == []
    assert bench["report"].stat().st_size < 3_000_000
    assert '<meta name="generator" content="mhmmkg report">' in html


def cells(dom: str, table_id: str = "leaderboard") -> list[dict[str, str]]:
    """Rows of the leaderboard as {metric: shown value}, read from the DOM."""
    table = dom[dom.index(f'id="{table_id}"'):]
    table = table[:table.index("</table>")]
    rows = []
    for row in re.findall(r"<tr data-run=\"\d+\">(.*?)</tr>", table, re.S):
        rows.append({m: v for m, v in re.findall(r'data-metric="(\w+)"[^>]*><span class="value">([^<]*)</span>', row)})
    return rows


@needs_browser
def test_leaderboard_numbers_are_the_evaluators(bench):
    dom = dump_dom(bench["report"])
    assert 'data-ready="true"' in dom
    shown = cells(dom)
    assert len(shown) == len(SETTINGS)
    for row, setting in zip(shown, SETTINGS):
        expected = bench["scores"][setting]
        for metric in ("acc", "precision", "recall", "top", "grounded_acc"):
            assert row[metric] == f"{100 * expected[metric]:.1f}", (setting, metric)
        assert row["sim"] == "-"


def listed(dom: str) -> list[str]:
    listing = dom[dom.index('id="query-list"'):]
    listing = listing[:listing.index("</ol>")]
    return re.findall(r'<li data-id="([^"]+)"', listing)


@needs_browser
def test_a_fragment_filter_shows_exactly_those_queries(bench):
    def wrong_somewhere(subtask: str) -> list[str]:
        by_run = [{q["query_id"]: q for q in bench["scores"][s]["queries"]} for s in SETTINGS]
        ids = [q["query_id"] for q in bench["scores"]["know"]["queries"] if q["subtask"] == subtask]
        return [i for i in ids if any(not r[i]["correct"] for r in by_run)]

    for subtask in ("II", "IV"):
        assert listed(dump_dom(bench["report"], f"#subtask={subtask}&wrong")) == wrong_somewhere(subtask)
    first_right = [q["query_id"] for q in bench["scores"]["know"]["queries"] if q["correct"]]
    assert listed(dump_dom(bench["report"], "#run=0&right")) == first_right
    assert listed(dump_dom(bench["report"], "#search=back%20slam")) == ["wolf-003", "wolf-004"]


@needs_browser
def test_an_opened_query_shows_its_paths_answers_media_and_calls(bench, tmp_path):
    dom = dump_dom(bench["report"], "#q=wolf-002")
    detail = dom[dom.index('id="detail"'):]
    assert "Wolf → Charged Phase → Double Slam" in detail
    assert "Which attack is Wolf using?" in detail
    assert detail.count('class="run-block"') == len(SETTINGS)
    assert 'src="data:image/jpeg;base64,' in detail
    calls = [json.loads(line) for line in (bench["runs"][1] / "calls.jsonl").read_text().splitlines()]
    mine = [c for c in calls if c["query_id"] == "wolf-002"]
    assert f"Agent calls ({len(mine)})" in detail
    assert 'class="prompt"' in detail and mine[-1]["agent"] == "summarizer"
    assert "<svg" in detail and 'class="found"' in detail
    shot = screenshot(bench["report"], tmp_path / "report.png", "#subtask=II&q=wolf-002")
    assert shot.stat().st_size > 20_000


def test_the_report_refuses_what_it_did_not_write(bench, tmp_path, capsys):
    runs = list(map(str, bench["runs"]))
    foreign = tmp_path / "notes.html"
    foreign.write_text("<p>my notes</p>")
    assert main(["report", *runs, "--dataset", str(bench["dataset"]), "--out", str(foreign)]) == 2
    assert "is not a report written by 'mhmmkg report'" in capsys.readouterr().err
    assert foreign.read_text() == "<p>my notes</p>"
    submission = bench["runs"][0] / "submission.jsonl"
    before = submission.read_bytes()
    assert main(["report", str(submission), "--dataset", str(bench["dataset"]), "--out", str(submission)]) == 2
    assert submission.read_bytes() == before
    assert main(["report", *runs, "--dataset", str(bench["dataset"]), "--out", str(tmp_path)]) == 2
    inside_a_run = bench["runs"][0] / "report.html"
    assert main(["report", *runs, "--dataset", str(bench["dataset"]), "--out", str(inside_a_run)]) == 2
    assert not inside_a_run.exists()
    assert main(["report", str(tmp_path / "nowhere"), "--dataset", str(bench["dataset"]), "--out", str(tmp_path / "r.html")]) == 2
    assert "no such run folder or submission file" in capsys.readouterr().err
    ours = tmp_path / "again.html"
    ours.write_text(bench["report"].read_text("utf-8"))
    assert main(["report", runs[0], "--dataset", str(bench["dataset"]), "--out", str(ours)]) == 0
    assert ours.read_text("utf-8").count("<tr data-run=") == 1
