"""Retrieval alone: score a ranking of the KG's entities against the benchmark's graded relevance.

    >>> from mhmmkg.eval.retrieval import RetrievalEvaluator
    >>> evaluator = RetrievalEvaluator("mh-mmkg")
    >>> print(evaluator.expected_input_format)
    >>> result = evaluator.eval("bm25.trec")           # or {query_id: {entity_id: score}}
    >>> result["measures"]["nDCG@10"]["mean"], result["measures"]["nDCG@10"]["ci"]

The task (corpus, queries, qrels) is :mod:`mhmmkg.beir`'s. The measures are computed by
``ir-measures`` (the standard interface over trec_eval, as BEIR and MTEB report them: nDCG@k with
the grade as the gain, R@k and RR, i.e. MRR, with binary relevance at grade >= 1), one value per query; we
add only the mean over every benchmark query (a query the run leaves out scores 0 on every measure)
and seeded bootstrap 95% intervals over queries. ``pip install 'mhmmkg[retrieval]'``.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mhmmkg.interop.beir import qrels as judged_qrels
from mhmmkg.errors import UserError
from mhmmkg.files.jsontext import JSONTextError, loads_strict, read_text_file, text_error

from .metrics import bootstrap_intervals

DEFAULT_MEASURES = ("R@1", "R@5", "R@10", "nDCG@10", "RR")
_MEASURE = re.compile(r"^(R|nDCG|P)@[1-9][0-9]{0,3}$|^RR$")
Run = dict[str, dict[str, float]]

EXPECTED_INPUT_FORMAT = """\
A ranking of KG entities per benchmark query, either
  - a TREC run file: one line per (query, entity): QUERY_ID Q0 ENTITY_ID RANK SCORE TAG
    (whitespace-separated; ranks are ignored, higher scores rank first, as in trec_eval), or
  - a JSON file or dict {query_id: {entity_id: score}}.
Query ids are the benchmark's (the `queries` config); entity ids are the corpus's (`_id`, the KG
entity ids). A query the run leaves out scores 0; an unknown query or entity id is an error.
"""


def read_run(path: str | Path) -> Run:
    """A TREC or JSON run file as ``{query_id: {entity_id: score}}``; UserError naming the line."""
    path = Path(path)
    text = read_text_file(path, "run")
    if text.lstrip().startswith("{"):
        try:
            return loads_strict(text)
        except JSONTextError as exc:
            raise text_error(path, exc.pointer, exc.reason) from None
    run: Run = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise UserError(f"{path}:{number}: expected 6 fields QUERY_ID Q0 ENTITY_ID RANK SCORE TAG, got {len(fields)}")
        query_id, _, doc, _, score, _ = fields
        try:
            value = float(score)
        except ValueError:
            raise UserError(f"{path}:{number}: score {score!r} is not a number") from None
        if doc in run.setdefault(query_id, {}):
            raise UserError(f"{path}:{number}: entity {doc!r} is ranked twice for query {query_id!r}")
        run[query_id][doc] = value
    return run


class RetrievalEvaluator:
    """Recall@k, nDCG@k and MRR of entity rankings on the MH benchmark (see the module docstring)."""

    def __init__(self, dataset: str | Path = "mh-mmkg", *, measures: Sequence[str] = DEFAULT_MEASURES,
                 resamples: int = 1000, seed: int = 0):
        from mhmmkg.dataset.loading import load_graph, load_queries

        bad = [m for m in measures if not _MEASURE.match(m)]
        if bad:
            raise UserError(f"unknown measure(s) {bad}: use R@k, P@k, nDCG@k or RR")
        self.measures = tuple(measures)
        self.resamples, self.seed = resamples, seed
        self.entities = frozenset(e.id for e in load_graph(dataset).entities)
        self.qrels = judged_qrels(load_queries(dataset))

    @property
    def expected_input_format(self) -> str:
        return EXPECTED_INPUT_FORMAT

    def check(self, run: Any) -> Run:
        """The run with every id checked and every score a finite number; UserError otherwise."""
        if isinstance(run, (str, Path)):
            run = read_run(run)
        if not isinstance(run, Mapping):
            raise UserError(f"a run is a mapping {{query_id: {{entity_id: score}}}}, not {type(run).__name__}")
        checked: Run = {}
        for query_id, ranking in run.items():
            if query_id not in self.qrels:
                raise UserError(f"query {query_id!r} is not a benchmark query")
            if not isinstance(ranking, Mapping):
                raise UserError(f"query {query_id!r}: expected {{entity_id: score}}, got {type(ranking).__name__}")
            unknown = sorted(d for d in ranking if d not in self.entities)
            if unknown:
                raise UserError(f"query {query_id!r}: {len(unknown)} unknown entity id(s), e.g. {unknown[0]!r}")
            scores = {}
            for doc, score in ranking.items():
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                    raise UserError(f"query {query_id!r}, entity {doc!r}: score {score!r} is not a finite number")
                scores[doc] = float(score)
            checked[query_id] = scores
        return checked

    def per_query(self, run: Run) -> dict[str, list[float]]:
        """Each measure's value for every benchmark query, in qrels order (0 where the run has none)."""
        import ir_measures

        parsed = [ir_measures.parse_measure(m) for m in self.measures]
        values = {str(m): {} for m in parsed}
        for metric in ir_measures.iter_calc(parsed, self.qrels, run):
            values[str(metric.measure)][metric.query_id] = metric.value
        return {name: [values[str(m)].get(q, 0.0) for q in self.qrels] for name, m in zip(self.measures, parsed)}

    def eval(self, run: Any) -> dict[str, Any]:
        checked = self.check(run)
        columns = self.per_query(checked)
        intervals = bootstrap_intervals(columns, resamples=self.resamples, seed=self.seed)
        return {
            "queries": len(self.qrels),
            "ranked": sum(1 for q in self.qrels if checked.get(q)),
            "measures": {name: {"mean": sum(v) / len(v) if v else None, "ci": intervals[name]}
                         for name, v in columns.items()},
            "per_query": {q: {name: columns[name][i] for name in columns} for i, q in enumerate(self.qrels)},
        }


def format_retrieval(result: Mapping[str, Any]) -> str:
    """The measures as a small table, in percent with their intervals."""
    lines = [f"{result['ranked']} of {result['queries']} queries ranked (a query left out scores 0)",
             f"{'measure':<10} {'mean':>6}   95% interval"]
    for name, value in result["measures"].items():
        ci = value["ci"]
        interval = f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else "-"
        lines.append(f"{name:<10} {100 * value['mean']:6.1f}   {interval}")
    return "\n".join(lines)
