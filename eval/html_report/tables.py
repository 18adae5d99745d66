"""The leaderboard as plain tables for papers and spreadsheets: CSV and a LaTeX ``tabular``.

One row per run (its label, what it ran, each metric in % with its 95% interval, calls and
seconds per query), then the paper's reported rows for the same settings, marked as reported.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from .reported import CITATION, ReportedRow
from .runs import RunView

METRICS = (("acc", "Acc."), ("precision", "Pre."), ("recall", "Rec."), ("top", "Top."),
           ("grounded_acc", "Grnd."), ("sim", "Sim."))
COLUMNS = ("source", "run", "model", "setting", "protocol", "search", "prompts", "alpha",
           *(c for key, _ in METRICS for c in (key, f"{key}_low", f"{key}_high")),
           "calls_per_query", "seconds_per_query")


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def leaderboard_rows(runs: Sequence[RunView], reported: Sequence[ReportedRow] = ()) -> list[dict[str, str]]:
    rows = []
    for run in runs:
        r, s = run.result, run.settings
        row: dict[str, Any] = {"source": "this report", "run": run.label, **{k: s.get(k, "") for k in
                               ("model", "setting", "protocol", "search", "prompts", "alpha")}}
        for key, _ in METRICS:
            value = r.get(key) if (key != "sim" or r.get("n_captions")) else None
            ci = (r.get("ci") or {}).get(key) if value is not None else None
            row[key], row[f"{key}_low"], row[f"{key}_high"] = _pct(value), _pct(ci[0] if ci else None), _pct(ci[1] if ci else None)
        for key in ("calls_per_query", "seconds_per_query"):
            block = run.efficiency.get(key) or {}
            row[key] = "" if block.get("mean") is None else f"{block['mean']:.4g}"
        rows.append({c: str(row.get(c, "")) for c in COLUMNS})
    for rep in reported:
        row = {"source": CITATION, "run": rep.model, "model": rep.model, "setting": rep.setting,
               "acc": _pct(rep.acc), "precision": _pct(rep.precision), "recall": _pct(rep.recall)}
        rows.append({c: str(row.get(c, "")) for c in COLUMNS})
    return rows


def to_csv(rows: Sequence[dict[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(rows: Sequence[dict[str, str]]) -> str:
    """A booktabs ``tabular``: Acc., Pre., Rec., Top., Grnd. with intervals as subscripts; the
    reported rows after a rule, with a dagger and a note saying where they come from."""
    metrics = [(k, t) for k, t in METRICS if any(r[k] for r in rows)]
    lines = [r"% mhmmkg report: the leaderboard (needs \usepackage{booktabs})",
             r"\begin{tabular}{ll" + "r" * len(metrics) + "}", r"\toprule",
             "Run & Setting & " + " & ".join(t for _, t in metrics) + r" \\", r"\midrule"]
    ours = [r for r in rows if r["source"] == "this report"]
    theirs = [r for r in rows if r["source"] != "this report"]
    for group, dagger in ((ours, ""), (theirs, r"$^\dagger$")):
        if group is theirs and theirs:
            lines.append(r"\midrule")
        for r in group:
            cells = []
            for key, _ in metrics:
                value = r[key] or "--"
                if r[key] and r[f"{key}_low"]:
                    value += f"$_{{[{r[f'{key}_low']}, {r[f'{key}_high']}]}}$"
                cells.append(value)
            lines.append(f"{latex_escape(r['run'])}{dagger} & {latex_escape(r['setting'].replace('_', ' '))} & "
                         + " & ".join(cells) + r" \\")
    lines.append(r"\bottomrule")
    if theirs:
        lines.append(f"\\multicolumn{{{2 + len(metrics)}}}{{l}}{{\\footnotesize $^\\dagger$ {CITATION}; not re-run.}} \\\\")
    lines.append(r"\end{tabular}")
    return "\n".join(lines) + "\n"
