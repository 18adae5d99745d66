"""One self-contained HTML file: a leaderboard of the runs (beside the paper's reported rows), a
comparison against a chosen baseline run, the wrong answers grouped, and a browser of every query.

The leaderboard, comparison, error tables and charts are plain HTML and SVG, readable without
scripts. The per-query data (questions, paths, answers, verdicts, agent calls with their prompts
and replies) travels as one gzip-compressed JSON document inside the page; a small script unpacks
it in the browser (``DecompressionStream``) and builds the query browser from it, always as text,
never as markup. A query's subgraph is drawn in the browser when the query is opened, from the
paths and the few names and relations the page carries, so the file grows with queries x runs
and nothing is laid out for queries nobody opens. No server, no network: styles, script and
thumbnails are all inline.
"""
from __future__ import annotations

import base64
import io
import json
import pkgutil
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from html import escape
from itertools import islice
from typing import Any
from urllib.parse import quote

from mhmmkg.benchmark.efficiency import SECONDS_PER_QUERY_DEFINITION, format_spread
from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.kg.layout import TYPE_COLOURS, relation_title
from mhmmkg.kg.model import ROMAN, Query
from mhmmkg.benchmark.render import fill, render_extra, render_key, render_question

from ..evaluator import GROUNDED_DEFINITION
from .charts import DRAWN_PATHS, bar_chart, group_values, hop_groups, run_colour
from .compare import Comparison, compare_runs
from .reported import CITATION, ReportedRow, reported_for
from .runs import RunView

GENERATOR = "mhmmkg report"
METRIC_COLUMNS = (("acc", "Acc."), ("precision", "Pre."), ("recall", "Rec."), ("top", "Top."),
                  ("grounded_acc", "Grnd."), ("sim", "Sim."))
SETTING_COLUMNS = (("model", "Model"), ("setting", "Setting"), ("search", "Protocol · search"))
THUMBNAIL = 200
ROMAN_ORDER = {r: i for i, r in enumerate(ROMAN.values())}
#: rows of an error table shown before the rest are summed up as "N more"
ERROR_ROWS = 12


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def spread_cell(block: dict | None, digits: int) -> str:
    """The mean, and the standard deviation under it."""
    if not block or block.get("mean") is None:
        return "<td class='num' data-value=''>-</td>"
    mean, _, std = format_spread(block, digits=digits).partition(" ± ")
    return f"<td class='num' data-value='{block['mean']}'>{mean}<small>± {std}</small></td>"


def setting_text(settings: dict[str, Any], key: str) -> str:
    if key != "search":
        return str(settings[key])
    text = str(settings["search"])
    if settings.get("alpha", "-") != "-":
        text += f", α={settings['alpha']}"
    protocol = settings.get("protocol")
    return f"{protocol} · {text}" if protocol and protocol != "-" else text


def swatch(i: int) -> str:
    return f"<span class='swatch' style='background:{run_colour(i)}'></span>"


def leaderboard(runs: Sequence[RunView], reported: Sequence[ReportedRow] = ()) -> str:
    """One row per run; the paper's rows of each setting right after the runs of that setting,
    best first, so each run reads against the published numbers it compares to."""
    head = ["<th data-sort='text'>Run</th>"]
    head += [f"<th data-sort='text'>{title}</th>" for _, title in SETTING_COLUMNS]
    head += [f"<th data-sort='num' data-metric='{key}'>{title}</th>" for key, title in METRIC_COLUMNS]
    head += ["<th data-sort='num' title='agent calls per query, mean ± std'>Calls / q</th>",
             "<th data-sort='num' title='seconds per query, mean ± std'>Sec. / q</th>"]
    rows = {}
    for i, run in enumerate(runs):
        r = run.result
        cells = [f"<td class='run'>{swatch(i)}<span class='label'>{escape(run.label)}</span>"
                 f"<small title='{escape(str(run.source))}'>{escape(run.name)} · {escape(run.settings['prompts'])} · "
                 f"{escape(run.settings['date'])}</small></td>"]
        cells += [f"<td>{escape(setting_text(run.settings, key))}</td>" for key, _ in SETTING_COLUMNS]
        for key, _ in METRIC_COLUMNS:
            value = r.get(key) if (key != "sim" or r.get("n_captions")) else None
            ci = r["ci"].get(key) if isinstance(r.get("ci"), dict) else None
            interval = f"<small>[{pct(ci[0])}, {pct(ci[1])}]</small>" if ci and value is not None else ""
            sort = "" if value is None else f" data-value='{value}'"
            cells.append(f"<td class='num' data-metric='{key}'{sort}><span class='value'>{pct(value)}</span>{interval}</td>")
        cells.append(spread_cell(run.efficiency.get("calls_per_query"), 2))
        cells.append(spread_cell(run.efficiency.get("seconds_per_query"), 3))
        rows.setdefault(run.settings["setting"], []).append(f"<tr data-run='{i}'>{''.join(cells)}</tr>")
    for row in sorted(reported, key=lambda row: -row.acc):
        cells = [f"<td class='run'><span class='badge' title='{CITATION}'>reported · Table 3</span></td>",
                 f"<td>{escape(row.model)}</td>", f"<td>{escape(row.setting)}</td>", "<td>paper's, α=5</td>"]
        values = {"acc": row.acc, "precision": row.precision, "recall": row.recall}
        for key, _ in METRIC_COLUMNS:
            value = values.get(key)
            sort = "" if value is None else f" data-value='{value}'"
            cells.append(f"<td class='num' data-metric='{key}'{sort}><span class='value'>{pct(value)}</span></td>")
        cells += ["<td class='num'>-</td>", "<td class='num'>-</td>"]
        rows.setdefault(row.setting, []).append(
            f"<tr class='reported' data-setting='{escape(row.setting)}' title='{CITATION}'>{''.join(cells)}</tr>")
    body = "".join(row for setting_rows in rows.values() for row in setting_rows)
    return (f"<div class='scroll'><table id='leaderboard' class='sortable'><thead><tr>{''.join(head)}</tr></thead>"
            f"<tbody>{body}</tbody></table></div>")


def legend(runs: Sequence[RunView]) -> str:
    items = "".join(f"<li data-run='{i}'>{swatch(i)}{escape(run.label)}</li>" for i, run in enumerate(runs))
    return f"<ul class='legend' aria-label='runs'>{items}</ul>"


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


def signed(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def delta_cell(block: dict[str, Any]) -> str:
    """A difference (run - baseline) in points, its 95% interval, and ▲/▼ when the interval excludes 0."""
    ci = block.get("ci")
    if block.get("delta") is None:
        return "<td class='num'>-</td>"
    significant = bool(ci) and (ci[0] > 0 or ci[1] < 0)
    mark = ("▲" if block["delta"] > 0 else "▼") if significant else ""
    kind = ("up" if block["delta"] > 0 else "down") if significant else "ns"
    interval = f"<small>[{signed(ci[0])}, {signed(ci[1])}]</small>" if ci else ""
    attrs = (f" data-delta='{block['delta']!r}'" + (f" data-low='{ci[0]!r}' data-high='{ci[1]!r}'" if ci else "")
             + f" data-p='{block.get('p')!r}'")
    title = f"p = {block['p']:.3f}" if block.get("p") is not None else ""
    return (f"<td class='num delta {kind}'{attrs} title='{title}'><span class='value'>{signed(block['delta'])}"
            f"<b class='sig'>{mark}</b></span>{interval}</td>")


def comparison(runs: Sequence[RunView], comparisons: Sequence[Comparison]) -> str:
    if len(runs) < 2:
        return "<p class='hint'>One run: nothing to compare.</p>"
    options = "".join(f"<option value='{i}'>{escape(r.label)}</option>" for i, r in enumerate(runs))
    blocks = []
    for base in range(len(runs)):
        parts = [_versus(runs, c) for c in comparisons if c.baseline == base]
        shown = " shown" if base == 0 else ""
        blocks.append(f"<div class='versus{shown}' data-baseline='{base}'>{''.join(parts)}</div>")
    return (f"<p class='controls'><label>Baseline <select id='baseline'>{options}</select></label> "
            f"<span class='hint'>Δ = run − baseline in points over the queries both runs count, with a paired "
            f"bootstrap 95% interval (as <code>mhmmkg evaluate --compare</code>); ▲/▼ where the interval "
            f"excludes 0.</span></p>{''.join(blocks)}")


def _versus(runs: Sequence[RunView], c: Comparison) -> str:
    run, base = runs[c.run], runs[c.baseline]
    head = "".join(f"<th>Δ {title}</th>" for key, title in METRIC_COLUMNS if key != "sim")
    rows = []
    for group in c.groups:
        cells = "".join(delta_cell(group.metrics[key]) for key, _ in METRIC_COLUMNS if key != "sim")
        rows.append(f"<tr data-group='{escape(group.key)}'><th>{escape(group.title)}</th><td class='num'>{group.n}</td>{cells}</tr>")
    table = (f"<div class='scroll'><table class='deltas' data-run='{c.run}' data-baseline='{c.baseline}'>"
             f"<thead><tr><th></th><th>n</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    return (f"<div class='pair'><h3>{swatch(c.run)}{escape(run.label)} <span class='vs'>vs</span> "
            f"{swatch(c.baseline)}{escape(base.label)}</h3>{table}{_disagreements(run, base, c)}</div>")


def _disagreements(run: RunView, base: RunView, c: Comparison, shown: int = 30) -> str:
    if not c.gained and not c.lost:
        return "<p class='hint'>Both runs are right and wrong on the same queries.</p>"
    parts = []
    for ids, text, kind in ((c.gained, f"right in {run.label} only", "right"),
                            (c.lost, f"right in {base.label} only", "wrong")):
        if not ids:
            continue
        links = " ".join(f"<a class='qlink {kind}' href='#q={quote(qid)}'>{escape(qid)}</a>" for qid in ids[:shown])
        more = f" <a href='#disagree'>… {len(ids) - shown} more</a>" if len(ids) > shown else ""
        parts.append(f"<p class='disagree'><b>{len(ids)} {escape(text)}:</b> {links}{more}</p>")
    return f"<div class='disagreements'><h4>Queries where they disagree</h4>{''.join(parts)}</div>"


def error_tables(runs: Sequence[RunView], queries: Sequence[Query], monster_names: dict[str, str]) -> str:
    """Wrong answers of each run counted by verdict rule and monster (most first), sub-task and
    hop count (in order); every count links to the query browser filtered to those queries."""
    monster_of = {q.id: q.monster for q in queries}
    dimensions = (
        ("Verdict rule", "rule", lambda s: s.rule or "-", lambda v: v),
        ("Monster", "monster", lambda s: monster_of.get(s.query_id, "-"), lambda v: monster_names.get(v, v)),
        ("Sub-task", "subtask", lambda s: s.subtask, lambda v: v),
        ("Hops", "hops", lambda s: str(s.hops), lambda v: v),
    )
    wrong = [[s for s in run.counted.values() if not s.correct] for run in runs]
    head = "".join(f"<th>{swatch(i)}{escape(r.label)}</th>" for i, r in enumerate(runs))
    tables = []
    for title, key, value_of, show in dimensions:
        counts = [Counter(value_of(s) for s in w) for w in wrong]
        total = Counter()
        for c in counts:
            total.update(c)
        values = sorted(total, key=(lambda v: (-total[v], v)) if key in ("rule", "monster")
                        else (lambda v: (ROMAN_ORDER.get(v, 0), int(v) if v.isdigit() else 0, v)))
        rows = []
        for value in values[:ERROR_ROWS]:
            cells = "".join(_count_cell(i, key, value, c[value]) for i, c in enumerate(counts))
            rows.append(f"<tr data-value='{escape(value)}'><th>{escape(show(value))}</th>{cells}</tr>")
        if len(values) > ERROR_ROWS:
            rest = [sum(c[v] for v in values[ERROR_ROWS:]) for c in counts]
            rows.append(f"<tr class='more'><th>{len(values) - ERROR_ROWS} more</th>"
                        + "".join(f"<td class='num'>{n}</td>" for n in rest) + "</tr>")
        tables.append(f"<div class='errors'><h3>By {title.lower()}</h3><table class='counts' data-by='{key}'>"
                      f"<thead><tr><th>{title}</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    totals = ", ".join(f"{escape(r.label)}: {len(w)} of {len(r.counted)}" for r, w in zip(runs, wrong))
    return f"<p class='hint'>Wrong answers (missing predictions included, rule “missing”). {totals}.</p>" \
           f"<div class='error-grid'>{''.join(tables)}</div>"


def _count_cell(run: int, key: str, value: str, n: int) -> str:
    if not n:
        return "<td class='num zero'>0</td>"
    return f"<td class='num'><a href='#run={run}&amp;wrong&amp;{key}={quote(value)}'>{n}</a></td>"


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
    return [query_record(kg, q, runs) for q in queries]


def query_record(kg: KnowledgeGraph, q: Query, runs: Sequence[RunView]) -> dict[str, Any]:
    """What the query browser shows of one query and each run's answer to it."""
    monster = kg.entity_name(q.monster) if q.monster in kg else None
    return {
        "id": q.id, "subtask": q.roman, "hops": q.hops, "monster": monster or q.monster, "mid": q.monster,
        "question": render_question(q, monster), "extra": render_extra(q, monster),
        "asks": fill(q.question, monster or q.monster),
        "perception": q.perception,
        "answer": q.answer, "key": render_key(q.key, kg), "truth": q.paths,
        "media": [t for t in (thumbnail(im) for im in q.images) if t],
        "runs": [_run_record(run, q.id, run.counted.get(q.id)) for run in runs],
    }


def _run_record(run: RunView, query_id: str, score) -> dict[str, Any]:
    prediction = run.predictions.get(query_id)
    if prediction is None or score is None or not score.predicted:
        return {"predicted": False, "correct": False, "rule": "missing", "calls": run.calls.get(query_id, [])}
    return {"predicted": True, "answer": prediction.answer, "paths": prediction.paths,
            "topic": prediction.topic, "correct": bool(score.correct), "rule": score.rule,
            "verdict": score.verdict, "precision": score.precision, "recall": score.recall,
            "calls": run.calls.get(query_id, [])}


def _predicted_paths(run: RunView, query_id: str) -> tuple:
    """The paths a query's record shows for a run (none when its record says "not predicted")."""
    prediction, score = run.predictions.get(query_id), run.counted.get(query_id)
    return prediction.paths if prediction is not None and score is not None and score.predicted else ()


def entities_and_relations(kg: KnowledgeGraph, queries: Sequence[Query], runs: Sequence[RunView]) -> tuple[dict, dict]:
    """What the page needs to name and draw the paths it shows, and nothing more: each entity on
    a path as [name, type, owner] (owner: its monster's name when another entity shown has the same
    name, else ""), and the relation text of each hop drawn (``"head>tail"``); each in the order
    the query records first show it."""
    used: dict[str, None] = {}
    hops: dict[str, tuple[str, str]] = {}
    for q in queries:
        predicted = [_predicted_paths(run, q.id) for run in runs]
        drawn = [*q.paths, *(p for paths in predicted for p in paths[:DRAWN_PATHS])]
        for path in drawn:
            used.update(dict.fromkeys(path))
        for paths in predicted:
            for path in paths[DRAWN_PATHS:]:
                used.update(dict.fromkeys(path))
        for path in drawn:
            for a, b in zip(path, path[1:]):
                hops.setdefault(f"{a}>{b}", (a, b))
    naming, entity_name = kg.naming, kg.entity_name
    known = [i for i in used if i in kg]
    by_name = Counter(map(entity_name, known))
    entities = {}
    for i in known:
        _, type_, monster, names = naming(i)
        owner = entity_name(monster) if by_name[names[0]] > 1 and monster in kg and type_ != "monster" else ""
        entities[i] = [names[0], type_, owner]
    name = lambda n: entities[n][0]  # noqa: E731     (the ends of a hop titled are on a path shown, and in kg)
    between = _relations_between(kg, set(hops.values()))
    relations = {key: relation_title(between[a, b], name) if a in entities and b in entities else ""
                 for key, (a, b) in hops.items()}
    return entities, relations


def _relations_between(kg: KnowledgeGraph, hops: set[tuple[str, str]]) -> dict[tuple[str, str], list]:
    """``kg.relations_between`` of each hop, from the relations among them (a loaded graph makes no
    other): the graph's index of every head and tail would cost more to build, for the hops a page draws."""
    found: dict[tuple[str, str], list] = {hop: [] for hop in hops}
    for relation in kg.relations_among(hops):
        found[relation.head, relation.tail].append(relation)
    return found


def json_pieces(value: Any, encode: Callable[[Any], str]) -> Iterator[str]:
    """The JSON text ``encode`` gives of ``value``, in pieces; an iterator inside ``value`` (at the
    top or as a dict's value) is written as a list one item at a time, so a long list of records
    is never held whole, nor its text. A dict with no iterator in it is encoded a few hundred
    items at a time (an encoder call per item took a tenth of the page's time; one for the whole
    dict held its text whole)."""
    if isinstance(value, dict) and _streamed(value):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ("," if i else "") + encode(key) + ":"
            yield from json_pieces(item, encode)
        yield "}"
    elif isinstance(value, (dict, Iterator)):
        items, make, (start, end) = (iter(value.items()), dict, "{}") if isinstance(value, dict) else (value, list, "[]")
        yield start
        for i, batch in enumerate(_batches(items, make)):
            yield ("," if i else "") + encode(batch)[1:-1]
        yield end
    else:
        yield encode(value)


def _batches(items: Iterator, make: Callable) -> Iterator:
    """``make`` (list or dict) of each run of ENCODED_TOGETHER items, the last one shorter."""
    while batch := make(islice(items, ENCODED_TOGETHER)):
        yield batch


def _streamed(value: Any) -> bool:
    """Whether ``value`` is an iterator or a dict with one in it (at any depth of dicts)."""
    return isinstance(value, Iterator) or isinstance(value, dict) and any(map(_streamed, value.values()))


#: items of a streamed list encoded in one call (fewer calls, little held at once)
ENCODED_TOGETHER = 256
#: text gathered before each call to the compressor
PACK_CHUNK = 1 << 20


def pack(data: Any) -> str:
    """gzip (fixed mtime, so the same inputs give the same file) then base64: the bytes of
    ``gzip.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(), 6, mtime=0)``
    (tested), compressed as the text is written (see :func:`json_pieces`)."""
    return "".join(packed_pieces(data))


def packed_pieces(data: Any) -> Iterator[str]:
    """:func:`pack`'s text in pieces, each made as the JSON text is compressed: the page is
    written without holding the compressed document or its base64 whole.

    One chunk of text is compressed in a second thread while the next one is made (zlib lets
    the interpreter run meanwhile): a third of the page's time at scale overlaps the rest. The
    thread compresses the chunks one after the other, in their order, with the one compressor:
    the bytes are those of compressing them in turn."""
    from concurrent.futures import ThreadPoolExecutor

    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)     # 31: a gzip header with mtime 0, as gzip.compress writes
    carry, pending = b"", None
    with ThreadPoolExecutor(1, thread_name_prefix="mhmmkg-report-gzip") as compressing:
        for chunk in _chunks(json_pieces(data, encode)):
            compressed = compressing.submit(compressor.compress, chunk.encode("utf-8"))
            if pending is not None:
                carry, text = _base64_whole(carry + pending.result())
                yield text
            pending = compressed
        last = pending.result() + compressor.flush()
    yield base64.b64encode(carry + last).decode("ascii")


def _chunks(pieces: Iterator[str]) -> Iterator[str]:
    """The pieces joined into runs of at least PACK_CHUNK characters; the last run shorter
    (perhaps empty)."""
    buffer, size = [], 0
    for piece in pieces:
        buffer.append(piece)
        size += len(piece)
        if size >= PACK_CHUNK:
            yield "".join(buffer)
            buffer, size = [], 0
    yield "".join(buffer)


def _base64_whole(data: bytes) -> tuple[bytes, str]:
    """The base64 of ``data``'s leading whole groups of 3 bytes (base64 of the whole is then the
    pieces joined), and the bytes left over."""
    whole = len(data) - len(data) % 3
    return data[whole:], base64.b64encode(data[:whole]).decode("ascii")


def asset(name: str) -> str:
    return pkgutil.get_data("mhmmkg.eval.html_report", name).decode("utf-8")


def render_report(kg: KnowledgeGraph, queries: Sequence[Query], runs: Sequence[RunView], *, dataset: str,
                  judge: str, evaluator=None, generated: datetime | None = None) -> str:
    """The page. ``evaluator`` (the one that scored the runs) gives the paired bootstrap of the
    comparison; without it the comparison is left out."""
    return "".join(report_pieces(kg, queries, runs, dataset=dataset, judge=judge, evaluator=evaluator,
                                 generated=generated))


def report_pieces(kg: KnowledgeGraph, queries: Sequence[Query], runs: Sequence[RunView], *, dataset: str,
                  judge: str, evaluator=None, generated: datetime | None = None) -> Iterator[str]:
    """:func:`render_report`'s text in pieces, to be written as it is made (the packed query data,
    the bulk of the page at scale, is never held whole)."""
    generated = generated or datetime.now(timezone.utc)
    entities, relations = entities_and_relations(kg, queries, runs)
    data = {"runs": [{"label": r.label, "name": r.name, "colour": run_colour(i), **r.settings} for i, r in enumerate(runs)],
            "queries": (query_record(kg, q, runs) for q in queries), "entities": entities, "relations": relations,
            "types": TYPE_COLOURS, "drawn": DRAWN_PATHS}
    monster_names = {q.monster: kg.entity_name(q.monster) for q in queries if q.monster in kg}
    comparisons = compare_runs(runs, evaluator) if evaluator is not None else []
    reported = reported_for({r.settings["setting"] for r in runs})
    subtitle = (f"{len(queries)} queries on {escape(dataset)} · {len(runs)} run{'s' if len(runs) != 1 else ''} · "
                f"judge: {escape(judge)} · generated {generated.strftime('%Y-%m-%d %H:%M UTC')} by {GENERATOR}")
    note_items = notes(runs)
    reported_toggle = (f"<label class='toggle'><input type='checkbox' id='show-reported' checked> show the paper's "
                       f"rows for these settings ({CITATION}; not re-run)</label>") if reported else ""
    yield f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="{GENERATOR}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MH benchmark report</title>
<style>{asset("report.css")}</style>
</head><body>
<header id="top"><h1>MH benchmark report</h1>
<nav><a href="#board">Leaderboard</a><a href="#compare">Comparison</a><a href="#errors">Wrong answers</a><a href="#browser">Queries</a></nav>
<p class="sub">{subtitle}</p></header>
<section id="board"><h2>Leaderboard</h2>
<p class="hint">Scores in %, with 95% bootstrap intervals. Click a column to sort. {escape(GROUNDED_DEFINITION)}
{escape(SECONDS_PER_QUERY_DEFINITION)} Calls and seconds per query: mean ± standard deviation.
Runs are named by what sets them apart.</p>
{reported_toggle}
{leaderboard(runs, reported)}
{f'<ul class="notes">{note_items}</ul>' if note_items else ''}
{legend(runs)}
<div class="charts">{charts(runs)}</div>
</section>
<section id="compare"><h2>Comparison</h2>
{comparison(runs, comparisons)}
</section>
<section id="errors"><h2>Wrong answers</h2>
{error_tables(runs, queries, monster_names)}
</section>
<section id="browser"><h2>Queries</h2>
<form id="filters" autocomplete="off">
<label>Sub-task <select name="subtask"><option value="">all</option>{''.join(f'<option>{r}</option>' for r in ROMAN.values())}</select></label>
<label>Hops <select name="hops"><option value="">all</option></select></label>
<label>Run <select name="run"><option value="">any</option></select></label>
<label>Outcome <select name="outcome"><option value="">all</option><option value="right">right</option><option value="wrong">wrong</option></select></label>
<label>Verdict <select name="rule"><option value="">any</option></select></label>
<label>Monster <select name="monster"><option value="">any</option></select></label>
<label><input type="checkbox" name="disagree"> runs disagree</label>
<label>Search <input type="search" name="search" placeholder="id, question, answer"></label>
<span id="count"></span>
</form>
<div id="panes"><ol id="query-list"></ol><article id="detail"><p class="hint">Open a query from the list.</p></article></div>
</section>
<noscript><p>The query browser needs JavaScript; the leaderboard above does not.</p></noscript>
<script type="application/octet-stream" id="report-data">"""
    yield from packed_pieces(data)
    yield f"""</script>
<script>{asset("report.js")}</script>
</body></html>
"""
