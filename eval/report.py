"""Plain-text reports of evaluation results (the dicts ``Evaluator.eval`` returns)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mhmmkg.benchmark.efficiency import SECONDS_PER_QUERY_DEFINITION, format_efficiency

from .evaluator import GROUNDED_DEFINITION

COLUMNS = (("acc", "Acc."), ("precision", "Pre."), ("recall", "Rec."), ("top", "Top."), ("grounded_acc", "Grnd."))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _row(label: str, group: Mapping[str, Any]) -> str:
    cells = "".join(f"{_pct(group.get(key)):>8}" for key, _ in COLUMNS)
    return f"{label:<14}{group['n']:>5}{cells}"


def _intervals(ci: Mapping[str, Any]) -> str:
    cells = [f"{title} [{_pct(ci[key][0])}, {_pct(ci[key][1])}]" for key, title in COLUMNS if ci.get(key)]
    return "95% CI: " + ("  ".join(cells) if cells else "-")


_PROTOCOL_NOTES = {"authors": ", the authors' protocol", "official": ", the authors' protocol",
                   "paper": ", the paper's protocol"}


def _missing_note(result: Mapping[str, Any]) -> list[str]:
    """What the queries without a prediction do to the table, said before it."""
    missing = result["n_missing"]
    if not missing:
        return []
    total = missing + result["n_predicted"]
    if result["missing"] == "skip":
        return [f"note: {missing} of {total} queries have no prediction; they are left out of every score "
                f"(--missing skip), so n is {result['n']}"]
    return [f"note: {missing} of {total} queries have no prediction; each counts as wrong with P = R = 0 "
            f"(--missing zero; --missing skip leaves them out)"]


def format_result(result: Mapping[str, Any]) -> str:
    """The paper's table row (Acc., Pre., Rec.) with Top., grounded accuracy and breakdowns."""
    header = f"{'':<14}{'n':>5}" + "".join(f"{title:>8}" for _, title in COLUMNS)
    judge = result["judge"]
    lines = [
        f"Submission {result['submission']} on {result['dataset']} "
        f"(judge {judge['name']}, missing predictions: {result['missing']}"
        + _PROTOCOL_NOTES.get(result.get("protocol"), "") + ")",
        f"{result['n_predicted']} predicted, {result['n_missing']} missing; scores in %; "
        f"intervals: percentile bootstrap, {result['ci']['resamples']} resamples, seed {result['ci']['seed']}",
        *_missing_note(result),
        "",
        header,
        _row("all", result),
        _intervals(result["ci"]),
        "Top. = topic entity accuracy; " + GROUNDED_DEFINITION,
        "",
        "by sub-task",
        *(_row(roman, group) for roman, group in result["by_subtask"].items()),
        "",
        "by hops",
        *(_row(f"{hops} hop{'s' if hops != '1' else ''}", group) for hops, group in result["by_hops"].items()),
    ]
    if result.get("n_captions"):
        copied = result.get("n_captions_copied", 0)
        lines += ["", f"Sim. {_pct(result['sim'])} over {result.get('n_caption_entities', '?')} entities "
                      f"({result['n_captions']} distinct generated captions"
                      + (f"; {copied} equal or too close to the human caption, counted as not similar)" if copied else ")")]
    if result.get("efficiency"):
        lines += ["", "efficiency of the run (mean ± std)"]
        lines += [f"  {label:<27}{value}" for label, value in format_efficiency(result["efficiency"])]
        if "seconds_per_query" in result["efficiency"]:
            lines.append(f"  ({SECONDS_PER_QUERY_DEFINITION})")
    if judge["unparseable"] or judge.get("unparseable_captions"):
        shown = ", ".join(judge["unparseable_queries"][:10])
        lines += ["", f"warning: {judge['unparseable']} answer verdict(s) and {judge.get('unparseable_captions', 0)} "
                      f"caption verdict(s) could not be read as Yes/No; counted as not accepted "
                      f"({shown}{', ...' if judge['unparseable'] > 10 else ''}); raw replies are in the JSON output"]
    if "compare" in result:
        lines += ["", format_comparison(result)]
    return "\n".join(lines)


def format_comparison(result: Mapping[str, Any]) -> str:
    compare = result["compare"]
    lines = [f"Paired comparison over {compare['n']} queries: {result['submission']} (A) - {compare['other']} (B)",
             f"{'':<14}{'A':>8}{'B':>8}{'A-B':>8}{'95% CI':>18}{'p':>7}"]
    titles = dict(COLUMNS)
    for key, row in compare["metrics"].items():
        ci = row["ci"]
        interval = f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]" if ci else "-"
        p = f"{row['p']:.3f}" if row["p"] is not None else "-"
        delta = "-" if row["delta"] is None else f"{100 * row['delta']:+.1f}"
        lines.append(f"{titles[key]:<14}{_pct(row['a']):>8}{_pct(row['b']):>8}{delta:>8}{interval:>18}{p:>7}")
    return "\n".join(lines)
