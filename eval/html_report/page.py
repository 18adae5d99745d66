"""One self-contained HTML file: a leaderboard of the runs and a browser of every query.

The leaderboard and charts are plain HTML and SVG, readable without scripts. The per-query data
(questions, paths, answers, verdicts, agent calls with their prompts and replies) travels as one
gzip-compressed JSON document inside the page; a small script unpacks it in the browser
(``DecompressionStream``) and builds the query browser from it, always as text, never as markup.
No server, no network: styles, script, pictures and thumbnails are all inline.
"""
from __future__ import annotations

import base64
import gzip
import io
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from html import escape
from importlib import resources
from typing import Any

from mhmmkg.efficiency import SECONDS_PER_QUERY_DEFINITION, format_spread
from mhmmkg.graph import KnowledgeGraph
from mhmmkg.model import ROMAN, Query
from mhmmkg.render import fill, render_extra, render_key, render_question

from ..evaluator import GROUNDED_DEFINITION
from .charts import RUN_COLOURS, bar_chart, group_values, hop_groups, query_subgraph
from .runs import RunView

GENERATOR = "mhmmkg report"
METRIC_COLUMNS = (("acc", "Acc."), ("precision", "Pre."), ("recall", "Rec."), ("top", "Top."),
                  ("grounded_acc", "Grnd."), ("sim", "Sim."))
SETTING_COLUMNS = (("model", "Model"), ("setting", "Setting"), ("protocol", "Protocol"), ("prompts", "Prompts"),
                   ("search", "Search"),
                   ("alpha", "α"), ("date", "Date"))
THUMBNAIL = 200


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def spread_cell(block: dict | None, digits: int) -> str:
    value = "" if not block or block.get("mean") is None else block["mean"]
    return f"<td class='num' data-value='{value}'>{format_spread(block, digits=digits)}</td>"


def leaderboard(runs: Sequence[RunView]) -> str:
    head = ["<th data-sort='text'>Run</th>"]
    head += [f"<th data-sort='text'>{title}</th>" for _, title in SETTING_COLUMNS]
    head += [f"<th data-sort='num' data-metric='{key}'>{title}</th>" for key, title in METRIC_COLUMNS]
    head += ["<th data-sort='num'>Calls / query</th>", "<th data-sort='num'>Seconds / query</th>"]
    rows = []
    for i, run in enumerate(runs):
        r = run.result
        cells = [f"<td class='run'><span class='swatch' style='background:{RUN_COLOURS[i % len(RUN_COLOURS)]}'></span>"
                 f"{escape(run.label)}</td>"]
        cells += [f"<td>{escape(str(run.settings[key]))}</td>" for key, _ in SETTING_COLUMNS]
        for key, _ in METRIC_COLUMNS:
            value = r.get(key) if (key != "sim" or r.get("n_captions")) else None
            ci = r["ci"].get(key) if isinstance(r.get("ci"), dict) else None
            interval = f"<small>[{pct(ci[0])}, {pct(ci[1])}]</small>" if ci and value is not None else ""
            sort = "" if value is None else f" data-value='{value}'"
            cells.append(f"<td class='num' data-metric='{key}'{sort}><span class='value'>{pct(value)}</span>{interval}</td>")
        cells.append(spread_cell(run.efficiency.get("calls_per_query"), 2))
        cells.append(spread_cell(run.efficiency.get("seconds_per_query"), 4))
        rows.append(f"<tr data-run='{i}'>{''.join(cells)}</tr>")
    return (f"<div class='scroll'><table id='leaderboard' class='sortable'><thead><tr>{''.join(head)}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def notes(runs: Sequence[RunView]) -> str:
    """The evaluator's warnings of each run (captions copied from the dataset among them)."""
    lines = [f"{run.label}: {warning}" for run in runs for warning in run.result.get("warnings") or []]
    return "".join(f"<li>{escape(line)}</li>" for line in lines)


def charts(runs: Sequence[RunView]) -> str:
    results = [r.result for r in runs]
    labels = [r.label for r in runs]
    subtasks = list(ROMAN.values())
    out = []
    for metric, title in (("acc", "Accuracy"), ("recall", "Path recall")):
        values, counts = group_values(results, "by_subtask", subtasks, metric)
        out.append(bar_chart(f"{title} by sub-task", subtasks, labels, values, counts))
    hops = hop_groups(results)
    values, counts = group_values(results, "by_hops", hops)
    out.append(bar_chart("Accuracy by hops", [f"{h} hop{'s' if h != '1' else ''}" for h in hops], labels, values, counts))
    return "".join(f"<figure>{svg}</figure>" for svg in out)


def thumbnail(image: bytes) -> str | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(image)) as im:
            im.thumbnail((THUMBNAIL, THUMBNAIL))
            buffer = io.BytesIO()
            im.convert("RGB").save(buffer, "JPEG", quality=80)
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def query_records(kg: KnowledgeGraph, queries: Sequence[Query], runs: Sequence[RunView]) -> list[dict[str, Any]]:
    scores = [{s["query_id"]: s for s in run.result["queries"]} for run in runs]
    records = []
    for q in queries:
        monster = kg.entity(q.monster).name if q.monster in kg else None
        predicted = [run.predictions.get(q.id, {}).get("paths", []) for run in runs]
        records.append({
            "id": q.id, "subtask": q.roman, "hops": q.hops, "monster": monster or q.monster,
            "question": render_question(q, monster), "extra": render_extra(q, monster),
            "asks": fill(q.question, monster or q.monster),
            "perception": q.perception,
            "answer": q.answer, "key": render_key(q.key, kg), "truth": [list(p) for p in q.paths],
            "media": [t for t in (thumbnail(im) for im in q.images) if t],
            "svg": query_subgraph(kg, q.paths, predicted),
            "runs": [_run_record(run, q.id, score.get(q.id)) for run, score in zip(runs, scores)],
        })
    return records


def _run_record(run: RunView, query_id: str, score: dict | None) -> dict[str, Any]:
    prediction = run.predictions.get(query_id)
    if prediction is None or score is None or not score.get("predicted"):
        return {"predicted": False, "correct": False, "calls": run.calls.get(query_id, [])}
    return {"predicted": True, "answer": prediction["answer"], "paths": prediction["paths"],
            "topic": prediction["topic"], "correct": bool(score["correct"]), "rule": score.get("rule", ""),
            "verdict": score.get("verdict", ""), "precision": score["precision"], "recall": score["recall"],
            "calls": run.calls.get(query_id, [])}


def pack(data: Any) -> str:
    """gzip (fixed mtime, so the same inputs give the same file) then base64."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def asset(name: str) -> str:
    return resources.files("mhmmkg.eval.html_report").joinpath(name).read_text("utf-8")


def render_report(kg: KnowledgeGraph, queries: Sequence[Query], runs: Sequence[RunView], *, dataset: str,
                  judge: str, generated: datetime | None = None) -> str:
    generated = generated or datetime.now(timezone.utc)
    names = {e.id: e.name for e in kg.entities}
    data = {"runs": [{"label": r.label, "colour": RUN_COLOURS[i % len(RUN_COLOURS)], **r.settings}
                     for i, r in enumerate(runs)],
            "queries": query_records(kg, queries, runs),
            "names": {i: n for i, n in names.items()}}
    subtitle = (f"{len(queries)} queries on {escape(dataset)} · judge: {escape(judge)} · "
                f"generated {generated.strftime('%Y-%m-%d %H:%M UTC')} by {GENERATOR}")
    note_items = notes(runs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="{GENERATOR}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MH benchmark report</title>
<style>{asset("report.css")}</style>
</head><body>
<header><h1>MH benchmark report</h1><p class="sub">{subtitle}</p></header>
<section id="board"><h2>Leaderboard</h2>
<p class="hint">Scores in %, with 95% bootstrap intervals. Click a column to sort. {escape(GROUNDED_DEFINITION)}
{escape(SECONDS_PER_QUERY_DEFINITION)} Calls and seconds per query: mean ± standard deviation.</p>
{leaderboard(runs)}
{f'<ul class="notes">{note_items}</ul>' if note_items else ''}
<div class="charts">{charts(runs)}</div>
</section>
<section id="browser"><h2>Queries</h2>
<form id="filters" autocomplete="off">
<label>Sub-task <select name="subtask"><option value="">all</option>{''.join(f'<option>{r}</option>' for r in ROMAN.values())}</select></label>
<label>Hops <select name="hops"><option value="">all</option></select></label>
<label>Run <select name="run"><option value="">any</option></select></label>
<label>Outcome <select name="outcome"><option value="">all</option><option value="right">right</option><option value="wrong">wrong</option></select></label>
<label><input type="checkbox" name="disagree"> runs disagree</label>
<label>Search <input type="search" name="search" placeholder="id, question, answer"></label>
<span id="count"></span>
</form>
<div id="panes"><ol id="query-list"></ol><article id="detail"><p class="hint">Open a query from the list.</p></article></div>
</section>
<noscript><p>The query browser needs JavaScript; the leaderboard above does not.</p></noscript>
<script type="application/octet-stream" id="report-data">{pack(data)}</script>
<script>{asset("report.js")}</script>
</body></html>
"""
