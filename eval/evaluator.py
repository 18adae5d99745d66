"""The OGB-style evaluator of the MH benchmark.

    >>> from mhmmkg.eval import Evaluator
    >>> evaluator = Evaluator("mh-mmkg")
    >>> print(evaluator.expected_input_format)
    >>> result = evaluator.eval("run.jsonl")          # or a list of line objects, or {query_id: obj}
    >>> result["acc"], result["precision"], result["recall"], result["by_subtask"]["III"]

Metrics (DESIGN section 7), each a mean over queries: ``acc`` (the judge accepts the answer),
``precision`` / ``recall`` (whole-path matches, see ``metrics``), ``top`` (the predicted topic
entity is the query's monster), ``grounded_acc`` (answer accepted, recall 1, precision >= 1/5), and ``sim``
(per entity, the share of its distinct generated captions the judge finds similar to the human
caption, averaged over entities; copies of the human caption count as not similar).
``grounded_acc`` also needs path precision of at least 1/GROUNDED_ALPHA (see ``QueryScore``).

Missing predictions: with ``missing="zero"`` (default) a query without a prediction counts as
wrong with P = R = 0; ``missing="skip"`` leaves it out of every mean, which is what the
authors' script does.

``official=True`` scores as the authors' evaluation.py does: a ground-truth path counts when any
predicted path equals it (``metrics.path_score_any``); a path through entities or edges the KG
does not have matches nothing instead of invalidating the submission; missing predictions are
skipped; a File the question list repeats is scored once, against its first row, with the
prediction of its last row; the judge sees the question in the authors' exact text; and the
paths of settings without retrieval of their own are not read (P = R = 0), as their script never
reads the routes of those modes.

``protocol`` names the whole set of choices, a scoring policy (``mhmmkg.scoring``) registered in
``mhmmkg.protocols.SCORING``: "ours" (default), "paper" (ours, but the judge sees the authors'
question text) or "authors" (``official=True`` above, declared in ``mhmmkg.official.protocol``).
``matching`` picks the path matching on its own: "one-to-one" (ours and the paper's supplement
2.2), "any" (a ground-truth path counts when any predicted path equals it) or "names" (the
authors' script: "any", comparing the routes' entity keys as name strings, so a misspelled
name in their question list matches nothing; ``truth_names`` gives those strings per query id,
read from their question list, else the KG's names stand in for them).

An unparseable LLM verdict counts as not accepted and is reported in ``judge.unparseable``
with the query ids; every raw verdict is kept in ``queries[*].verdict``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Any

from mhmmkg.benchmark.efficiency import run_efficiency
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.kg.model import ROMAN, Query, hop_count
from mhmmkg.benchmark.render import render_key, render_question

from .judges import ANSWER, CAPTION, ExactJudge, Judge, Judgement, Verdict, is_copy, judge_all
from .metrics import (PathScore, bootstrap_intervals, matched_one_to_one, mean, paired_bootstrap, path_score,
                      path_score_any)
from mhmmkg.dataset.manifest import dataset_fingerprint
from mhmmkg.benchmark.protocols import SCORING
from mhmmkg.benchmark.settings import ANSWER_ONLY_SETTINGS
from mhmmkg.registry import Lazy, Registry

from .submission import CheckedSubmission, Prediction, SubmissionChecker

MISSING_MODES = ("zero", "skip")
#: path-matching policies -> score(evaluator, query, prediction): one-to-one by entity (ours, the paper's
#: supplement 2.2), any predicted path equal to a ground-truth one, or 'any' on the routes' entity names
#: as strings (the authors' evaluation.py)
MATCHINGS = Registry("path matching", "--path-matching", {
    "one-to-one": lambda evaluator, query, prediction: path_score(query.paths, prediction.paths),
    "any": lambda evaluator, query, prediction: path_score_any(query.paths, prediction.paths),
    "names": Lazy("mhmmkg.eval.evaluator:Evaluator._match_names"),
})
#: the offline judges by name: by the answer keys (text rules for a query without one), or text rules only
EXACT_JUDGES = ("exact", "exact-nokey")
#: grounded accuracy needs path precision of at least 1/alpha (alpha = the paths the baseline's
#: summarizer reads): a submission listing every walk of the KG has recall 1 but is not grounded
GROUNDED_ALPHA = 5
METRICS = ("acc", "precision", "recall", "top", "grounded_acc")
#: grounded accuracy in words: the one definition the CLI table, the HTML report and the README give
GROUNDED_DEFINITION = (f"Grnd. = grounded accuracy: the answer is accepted, every ground-truth path is retrieved "
                       f"(recall 1) and at most {GROUNDED_ALPHA} paths are predicted per ground-truth path "
                       f"(precision >= 1/{GROUNDED_ALPHA}).")

EXPECTED_INPUT_FORMAT = """\
Predictions for the MH benchmark, one per query, either
  - a path to a JSON Lines submission file (schema/submission.schema.json), or
  - a list of objects, one per query, or a dict {query_id: object}.
Each object:
  query_id    str   id of a benchmark query (not needed as a key of the dict form)
  answer      str   the predicted answer
  paths       list  retrieved knowledge paths, each a list of KG entity ids, topic monster first;
                    every hop must be an edge of the KG in its direction; [] when nothing retrieved.
                    Grounded accuracy counts a query only when its answer is accepted, recall is 1
                    and precision is at least 1/5 (at most 5 predicted paths per ground-truth path)
  topic       str   optional: predicted topic monster id (default: root of the first path)
  captions    dict  optional: entity id -> caption the model generated for its media (Sim.: each
                    entity counts once, however many queries caption it; a caption equal to the
                    human one, or too close to it (at least 3/4 of its distinct content words
                    are the human caption's and it repeats at least 2/5 of them), is a copy,
                    counted as not similar and reported)
  perception  str   optional: the model's description of the query media
  meta        dict  optional: free, not scored
Returns a dict with n, acc, precision, recall, top, grounded_acc, sim, by_subtask (I..VI),
by_hops, ci (bootstrap 95% intervals), judge, queries (per-query scores and raw verdicts), and
efficiency (calls per query, seconds per call, retrieval seconds per query, each mean and std)
when the submission file lies in a run folder with its summary.json.
"""


@dataclass(frozen=True)
class QueryScore:
    """How one query scored."""

    query_id: str
    subtask: str
    hops: int
    predicted: bool
    correct: bool
    precision: float
    recall: float
    matched: int
    n_truth: int
    n_predicted: int
    topic_correct: bool
    rule: str = ""
    verdict: str = ""
    unparseable: bool = False

    @property
    def grounded(self) -> bool:
        """Answer accepted, every ground-truth path found, and at most GROUNDED_ALPHA predicted
        paths per ground-truth path (precision >= 1/alpha), so flooding paths does not count."""
        return self.correct and self.recall == 1.0 and self.precision * GROUNDED_ALPHA >= 1.0

    def as_dict(self) -> dict[str, Any]:
        """Every field, then ``grounded`` (the fields are plain values: no deep copy needed)."""
        fields = self.__dict__.copy()        # the fields in their order, as the dataclass's __init__ set them
        if len(fields) != len(_SCORE_FIELDS):       # an attribute beyond the fields
            fields = {name: getattr(self, name) for name in _SCORE_FIELDS}
        fields["grounded"] = self.grounded
        return fields

    def values(self) -> dict[str, float]:
        return {"acc": float(self.correct), "precision": self.precision, "recall": self.recall,
                "top": float(self.topic_correct), "grounded_acc": float(self.grounded)}


_SCORE_FIELDS = tuple(f.name for f in fields(QueryScore))


class Evaluator:
    """Scores predictions on one benchmark (a dataset folder, Hub id or sources folder).

    ``judge`` is ``"exact"`` (default), ``"exact-nokey"`` (text rules only) or any ``Judge`` (e.g. an ``LLMJudge``); ``missing``
    defaults to "zero", or to "skip" with ``official=True`` (the authors' protocol, see above).
    """

    def __init__(self, dataset: str | Path = "mh-mmkg", *, judge: str | Judge = "exact",
                 missing: str | None = None, resamples: int = 1000, seed: int = 0, judge_workers: int = 1,
                 quiet: bool = True, official: bool = False, protocol: str | None = None,
                 matching: str | None = None, truth_names: Mapping[str, list[list[str]]] | None = None,
                 graph: KnowledgeGraph | None = None, queries: Sequence[Query] | None = None):
        protocol = protocol or ("authors" if official else "ours")
        policy = SCORING.resolve(protocol)
        missing = missing or policy.missing
        matching = matching or policy.matching
        if missing not in MISSING_MODES:
            raise ValueError(f"missing must be one of {MISSING_MODES}, not {missing!r}")
        if matching not in MATCHINGS:
            raise ValueError(f"matching must be one of {MATCHINGS.names()}, not {matching!r}")
        if graph is None or queries is None:
            from mhmmkg.dataset.loading import load_graph, load_queries

            graph = load_graph(dataset) if graph is None else graph
            queries = load_queries(dataset) if queries is None else queries
        self.dataset = str(dataset)
        self.graph = graph
        self.queries = list(queries)
        self.judge: Judge = ExactJudge(graph, use_keys=judge == "exact") if judge in EXACT_JUDGES else judge
        self.missing = missing
        self.resamples = resamples
        self.seed = seed
        self.judge_workers = judge_workers
        self.quiet = quiet
        self.policy = policy
        self.official = protocol == "authors"
        self.protocol = protocol
        self.matching = matching
        self.truth_names = truth_names
        self.checker = SubmissionChecker(graph, self.queries, dataset_fingerprint(dataset, graph, self.queries),
                                         unknown_matches_nothing=policy.unknown_matches_nothing)
        #: query id -> the ids sharing its File, first row first (one prediction per File; else itself)
        self.groups = {q.id: [q.id] for q in self.queries}
        #: the queries that are scored: all of them, or one per File (official protocol)
        self.scored = list(self.queries)
        if policy.one_prediction_per_file:
            from mhmmkg.official.protocol import repeat_group

            ids = {q.id for q in self.queries}
            self.groups = {q.id: repeat_group(q.id, ids) for q in self.queries}
            repeats = {qid for group in self.groups.values() for qid in group[1:]}
            self.scored = [q for q in self.queries if q.id not in repeats]

    @property
    def expected_input_format(self) -> str:
        return EXPECTED_INPUT_FORMAT

    @property
    def expected_output_format(self) -> str:
        return ("dict: n, n_predicted, n_missing, acc, precision, recall, top, grounded_acc, sim, "
                "n_captions, n_caption_entities, n_captions_copied, by_subtask {I..VI: n, acc, precision, recall, top, grounded_acc}, "
                "by_hops {hops: same}, ci {metric: [low, high]}, judge, protocol ('ours', 'paper' or 'authors'), "
                "matching, "
                "queries, captions, and efficiency {calls_per_query, seconds_per_call, "
                "retrieval_seconds_per_query: {mean, std, n}} when the submission file has a run summary")

    def check(self, predictions: Any) -> CheckedSubmission:
        """Validate predictions (a file path, a list of objects or a dict by query id)."""
        if isinstance(predictions, CheckedSubmission):
            return predictions
        if isinstance(predictions, (str, Path)):
            checked = self.checker.check_file(predictions)
        else:
            checked = self.checker.check_records(predictions)
        if self.policy.one_prediction_per_file:      # a File is predicted when any of its rows is
            checked.missing = [q.id for q in self.scored if self._prediction(q, checked) is None]
            checked.n_queries = len(self.scored)
        return checked

    def eval(self, predictions: Any) -> dict[str, Any]:
        """Score valid predictions; raise ``InvalidSubmission`` listing every problem otherwise."""
        checked = self.check(predictions)
        checked.raise_if_invalid()
        scores = self.score(checked)
        captions = self.caption_verdicts(checked)
        return with_efficiency(self.summarise(checked, scores, captions), predictions, checked)

    def compare(self, a: Any, b: Any) -> dict[str, Any]:
        """Evaluate two submissions and add a paired bootstrap of their differences (a - b)."""
        both = [self.check(a), self.check(b)]
        for checked in both:
            checked.raise_if_invalid()
        results, per_query = [], []
        for checked, given in zip(both, (a, b)):
            scores = self.score(checked)
            results.append(with_efficiency(self.summarise(checked, scores, self.caption_verdicts(checked)),
                                            given, checked))
            per_query.append(self.counted(scores))
        n, metrics = self.paired(per_query[0], per_query[1])
        first = results[0]
        first["compare"] = {
            "other": results[1]["submission"], "n": n, "metrics": metrics,
            "other_result": {k: v for k, v in results[1].items() if k not in ("queries", "captions")},
        }
        return first

    def counted(self, scores: Iterable[QueryScore]) -> dict[str, QueryScore]:
        """The scores that enter the means, by query id (missing predictions too with missing="zero")."""
        return {s.query_id: s for s in scores if s.predicted or self.missing == "zero"}

    def paired(self, a: Mapping[str, QueryScore], b: Mapping[str, QueryScore]) -> tuple[int, dict[str, dict]]:
        """The paired bootstrap of a - b over the queries both count (in ``a``'s order): their
        number and, per metric, the means, the difference, its interval and p."""
        shared = [qid for qid in a if qid in b]
        columns = [_columns([side[q].as_dict() for q in shared]) for side in (a, b)]
        return len(shared), paired_bootstrap(columns[0], columns[1], resamples=self.resamples, seed=self.seed)

    # -----------------------------------------------------------------------------------------

    def _judge_all(self, items: Sequence[Judgement], what: str) -> list[Verdict]:
        if self.quiet or not items:
            return judge_all(self.judge, items, workers=self.judge_workers)
        from tqdm.auto import tqdm

        with tqdm(total=len(items), desc=what, unit="item", leave=False) as bar:
            return judge_all(self.judge, items, workers=self.judge_workers, progress=bar.update)

    def _monster_name(self, monster: str) -> str | None:
        return self.graph.entity_name(monster) if monster in self.graph else None

    def _prediction(self, query: Query, checked: CheckedSubmission) -> Prediction | None:
        """The query's prediction; with one prediction per File, the last one among the rows of its File."""
        group = self.groups[query.id]
        if len(group) == 1:
            return checked.predictions.get(group[0])
        found = [checked.predictions[qid] for qid in group if qid in checked.predictions]
        return found[-1] if found else None

    def score(self, checked: CheckedSubmission) -> list[QueryScore]:
        """One QueryScore per scored query (missing ones included, marked not predicted)."""
        style = self.policy.question_style
        predictions = self._predictions(checked)
        predicted = [(q, p) for q, p in zip(self.scored, predictions) if p is not None]
        if self.quiet and type(self.judge) is ExactJudge:
            judged = [self._exact_verdict(q, p.answer, style) for q, p in predicted]
        else:
            items = [answer_judgement(q, p.answer, self.graph, style=style) for q, p in predicted]
            judged = self._judge_all(items, "judging answers")
        in_order = iter(judged)
        verdicts = [None if p is None else next(in_order) for p in predictions]     # of each scored query
        setting = checked.run_meta.get("setting")
        if self.matching == "one-to-one" and not self._answer_only(setting):
            return _one_to_one_scores(self.scored, predictions, verdicts)
        match = self._path_matching(setting)
        return [self._query_score(q, p, v, match) for q, p, v in zip(self.scored, predictions, verdicts)]

    def _predictions(self, checked: CheckedSubmission) -> list[Prediction | None]:
        """The prediction of each scored query, in their order (``_prediction``)."""
        if not self.policy.one_prediction_per_file:       # every group is the query alone
            get = checked.predictions.get
            return [get(q.id) for q in self.scored]
        return [self._prediction(q, checked) for q in self.scored]

    def _exact_verdict(self, query: Query, answer: str, style: str) -> Verdict:
        """The exact judge's verdict on the ``answer_judgement`` of ``query``, without making it: the
        question is written only if the key judge reads it, and the key in words (for an LLM) never."""
        def question() -> str:
            return render_question(query, self._monster_name(query.monster), style=style)

        def context() -> tuple[Callable[[], str], str, str]:
            return question, query.perception or "", query.answer

        return self.judge.judge_answer(answer, query.answer, query.monster, query.key, context, query.paths)

    def _path_matching(self, setting: str | None) -> Callable[[Query, Prediction], PathScore]:
        """How a query's predicted paths are scored for a run of ``setting``, looked up once per submission."""
        if self._answer_only(setting):
            return lambda query, prediction: PathScore(0, len(query.paths), 0)
        return partial(MATCHINGS[self.matching], self)

    def _answer_only(self, setting: str | None) -> bool:
        """True when the policy leaves the paths of a run of ``setting`` unread (P = R = 0)."""
        return self.policy.answer_only_paths_unread and setting in ANSWER_ONLY_SETTINGS

    def _match_names(self, query: Query, prediction: Prediction) -> PathScore:
        name = self._monster_name(query.monster)
        truth = (self.truth_names or {}).get(query.id) or [self._route_names(p, name) for p in query.paths]
        return path_score_any(truth, [self._route_names(p, name) for p in prediction.paths])

    def _route_names(self, path: Sequence[str], monster_name: str | None) -> list[str]:
        """A path as the authors' entity keys (an id the KG lacks stands for itself, matching nothing)."""
        from mhmmkg.official.release.routes import route_keys

        if all(e in self.graph for e in path):
            return route_keys(self.graph, path, monster_name)
        return [f"\0{e}" for e in path]

    @staticmethod
    def _query_score(query: Query, prediction: Prediction | None, verdict: Verdict | None,
                     match: Callable[[Query, Prediction], PathScore]) -> QueryScore:
        if prediction is None or verdict is None:
            return QueryScore(query.id, ROMAN[query.subtask], query.hops, predicted=False, correct=False,
                              precision=0.0, recall=0.0, matched=0, n_truth=len(query.paths), n_predicted=0,
                              topic_correct=False, rule="missing")
        paths = match(query, prediction)
        return QueryScore(query.id, ROMAN[query.subtask], query.hops, predicted=True, correct=verdict.accepted is True,
                          precision=paths.precision, recall=paths.recall, matched=paths.matched,
                          n_truth=paths.n_truth, n_predicted=paths.n_predicted,
                          topic_correct=prediction.predicted_topic == query.monster,
                          rule=verdict.rule, verdict=verdict.raw, unparseable=verdict.accepted is None)

    def caption_verdicts(self, checked: CheckedSubmission) -> list[dict[str, Any]]:
        """Judge each distinct (entity, generated caption) pair whose entity has a human caption.

        A caption too close to the human one (``judges.is_copy``: most of its content words are
        the human caption's and it repeats a good part of them) is not judged: it is a copy of the
        reference, counted as not similar with rule "copied"."""
        pairs: dict[tuple[str, str], None] = {}
        for prediction in checked.predictions.values():
            for entity_id, caption in prediction.captions.items():
                if self.graph.entity(entity_id).caption:
                    pairs[(entity_id, caption)] = None
        copied = {(e, c) for e, c in pairs if is_copy(c, self.graph.entity(e).caption)}
        judged = [pair for pair in pairs if pair not in copied]
        items = []
        for entity_id, caption in judged:
            entity = self.graph.entity(entity_id)
            items.append(Judgement(CAPTION, entity.name, entity.caption, caption, entity.monster))
        verdicts = dict(zip(judged, self._judge_all(items, "judging captions")))
        verdicts.update({pair: Verdict(False, "copied") for pair in copied})
        return [{"entity": e, "caption": c, "accepted": verdicts[e, c].accepted, "rule": verdicts[e, c].rule,
                 "verdict": verdicts[e, c].raw} for e, c in pairs]

    def summarise(self, checked: CheckedSubmission, scores: Sequence[QueryScore],
                  captions: Sequence[Mapping[str, Any]] = (), *, per_query: bool = True) -> dict[str, Any]:
        """The result of a scored submission; without ``per_query``, its ``queries`` list is empty
        (a caller that keeps the scores themselves need not hold them twice, as dicts).

        Every figure is read from the scores' rows (``QueryScore.as_dict``), made in one pass over
        the scores: the rows are new and lie together in memory, where the scores, made among
        everything judging makes, lie far apart, so that each pass over them waits on memory
        (a third of the summary's time at 100x, when a pass was made per figure)."""
        rows = [s.as_dict() for s in scores]
        counted = rows if self.missing == "zero" else [row for row in rows if row["predicted"]]
        columns = _columns(counted)
        unparseable = [row["query_id"] for row in rows if row["unparseable"]]
        n_predicted = sum(map(itemgetter("predicted"), rows))
        hops = list(map(itemgetter("hops"), counted))
        caption_unparseable = [c["entity"] for c in captions if c["accepted"] is None]
        result: dict[str, Any] = {
            "submission": checked.source,
            "dataset": self.dataset,
            "judge": {"name": self.judge.name, "unparseable": len(unparseable), "unparseable_queries": unparseable,
                      "unparseable_captions": len(caption_unparseable)},
            "missing": self.missing,
            "protocol": self.protocol,
            "matching": self.matching,
            "n": len(counted),
            "n_predicted": n_predicted,
            "n_missing": len(rows) - n_predicted,
            **{m: mean(column) for m, column in columns.items()},
            "sim": caption_similarity(captions),
            "n_captions": len(captions),
            "n_caption_entities": len({c["entity"] for c in captions}),
            "n_captions_copied": sum(c["rule"] == "copied" for c in captions),
            "ci": {"level": 0.95, "resamples": self.resamples, "seed": self.seed,
                   **bootstrap_intervals(columns, resamples=self.resamples, seed=self.seed)},
            "by_subtask": _groups(columns, list(map(itemgetter("subtask"), counted)), ROMAN.values()),
            "by_hops": {str(h): group for h, group in
                        _groups(columns, hops, sorted(set(map(itemgetter("hops"), rows)))).items()},
            "run_meta": checked.run_meta,
            "warnings": checked.warnings + _copy_warning(captions),
            "queries": rows if per_query else [],
            "captions": list(captions),
        }
        if self.matching == "names":
            result["route_names"] = "question list" if self.truth_names else "kg"
            if not self.truth_names:
                result["warnings"].append(
                    "route names: the ground-truth routes are spelt as the KG names its entities, so the "
                    "misspelled names of the authors' question list match here but not in their script; "
                    "give --question-list to compare with their spelling")
        return result


def _one_to_one_scores(queries: Iterable[Query], predictions: Iterable[Prediction | None],
                       verdicts: Iterable[Verdict | None]) -> list[QueryScore]:
    """``Evaluator._query_score`` of each query with one-to-one path matching (``metrics.path_score``),
    made in one loop without a PathScore and without the dataclass's keyword checks: the same
    fields, values and order."""
    new, fields, roman, scores = object.__new__, _SCORE_FIELDS, ROMAN, []
    for query, prediction, verdict in zip(queries, predictions, verdicts):
        truth = query.paths
        n_truth = len(truth)
        hops = len(truth[0]) - 1 if n_truth == 1 else hop_count(truth)     # query.hops, for most queries without a call
        if prediction is None or verdict is None:
            values = (query.id, roman[query.subtask], hops, False, False,
                      0.0, 0.0, 0, n_truth, 0, False, "missing", "", False)
        else:
            offered = prediction.paths
            n_predicted = len(offered)
            matched = matched_one_to_one(truth, offered)
            accepted = verdict.accepted
            values = (query.id, roman[query.subtask], hops, True,
                      accepted is True, matched / n_predicted if n_predicted else 0.0,
                      matched / n_truth if n_truth else 0.0, matched, n_truth, n_predicted,
                      prediction.predicted_topic == query.monster, verdict.rule, verdict.raw, accepted is None)
        score = new(QueryScore)       # what its __init__ sets, without a frozen dataclass's object.__setattr__ per field
        score.__dict__.update(zip(fields, values))
        scores.append(score)
    return scores


def answer_judgement(query: Query, answer: str, graph: KnowledgeGraph, *, style: str = "open") -> Judgement:
    """What a judge gets for one answer: the question as the model saw it, the reference, the
    answer key (as data and in words) and the scene description (context, not an answer)."""
    name = graph.entity(query.monster).name if query.monster in graph else None
    return Judgement(ANSWER, render_question(query, name, style=style), query.answer, answer, query.monster,
                     key=query.key, key_text=render_key(query.key, graph), scene=query.perception,
                     paths=query.paths)


def caption_similarity(captions: Sequence[Mapping[str, Any]]) -> float | None:
    """Sim.: the mean over entities of the share of that entity's distinct captions judged similar,
    so each entity weighs the same however many queries caption it."""
    by_entity: dict[str, list[bool]] = {}
    for c in captions:
        by_entity.setdefault(c["entity"], []).append(c["accepted"] is True)
    return mean([mean(accepted) for accepted in by_entity.values()])


def _copy_warning(captions: Sequence[Mapping[str, Any]]) -> list[str]:
    copied = sorted({c["entity"] for c in captions if c["rule"] == "copied"})
    if not copied:
        return []
    return [f"{len(copied)} entities have a caption equal or too close to the human caption ({', '.join(copied[:5])}"
            f"{', ...' if len(copied) > 5 else ''}): copies are counted as not similar in Sim."]


def with_efficiency(result: dict[str, Any], given: Any, checked: CheckedSubmission) -> dict[str, Any]:
    """Add the run's efficiency figures when the submission file lies in a run folder with a summary."""
    if isinstance(given, (str, Path)):
        figures, warning = run_efficiency(given, len(checked.predictions))
        if figures:
            result["efficiency"] = figures
        if warning:
            result["warnings"].append(warning)
    return result


def _columns(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Each metric's values over the rows of scores (``QueryScore.as_dict``): ``{m: [s.values()[m]
    for s in scores] for m in METRICS}``."""
    correct, precision, recall, top, grounded = (list(map(itemgetter(name), rows)) for name in
                                                 ("correct", "precision", "recall", "topic_correct", "grounded"))
    return {"acc": list(map(float, correct)), "precision": precision, "recall": recall, "top": list(map(float, top)),
            "grounded_acc": list(map(float, grounded))}


def _groups(columns: Mapping[str, Sequence[float]], labels: Sequence[Any], wanted: Iterable[Any]) -> dict[Any, dict[str, Any]]:
    """Per wanted label, its number of rows and the mean of each column over them, found in one
    pass over the labels (a group's rows in their order: each mean adds the same numbers in the
    same order as a mean over the filtered scores)."""
    rows: dict[Any, list[int]] = {label: [] for label in wanted}
    for i, label in enumerate(labels):
        if label in rows:
            rows[label].append(i)
    return {label: {"n": len(chosen), **{m: mean([column[i] for i in chosen]) for m, column in columns.items()}}
            for label, chosen in rows.items()}
