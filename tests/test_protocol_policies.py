"""The protocols as registered policies: the evaluator reads every protocol choice from the scoring
policy --protocol names (``mhmmkg.protocols.SCORING``; the authors' one declared with their
conventions), a search strategy says what it asks of the run (``Traits``), and the authors'
question style is registered, not branched on."""
from __future__ import annotations

import pytest

from mhmmkg.eval import Evaluator
from mhmmkg.eval.submission import InvalidSubmission
from mhmmkg.benchmark.official_protocol import AUTHORS_SCORING
from mhmmkg.benchmark.protocols import EVALUATE_CHOICES, SCORING
from mhmmkg.benchmark.scoring import ScoringPolicy

LINES = [{"query_id": "wolf-001", "answer": "Thunder Wolf", "paths": [["wolf"]]},
         {"query_id": "wolf-002", "answer": "Double Slam", "paths": [["wolf", "wolf.nowhere"]]}]


def test_the_protocols_are_the_registered_policies():
    assert list(SCORING) == ["ours", "paper", "authors"] and SCORING["authors"] is AUTHORS_SCORING
    assert EVALUATE_CHOICES["authors"] == {"path_matching": "names", "judge_verdict": "exact-yes", "missing": "skip"}
    assert EVALUATE_CHOICES["ours"] == EVALUATE_CHOICES["paper"] == {
        "path_matching": "one-to-one", "judge_verdict": "first-word", "missing": "zero"}


def test_the_evaluator_scores_as_the_policy_says(tiny_dataset):
    with pytest.raises(InvalidSubmission):
        Evaluator(tiny_dataset).eval(LINES)
    authors = Evaluator(tiny_dataset, protocol="authors").eval(LINES)
    assert (authors["n"], authors["missing"], authors["matching"]) == (2, "skip", "names")
    SCORING.register("tolerant", ScoringPolicy("tolerant", unknown_matches_nothing=True))
    try:
        tolerant = Evaluator(tiny_dataset, protocol="tolerant").eval(LINES)
    finally:
        SCORING._entries.pop("tolerant")
    assert (tolerant["n"], tolerant["missing"], tolerant["matching"]) == (6, "zero", "one-to-one")
    assert tolerant["queries"][1]["recall"] == 0.0 and tolerant["queries"][1]["predicted"]


def test_a_search_strategy_says_what_it_asks_of_the_run(tmp_path):
    from mhmmkg.baseline.search import OFFERS_PATH_ENTITIES, select_paths, submitted_paths, traits

    assert OFFERS_PATH_ENTITIES == ("paper", "official") and traits("official").validates_topic_as_text
    paths = [("m", "a", "b"), ("m",), ("m", "c")]
    plugin = tmp_path / "mine.py"
    plugin.write_text("from mhmmkg.baseline.search import SearchResult, Traits\n\n"
                      "def plain(graph, root, expand, validate, **options):\n    return SearchResult()\n\n"
                      "def everything(graph, root, expand, validate, **options):\n    return SearchResult()\n\n"
                      "everything.traits = Traits(hands_over='all', submits_all_found=True)\n")
    assert select_paths(paths, 2, f"{plugin}:plain") == [("m",), ("m", "c")]          # as bfs
    assert select_paths(paths, 2, f"{plugin}:everything") == paths
    assert submitted_paths(paths, paths[:1], f"{plugin}:everything") == paths


def test_the_authors_question_style_is_registered_with_their_conventions():
    from mhmmkg import official_protocol
    from mhmmkg.kg.model import Query
    from mhmmkg.benchmark.render import STYLES, render_question

    assert STYLES["official"] is official_protocol.QUESTION_STYLE
    query = Query(id="q", subtask=1, question="Is{monster}angry?", monster="wolf", answer="x", paths=(("wolf",),),
                  extra="{monster} roars.")
    assert render_question(query, "Wolf", style="official") == "I am playing 'Monster Hunter: World' and " \
        "fighting with Wolf.  Wolf roars. Is Wolfangry?"
    assert render_question(query, "Wolf") == "I am playing 'Monster Hunter: World' and fighting with Wolf. " \
        "Wolf roars. Is Wolf angry?"
