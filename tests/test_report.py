"""``mhmmkg report``: one self-contained HTML file, checked in a real headless Chromium against
``evaluate --json``; and the rules for where it may write."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

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
    queries["queries"][1]["key"] = {"kind": "entity", "entities": ["wolf.double-slam"]}
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


def test_one_definition_of_grounded_accuracy_and_seconds_per_query(bench, capsys):
    from html import escape

    from mhmmkg.efficiency import SECONDS_PER_QUERY_DEFINITION
    from mhmmkg.eval.evaluator import GROUNDED_DEFINITION
    from mhmmkg.eval.report import format_result

    html = bench["report"].read_text("utf-8")
    assert escape(GROUNDED_DEFINITION) in html and escape(SECONDS_PER_QUERY_DEFINITION) in html
    assert GROUNDED_DEFINITION in format_result(bench["scores"]["know"])
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text("utf-8").split())
    assert GROUNDED_DEFINITION.removeprefix("Grnd. = ").rstrip(".") in readme
    assert SECONDS_PER_QUERY_DEFINITION.rstrip(".") in readme


def test_the_query_records_carry_the_answer_key_in_words(bench):
    from mhmmkg import load_graph, load_queries
    from mhmmkg.eval.html_report.page import query_records

    records = {r["id"]: r for r in query_records(load_graph(bench["dataset"]), load_queries(bench["dataset"]), [])}
    assert records["wolf-002"]["key"].startswith("The answer is Double Slam (attack action)")
    assert records["wolf-001"]["key"] is None


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


def rect(page, selector: str) -> dict:
    return page.evaluate(f"JSON.parse(JSON.stringify(document.querySelector({json.dumps(selector)}).getBoundingClientRect()))")


@needs_browser
def test_a_link_shows_what_it_points_to_at_1400_by_900(bench):
    from browser import Page

    with Page((1400, 900)) as page:
        page.open(bench["report"])
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400, "the page scrolls sideways"
        board = page.evaluate("(() => { const s = document.querySelector('#leaderboard').parentElement; "
                              "return [getComputedStyle(s).overflowX, s.getBoundingClientRect().right]; })()")
        assert board[0] == "auto" and board[1] <= 1400, "the leaderboard must fit or scroll within itself"
        header = rect(page, "header")
        for fragment, target in (("#q=wolf-002", "#detail"), ("#subtask=V&wrong", "#query-list li"),
                                 ("#run=1&wrong&rule=no_match", "#browser")):
            page.open(bench["report"], fragment)
            box = rect(page, target)
            assert header["bottom"] <= box["top"] + 1 and box["top"] < 900 - 40, (fragment, box, header)
            assert rect(page, "header")["top"] == 0, "the header stays at the top"
        page.open(bench["report"], "#q=wolf-002")
        assert "wolf-002" in page.evaluate("document.querySelector('#detail h3').textContent")


@needs_browser
def test_every_run_has_one_colour_and_a_legend(bench):
    from browser import Page

    with Page((1400, 900)) as page:
        page.open(bench["report"], "#q=wolf-002")
        legend = page.evaluate("[...document.querySelectorAll('ul.legend li[data-run]')].map(li => "
                               "[li.textContent, getComputedStyle(li.querySelector('.swatch')).backgroundColor])")
        board = page.evaluate("[...document.querySelectorAll('#leaderboard tr[data-run]')].map(tr => "
                              "[tr.querySelector('.label').textContent, getComputedStyle(tr.querySelector('.swatch')).backgroundColor])")
        assert [text for text, _ in legend] == list(SETTINGS) == [text for text, _ in board]
        assert [c for _, c in legend] == [c for _, c in board] and len({c for _, c in legend}) == len(SETTINGS)
        bars = page.evaluate("[...new Set([...document.querySelectorAll('.charts rect[fill]')].map(r => r.getAttribute('fill')))]")
        strokes = page.evaluate("[...new Set([...document.querySelectorAll('#detail svg g.found path, #detail svg g.extra path')]"
                                ".map(p => p.getAttribute('stroke')).filter(c => c !== '#7f8c8d'))]")
        runs = page.evaluate("(() => [...document.querySelectorAll('#leaderboard tr[data-run] .swatch')].map(s => s.getAttribute('style')))()")
        colours = [style.split("background:")[1].strip() for style in runs]
        assert set(bars) == set(colours) and set(strokes) <= set(colours) and strokes
        subgraph_legend = page.evaluate("document.querySelector('#detail svg').textContent")
        assert all(f"retrieved by {s}" in subgraph_legend for s in SETTINGS)


@needs_browser
def test_deltas_are_those_of_evaluate_compare(bench, tmp_path):
    """Both directions: the report resamples each pair once and reads the reverse off it."""
    from browser import Page

    submissions = [str(r / "submission.jsonl") for r in bench["runs"]]
    expected = {}
    for run, base in ((1, 0), (0, 1)):
        out = tmp_path / f"compare-{run}-{base}.json"
        assert main(["evaluate", submissions[run], "--compare", submissions[base], "--dataset", str(bench["dataset"]),
                     "--json", str(out), "--quiet"]) == 0
        expected[run, base] = json.loads(out.read_text())["compare"]["metrics"]
    with Page((1400, 900)) as page:
        page.open(bench["report"])
        for (run, base), metrics in expected.items():
            page.evaluate(f"(() => {{ const s = document.getElementById('baseline'); s.value = '{base}'; "
                          "s.dispatchEvent(new Event('change')); })()")
            assert page.evaluate("document.querySelector('.versus.shown').dataset.baseline") == str(base)
            shown = page.evaluate(f"[...document.querySelectorAll('.versus.shown table.deltas[data-run=\"{run}\"] "
                                  "tr[data-group=\"all\"] td.delta')].map(td => [td.dataset.delta, td.dataset.low, "
                                  "td.dataset.high, td.dataset.p])")
            assert len(shown) == 5
            for (delta, low, high, p), metric in zip(shown, ("acc", "precision", "recall", "top", "grounded_acc")):
                assert float(delta) == metrics[metric]["delta"], (run, base, metric)
                assert [float(low), float(high)] == metrics[metric]["ci"], (run, base, metric)
                assert float(p) == metrics[metric]["p"], (run, base, metric)
        page.evaluate("(() => { const s = document.getElementById('baseline'); s.value = '0'; s.dispatchEvent(new Event('change')); })()")
        for subtask in ("I", "II", "IV"):
            a, b = (bench["scores"][s]["by_subtask"][subtask]["acc"] for s in ("perceptive", "know"))
            delta = page.evaluate(f"document.querySelector('.versus.shown table.deltas[data-run=\"1\"] "
                                  f"tr[data-group=\"subtask={subtask}\"] td.delta').dataset.delta")
            assert abs(float(delta) - (a - b)) < 1e-12, subtask
        page.evaluate("(() => { const s = document.getElementById('baseline'); s.value = '1'; s.dispatchEvent(new Event('change')); })()")
        gained = page.evaluate("[...document.querySelectorAll('.versus.shown a.qlink.right')].map(a => a.textContent)")
    by_run = [{q["query_id"]: q["correct"] for q in bench["scores"][s]["queries"]} for s in SETTINGS]
    assert gained == [q for q in by_run[0] if by_run[0][q] and not by_run[1][q]]


@needs_browser
def test_wrong_answers_are_grouped_and_linked(bench):
    from collections import Counter

    dom = dump_dom(bench["report"])
    table = dom[dom.index('data-by="rule"'):]
    table = table[:table.index("</table>")]
    rules = Counter(q["rule"] for q in bench["scores"]["perceptive"]["queries"] if not q["correct"])
    for rule, n in rules.items():
        assert re.search(rf'href="#run=1&amp;wrong&amp;rule={re.escape(quote(rule))}">{n}</a>', table), rule
        linked = listed(dump_dom(bench["report"], f"#run=1&wrong&rule={quote(rule)}"))
        assert linked == [q["query_id"] for q in bench["scores"]["perceptive"]["queries"] if not q["correct"] and q["rule"] == rule]


def test_the_papers_rows_stand_beside_as_reported(bench):
    from mhmmkg.eval.html_report.reported import CITATION, TABLE_3

    html = bench["report"].read_text("utf-8")
    board = html[html.index("id='leaderboard'"):]
    board = board[:board.index("</table>")]
    reported = re.findall(r"<tr class='reported' data-setting='(\w+)'.*?</tr>", board, re.S)
    assert sorted(set(reported)) == sorted(SETTINGS)
    assert len(reported) == sum(r.setting in SETTINGS for r in TABLE_3)
    gpt = next(r for r in TABLE_3 if r.model == "GPT-4o" and r.setting == "perceptive")
    assert (gpt.acc, gpt.precision, gpt.recall) == (.7353, .4545, .6667)
    assert CITATION in board and "73.5" in board


def test_the_leaderboard_exports_as_csv_and_latex(bench, tmp_path, capsys):
    import csv

    runs = list(map(str, bench["runs"]))
    out, table, tex = tmp_path / "r.html", tmp_path / "board.csv", tmp_path / "board.tex"
    assert main(["report", *runs, "--dataset", str(bench["dataset"]), "--out", str(out), "--csv", str(table),
                 "--latex", str(tex)]) == 0
    rows = list(csv.DictReader(table.open()))
    ours = [r for r in rows if r["source"] == "this report"]
    assert [r["run"] for r in ours] == list(SETTINGS)
    for row, setting in zip(ours, SETTINGS):
        assert row["acc"] == f"{100 * bench['scores'][setting]['acc']:.1f}"
        assert row["acc_low"] == f"{100 * bench['scores'][setting]['ci']['acc'][0]:.1f}"
    assert any(r["source"].startswith("reported in the paper") and r["run"] == "GPT-4o" for r in rows)
    latex = tex.read_text()
    assert latex.count(r"\\") == len(rows) + 2 and r"\begin{tabular}" in latex and "$^\\dagger$" in latex
    assert main(["report", *runs, "--dataset", str(bench["dataset"]), "--out", str(out), "--csv", str(out)]) == 2
    assert "also the --out file" in capsys.readouterr().err
    before = (bench["runs"][0] / "submission.jsonl").read_bytes()
    assert main(["report", *runs, "--dataset", str(bench["dataset"]), "--out", str(out),
                 "--csv", str(bench["runs"][0] / "submission.jsonl")]) == 2
    assert (bench["runs"][0] / "submission.jsonl").read_bytes() == before


@needs_browser
def test_a_retriever_run_is_labelled_by_its_retriever(bench, tmp_path):
    from browser import Page

    out = tmp_path / "bm25"
    assert main(["run", "--setting", "perceptive", "--dataset", str(bench["dataset"]), "--out", str(out), "--no-cache",
                 "--quiet", "--retriever", "mhmmkg.baseline.retrievers.bm25:retrieve"]) == 0
    report = tmp_path / "r.html"
    assert main(["report", str(bench["runs"][1]), str(out), "--dataset", str(bench["dataset"]), "--out", str(report)]) == 0
    with Page((1400, 900)) as page:
        page.open(report)
        labels = page.evaluate("[...document.querySelectorAll('#leaderboard tr[data-run] .label')].map(e => e.textContent)")
        legend = page.evaluate("[...document.querySelectorAll('ul.legend li[data-run]')].map(e => e.textContent)")
    assert labels == legend == ["bfs", "retriever bm25"]


@needs_browser
def test_markup_in_answers_and_run_settings_is_shown_as_text(bench, tmp_path):
    from browser import Page

    from mhmmkg.submission_file import meta_path

    attack = '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=2</script>'
    lines = [json.loads(line) for line in (bench["runs"][1] / "submission.jsonl").read_text().splitlines()]
    for line in lines:
        line["answer"] = attack
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run_meta = json.loads(meta_path(bench["runs"][1] / "submission.jsonl").read_text()) \
        if meta_path(bench["runs"][1] / "submission.jsonl").is_file() else {}
    meta_path(hostile).write_text(json.dumps({**run_meta, "model": attack}))
    report = tmp_path / "r.html"
    assert main(["report", str(bench["runs"][0]), str(hostile), "--dataset", str(bench["dataset"]), "--out", str(report)]) == 0
    with Page((1400, 900)) as page:
        for fragment in ("", "#q=wolf-002", "#run=1&wrong"):
            page.open(report, fragment)
            assert page.evaluate("document.body.dataset.pwned") is None, fragment
            assert page.evaluate("document.querySelectorAll('img[src=x], #detail script, table script').length") == 0
        assert attack in page.evaluate("document.getElementById('detail').textContent")
