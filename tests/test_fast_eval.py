"""The fast paths of ``mhmmkg evaluate`` (issue 23) give exactly what the code they replace gave: the key
judge's verdicts against its rules as first written (every label of the agreement set and generated
replies on the KG of data/), the evaluator's exact-judge path against a Judgement per answer, the
summary's groups against the per-group filtering, the summary read from the rows of scores against
one read from the scores, the bootstrap's groups of rows against ``np.unique``, and the JSON writer's
rows against ``json.dumps``."""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import mhmmkg.eval
from mhmmkg import load_graph, load_queries
from mhmmkg.eval.evaluator import METRICS, Evaluator, _one_to_one_scores, answer_judgement
from mhmmkg.eval.judges import ANSWER, ExactJudge, Judgement, Verdict
from mhmmkg.eval.key_judge import (_ANY_NEGATION_PHRASE, _NEGATION_PHRASE_SECOND_WORDS, _NEGATION_PHRASES,
                                   MAX_OTHER_ENTITIES, Context, EntityIndex, KeyJudge, Mention, _compared,
                                   _may_hold_negation_phrase, _NamesIn, _negated, _refers_back, _wording_negated,
                                   is_hedged, key_word_tuples_of, key_words, polarity)
from mhmmkg.eval.metrics import bootstrap_intervals, mean, path_score, unique_rows
from mhmmkg.eval.submission import _Record
from mhmmkg.files import atomic
from mhmmkg.files.atomic import indented_json
from mhmmkg.kg.model import AnswerKey

DATA = Path(__file__).resolve().parents[1] / "data"
LABELS = Path(mhmmkg.eval.__file__).resolve().parent / "agreement" / "labels.jsonl"


def _first_contains_wording(text_words, wording):
    wanted = key_words(wording)
    n = len(wanted)
    return bool(n) and any(text_words[i:i + n] == wanted for i in range(len(text_words) - n + 1))


def _first_decide(judge: KeyJudge, key, reply, *, topic=None, context=(), paths=()):
    """KeyJudge.decide as first written: every context and the rival sets built for each reply."""
    index = judge.index
    reply_words = key_words(reply)
    mentions = index.mentions_in_words(reply_words)
    paths = [tuple(p) for p in paths]
    words = set().union(*(index.mentioned_names(text) for text in context))
    topic_ids = {topic} if topic else set()
    known = Context(words, {e for p in paths for e in p[:-1]} | topic_ids)
    support = Context(words, {e for p in paths for e in p} | topic_ids)
    if key.kind == "yes_no":
        said = polarity(reply)
        if said is None:
            return False, "key-polarity-missing"
        if said != key.polarity:
            return False, "key-polarity-wrong"
        if is_hedged(reply, said):
            return False, "key-hedge"
    named = [m.ids for m in mentions if not m.negated]
    if any(not any(e in ids for ids in named) for e in key.entities):
        return False, "key-point-missing" if key.kind in ("yes_no", "text") else "key-missing"
    if any(not any(_first_contains_wording(reply_words, w) for w in point) for point in key.nuggets):
        return False, "key-nugget-missing"
    wanted = set(key.entities)
    rivals = set().union(*(index.rivals(e, topic) for e in key.entities)) - wanted - known.ids
    key_mentions = [m for m in mentions if m.ids & wanted and not m.negated]
    for m in mentions:
        if m.negated or m.compared or m.ids & wanted or not m.ids & rivals or known.holds(m):
            continue
        if any(_refers_back(m, k, reply_words) for k in key_mentions):
            continue
        return False, "key-rival"
    if any(_first_contains_wording(reply_words, r) and not _wording_negated(reply_words, r) for r in key.rivals):
        return False, "key-rival"
    if key.kind == "yes_no" and any(not m.negated and not m.compared and not (m.ids & wanted) and not support.holds(m)
                                    for m in mentions):
        return False, "key-claim"
    if len({m.words for m in mentions if not (m.ids & wanted) and not known.holds(m)}) > MAX_OTHER_ENTITIES:
        return False, "key-flood"
    return True, {"entity": "key-entity", "entities": "key-entities", "yes_no": "key-polarity"}.get(key.kind, "key-text")


class FirstExactJudge(ExactJudge):
    """The exact judge as first written, reached through a Judgement per answer (the evaluator's
    general path: the question written and the key put in words for every query)."""

    def judge(self, item: Judgement) -> Verdict:
        if item.kind == ANSWER and item.key is not None and item.prediction.strip():
            accepted, rule = _first_decide(self._key_judge, item.key, item.prediction, topic=item.monster,
                                           context=(item.question, item.scene or "", item.reference), paths=item.paths)
            return Verdict(accepted, rule)
        return super().judge(item)


@pytest.fixture(scope="module")
def benchmark():
    return load_graph(DATA), load_queries(DATA)


FILLERS = ("not", "never", "the", "rather than", "instead of", "like", "same as", "subspecies of", "or", "maybe",
           "yes", "no", "Yes,", "No.", "and", "it", "isn't", "(yes)", "/", "similar to", "the same class as", "its")


def _replies(graph, queries, n: int, seed: int) -> list[tuple[str, str]]:
    """(query id, reply): the agreement set's labelled replies, then generated ones mixing names and
    aliases of the KG, negations, comparisons, hedges, polarity words and parts of the query's texts."""
    pairs = [(r["query_id"], r["reply"]) for r in map(json.loads, LABELS.read_text(encoding="utf-8").splitlines())]
    rng = random.Random(seed)
    names = [name for e in graph.entities for name in e.names]
    for _ in range(n):
        q = rng.choice(queries)
        parts = []
        for _ in range(rng.randint(1, rng.choice((3, 8, 20)))):
            roll = rng.random()
            if roll < 0.35:
                parts.append(rng.choice(names))
            elif roll < 0.7:
                parts.append(rng.choice(FILLERS))
            else:
                text = rng.choice((q.answer, q.question, q.perception or "", q.extra or ""))
                words = text.split()
                start = rng.randrange(len(words) + 1)
                parts.append(" ".join(words[start:start + rng.randint(1, 6)]))
        pairs.append((q.id, " ".join(parts)))
    return pairs


def test_key_judge_decides_every_reply_as_the_rules_first_written(benchmark):
    graph, queries = benchmark
    by_id = {q.id: q for q in queries}
    judge = KeyJudge(graph)
    rules = set()
    for qid, reply in _replies(graph, queries, 6000, seed=3) * 2:      # twice: the second time read from the cache
        q = by_id[qid]
        context = (answer_judgement(q, reply, graph).question, q.perception or "", q.answer)
        expected = _first_decide(judge, q.key, reply, topic=q.monster, context=context, paths=q.paths)
        assert judge.decide(q.key, reply, topic=q.monster, context=context, paths=q.paths) == expected, (qid, reply)
        assert judge.decide(q.key, reply, topic=q.monster, context=lambda c=context: c, paths=q.paths) == expected
        rules.add(expected[1])
    assert {"key-entity", "key-entities", "key-polarity", "key-text", "key-missing", "key-rival", "key-claim",
            "key-flood", "key-hedge", "key-nugget-missing", "key-polarity-missing"} <= rules


def _with_rival_wordings(key, text: str, rng):
    """``key`` with rival wordings: some words of ``text`` (each may be there, negated or not), or a wording
    that is nowhere."""
    words = text.split()
    wordings = [" ".join(words[i:i + rng.randint(1, 2)]) for i in rng.sample(range(len(words)), min(2, len(words)))]
    return AnswerKey(key.kind, key.entities, key.polarity, key.nuggets, (*wordings, "no such wording"), key.origin)


@pytest.mark.parametrize("kg", ["data", "random"])
def test_replies_repeating_a_context_text_are_decided_as_the_rules_first_written(benchmark, random_benchmark, kg):
    """A reply that is the reference, the scene or the question, a part of one, or one with a rival
    after it or a negation before it, with the query's key and with rival wordings taken from the text."""
    graph, queries = benchmark if kg == "data" else random_benchmark[1:]
    rng = random.Random(13)
    judge = KeyJudge(graph)
    rules = Counter()
    keyed = [q for q in queries if q.key]
    for q in rng.sample(keyed, min(len(keyed), 400)):
        question = answer_judgement(q, "", graph).question
        context = (question, q.perception or "", q.answer)
        for text in dict.fromkeys(context):
            if not text.strip():
                continue
            words = text.split()
            cut = rng.randrange(len(words))
            for reply in (text, " ".join(words[:cut] or words), " ".join(words[cut:]), f"{text} or Tail Slam",
                          f"not {text}"):
                for key in (q.key, _with_rival_wordings(q.key, text, rng)):
                    expected = _first_decide(judge, key, reply, topic=q.monster, context=context, paths=q.paths)
                    given = lambda c=context: c
                    assert judge.decide(key, reply, topic=q.monster, context=given, paths=q.paths) == expected, reply
                    rules[expected[1]] += 1
    assert rules["key-rival"] and len(rules) >= 5, rules


def test_mentions_equal_the_mentions_first_written(benchmark):
    graph, queries = benchmark
    index = EntityIndex(graph)
    names = index.names()
    for _, reply in _replies(graph, queries, 3000, seed=5):
        words = key_words(reply)
        first = [Mention(i, name, names[name], i > 0 and _negated(words, i), i > 0 and _compared(words, i))
                 for i, name in index._names_in(words)]
        assert index.mentions_in_words(words) == first, reply


def test_negation_phrases_are_found_as_the_search_finds_them(benchmark):
    """The substring tests before the search answer as the search alone, phrases inside words too,
    and the mentions after them are those first written."""
    graph, queries = benchmark
    index = EntityIndex(graph)
    names = index.names()
    rng = random.Random(3)
    inside = ["brother thanks", "Mainstead Öf", "Ratherthan", "rather  than", "as opposedto", "Ｏther ｔhan",
              "it has opposed to", "instead-of"]
    texts = [reply for _, reply in _replies(graph, queries, 2000, seed=8)]
    texts += [f"{reply} {rng.choice(inside)} {name}" for reply, name in zip(texts[-500:], names)]
    texts += inside
    found = [_may_hold_negation_phrase(key_words(text)) for text in texts]
    assert found == [_ANY_NEGATION_PHRASE.search(" ".join(key_words(text))) is not None for text in texts]
    assert sum(found) > 300 and found[-8:] == [True, True, False, True, False, True, True, True]
    assert set(_NEGATION_PHRASE_SECOND_WORDS) == {f" {phrase[1]}" for phrase in _NEGATION_PHRASES}
    for text in texts:
        words = key_words(text)
        first = [Mention(i, name, names[name], i > 0 and _negated(words, i), i > 0 and _compared(words, i))
                 for i, name in index._names_in(words)]
        assert index.mentions_in_words(words) == first, text


def test_names_in_texts_read_one_at_a_time_equal_the_names_of_every_text(benchmark):
    graph, queries = benchmark
    index = EntityIndex(graph)
    rng = random.Random(7)
    replies = [reply for _, reply in _replies(graph, queries, 400, seed=7)]
    asked = [m.words for reply in replies for m in index.mentions(reply)] + [("no", "such", "name"), (), "tail"]
    for _ in range(300):
        texts = [rng.choice(replies) for _ in range(rng.randint(0, 3))]
        every = set().union(*(index.mentioned_names(text) for text in texts))
        written = []
        given = [(lambda t=text: written.append(t) or t) if rng.random() < 0.5 else text for text in texts]
        names = _NamesIn(index, given if rng.random() < 0.5 else lambda g=given: g)
        for words in rng.sample(asked, 20):
            assert (words in names) == (words in every)
        assert len(written) <= sum(map(callable, given))        # each text written at most once


#: texts in several scripts: accents, a final sigma, kana with voicing marks, Hangul, full-width
#: letters, a combining mark first, the joiner itself, a lone surrogate, characters beyond 16 bits
SCRIPT_TEXTS = ["Zör Straße", "ΟΔΥΣΣΕΥΣ Σ", "ガブラス がぶ", "한국어 ᄀ", "ＦＵＬＬ Ｎ", "\u0301e\u0301 cafe\u0301s",
                "a\x00b", "\ud800x", "𝔘𝔫𝔦 🐉 roars", "", " ", "Tail Swipes", "glass bass bus", "İstanbul ǅ ﬁre"]


@pytest.mark.parametrize("seed", range(3))
def test_key_words_of_many_texts_at_once_equal_key_words_of_each(benchmark, seed):
    graph, _ = benchmark
    rng = random.Random(seed)
    names = [name for e in graph.entities for name in e.names]
    texts = [rng.choice(names + SCRIPT_TEXTS) + rng.choice(["", " ", "\u0300", "ς"]) for _ in range(400)]
    for chosen in (texts, [t for t in texts if t.isascii()], [t for t in texts if not t.isascii()], texts[:1], []):
        assert key_word_tuples_of(chosen) == [tuple(key_words(t)) for t in chosen]


#: the plural s at the edges of its rule, and words apart by punctuation, underscores and spaces of other kinds
PLURAL_TEXTS = ["bus buss abss asss aass tails TAILS s ss sss", "Tail_Swipes__x", "cats,dogs;mices!", "1234s 12s",
                "crabs\tclaws\u3000roars\u00a0hits", "Σσς ΣΣΣs", "x's 'tis", "!!!", "wyverns\x1fdrakes"]


@pytest.mark.parametrize("seed", range(3))
def test_key_word_tuples_of_names_equal_key_words_of_each(benchmark, seed):
    graph, _ = benchmark
    rng = random.Random(seed)
    names = [name for e in graph.entities for name in e.names]
    pool = names + SCRIPT_TEXTS + PLURAL_TEXTS
    texts = [rng.choice(pool) + rng.choice(["", " ", "\u0300", "ς", "s", "es."]) for _ in range(600)]
    without_apart = [t for t in texts if "\x00" not in t]
    for chosen in (texts, without_apart, [t for t in without_apart if t.isascii()],
                   [t for t in without_apart if not t.isascii()], SCRIPT_TEXTS + PLURAL_TEXTS, texts[:1], []):
        assert key_word_tuples_of(chosen) == [tuple(key_words(t)) for t in chosen]
    for chosen in (texts * 3, list(dict.fromkeys(texts)), without_apart * 2 + SCRIPT_TEXTS):     # repeating or not
        assert key_word_tuples_of(chosen) == [tuple(key_words(t)) for t in chosen]


def _first_names_in(ids: dict, words: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    """The names found in ``words`` by a plain scan: at each place the longest name (of at most
    8 words) there, then on after it."""
    found, i = [], 0
    while i < len(words):
        name = next((tuple(words[i:i + n]) for n in range(min(8, len(words) - i), 0, -1)
                     if tuple(words[i:i + n]) in ids), None)
        found.append((i, name)) if name else None
        i += len(name) if name else 1
    return found


def _first_index_names(graph) -> dict:
    """EntityIndex's ids by name words as first written: each name's words made alone, a set
    of ids per words."""
    ids_by_name = {}
    for entity_id, _, _, names in graph.entity_names():
        for name in names:
            ids_by_name.setdefault(name, []).append(entity_id)
    ids_of = {}
    for name, ids in ids_by_name.items():
        words = tuple(key_words(name))
        if words and " ".join(words) not in {"a", "an", "the", "it", "and", "or", "of", "to", "in", "on", "at", "is",
                                             "no", "yes"}:
            ids_of.setdefault(words, set()).update(ids)
    return {words: frozenset(ids) for words, ids in ids_of.items()}


def test_the_index_of_names_equals_the_index_first_written(benchmark):
    from mhmmkg.kg.graph import KnowledgeGraph
    from mhmmkg.kg.model import Entity

    graph, queries = benchmark
    rng = random.Random(11)
    names = [name for e in graph.entities for name in e.names] + SCRIPT_TEXTS + ["The", "no", "Yes!", "A B", "it is"]
    entities = [Entity(f"m{i}", rng.choice(names), "monster") for i in range(20)]
    entities += [Entity(f"e{i}", rng.choice(names), rng.choice(["attack", "effect"]), rng.choice(["m1", "m2", None]),
                        aliases=tuple(rng.sample(names, rng.randint(0, 3)))) for i in range(3000)]
    entities += [Entity(f"w{n}", " ".join(["word"] * n), "attack") for n in (3, 1, 5, 2, 8, 9)]   # a leaf continued
    # names sharing their first words, made in either order: a leaf that goes on past its node is split
    entities += [Entity(f"p{i}", name, "attack") for i, name in enumerate(
        ["crab claw pinch", "crab claw", "crab", "crab shell slam hard", "crab shell bash", "crab shell", "shell",
         "tail swipe spin", "tail swipe", "tail", "tail slam heavy", "tail slam"])]
    texts = [" ".join(rng.choices(names, k=rng.randint(0, 6))) for _ in range(2000)]
    texts += [" ".join(["word"] * n) for n in range(12)] + [reply for _, reply in _replies(graph, queries, 300, seed=2)]
    texts += ["crab claw crab shell slam crab shell slam hard tail swipe tail slam heavy tail sla crab",
              "crab shell bas crab shell bash crab claw pinc", "tail tail swipe spin shell crab claw"]
    for kg in (graph, KnowledgeGraph(entities, [])):
        index = EntityIndex(kg)
        names = index.names()
        assert names == _first_index_names(kg)
        name_words = list(names)
        for _ in range(3000):       # a part of a name, then the start of another
            first, then = rng.choice(name_words), rng.choice(name_words)
            texts.append(" ".join(first[:rng.randint(1, len(first))] + then[:rng.randint(0, len(then))]))
        for text in texts:
            words = key_words(text)
            assert index._names_in(words) == _first_names_in(names, words), text


def test_monster_names_are_the_names_of_the_entities_the_graph_gives(benchmark, tmp_path):
    from mhmmkg.cli import main

    main(["build", "--src", str(DATA), "--out", str(tmp_path / "ds")])
    graph, queries = load_graph(tmp_path / "ds"), load_queries(tmp_path / "ds")
    evaluator = Evaluator(tmp_path / "ds", graph=graph, queries=queries)
    ids = [q.monster for q in queries] + [e.id for e in benchmark[0].entities[:300]] + ["no-such-entity"]
    names = [evaluator._monster_name(i) for i in ids]
    assert "_entities" not in graph.__dict__          # read from the names, no entity made
    assert names == [graph.entity(i).name if i in graph else None for i in ids] and names[0]


def test_rival_groups_read_the_entity_the_graph_gives(benchmark):
    graph, queries = benchmark
    index = EntityIndex(graph)
    assert index._monsters == {e.id for e in graph.entities if e.type == "monster"} and index._monsters
    for entity in graph.entities:
        for topic in (None, entity.monster, queries[0].monster):
            expected = ([index._monsters] if entity.type == "monster" else
                        [index._groups[entity.type, o] for o in {entity.monster, topic, None}
                         if (entity.type, o) in index._groups])
            assert sorted(map(sorted, index.rival_groups(entity.id, topic))) == sorted(map(sorted, expected))


#: the answers of a submission, each a function (query, its question as shown, a generated reply, rng)
ANSWERS = {
    "mixed": lambda q, question, reply, rng: rng.choice([q.answer, "", f"{q.answer} or Tail Slam", reply]),
    "a text of the query": lambda q, question, reply, rng: rng.choice([q.answer, q.perception or "", question,
                                                                       " ".join(q.answer.split()[1:])]),
    "with the scene": lambda q, question, reply, rng: f"{q.answer}: {q.perception or reply}",
    "with the question": lambda q, question, reply, rng: f"{q.answer}, as asked: {question}",
    "yes or no and the question": lambda q, question, reply, rng: f"{rng.choice(('Yes', 'No'))}, {question}",
}


def _submission(graph, queries, answers: str, seed: int) -> list[dict]:
    """A prediction for most queries, full or partial paths; the answers right, wrong, hedged or
    flooding, or naming what the scene or the question names (context)."""
    rng = random.Random(seed)
    replies = dict(_replies(graph, queries, 2000, seed))
    records = []
    for q in queries:
        if rng.random() < 0.1:
            continue
        answer = ANSWERS[answers](q, answer_judgement(q, "", graph).question, replies.get(q.id, q.answer), rng)
        paths = [list(p) for p in q.paths if rng.random() < 0.7]
        records.append({"query_id": q.id, "answer": answer, "paths": paths, "topic": q.monster})
    return records


@pytest.mark.parametrize("protocol", ["ours", "paper", "authors"])
def test_evaluation_by_the_exact_judge_equals_one_judgement_per_answer(benchmark, protocol):
    graph, queries = benchmark
    rules = set()
    for answers in ANSWERS:
        records = _submission(graph, queries, answers, seed=5)
        fast = Evaluator(DATA, graph=graph, queries=queries, protocol=protocol).eval(records)
        first = Evaluator(DATA, graph=graph, queries=queries, protocol=protocol, judge=FirstExactJudge(graph))
        assert first.judge.name == "exact"
        assert json.dumps(fast) == json.dumps(first.eval(records)), answers
        rules |= {q["rule"] for q in fast["queries"]}
    assert len(rules) >= 8


@pytest.fixture(scope="module")
def random_benchmark(tmp_path_factory):
    """The random generator's benchmark at scale 1: coined names in several scripts, accents and kana."""
    import sys

    from mhmmkg.builders.build import build_dataset

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import synthetic_random

    root = tmp_path_factory.mktemp("random")
    synthetic_random.generate(root / "src", 1)
    build_dataset(root / "src", root / "built", quiet=True)
    return root / "built", load_graph(root / "built"), load_queries(root / "built")


def test_evaluation_of_coined_names_in_several_scripts_equals_one_judgement_per_answer(random_benchmark):
    """Replies that repeat the reference, the scene or the question word for word (read once, as a
    reply and as context), parts of them, and the generated replies, on non-ASCII names."""
    built, graph, queries = random_benchmark
    assert any(not e.name.isascii() for e in graph.entities)
    rules = set()
    for answers in ANSWERS:
        records = _submission(graph, queries, answers, seed=8)
        fast = Evaluator(built, graph=graph, queries=queries).eval(records)
        first = Evaluator(built, graph=graph, queries=queries, judge=FirstExactJudge(graph)).eval(records)
        assert json.dumps(fast) == json.dumps(first), answers
        rules |= {q["rule"] for q in fast["queries"]}
    assert {"key-entity", "key-missing", "key-polarity", "key-claim", "key-rival"} <= rules


def test_one_to_one_scores_equal_the_general_path_with_path_score(benchmark):
    graph, queries = benchmark
    evaluator = Evaluator(DATA, graph=graph, queries=queries)
    rng = random.Random(6)
    records = _submission(graph, queries, "mixed", seed=6)
    for record in records:
        roll = rng.random()
        if roll < 0.2:
            record["paths"] = record["paths"] * rng.randint(2, 3)       # repeats: the Counter path
        elif roll < 0.3:
            del record["topic"]                                        # topic from the first path
    checked = evaluator.check(records)
    match = lambda query, prediction: path_score(query.paths, prediction.paths)
    verdicts = (None, Verdict(True, "key-entity"), Verdict(False, "key-rival"), Verdict(None, "gpt", "Maybe"))
    kinds = set()
    for q in evaluator.scored:
        prediction = checked.predictions.get(q.id)
        for verdict in verdicts:
            fast = _one_to_one_scores([q], [prediction], [verdict])[0]
            general = Evaluator._query_score(q, prediction, verdict, match)
            assert fast == general and list(fast.as_dict().items()) == list(general.as_dict().items())
            if fast.predicted:      # the matching as first written: a multiset intersection
                assert fast.matched == sum((Counter(q.paths) & Counter(prediction.paths)).values())
            kinds.add((fast.predicted, 0 < fast.recall < 1, fast.n_predicted > fast.n_truth))
    assert len(kinds) >= 4
    fast = evaluator.score(checked)
    judged = {q.id: evaluator.judge.judge(answer_judgement(q, checked.predictions[q.id].answer, graph))
              for q in evaluator.scored if q.id in checked.predictions}
    assert fast == [Evaluator._query_score(q, checked.predictions.get(q.id), judged.get(q.id), match)
                    for q in evaluator.scored]


def test_clean_submissions_are_checked_as_the_record_by_record_check_does(benchmark, tmp_path):
    graph, queries = benchmark
    checker = Evaluator(DATA, graph=graph, queries=queries).checker
    records = _submission(graph, queries, "mixed", seed=9)
    records[0]["captions"] = {queries[0].monster: "a caption"}
    records[1]["meta"] = {"x": 1}
    defects = {"duplicate": records[2], "unknown id": {**records[3], "query_id": "nope"},
               "bad path": {**records[4], "paths": [["nope"]]}, "bad topic": {**records[5], "topic": "nope"},
               "schema": {**records[6], "answer": 1}, "caption": {**records[7], "captions": {"nope": "c"}}}
    for defect in (None, *defects):
        lines = records + ([defects[defect]] if defect else [])
        path = tmp_path / "sub.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        fast = checker.check_file(path)
        numbered = [(n, json.loads(line)) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)]
        slow = checker._check([_Record(f"{path}:{n}", obj, None, n) for n, obj in numbered], str(path))
        clean = checker._check_clean([n for n, _ in numbered], [obj for _, obj in numbered], str(path))
        assert (clean is None) == (defect is not None)
        assert (fast.predictions, fast.missing, fast.problems, fast.notes) == \
               (slow.predictions, slow.missing, slow.problems, slow.notes)
        assert bool(fast.problems) == (defect is not None) and fast.missing
        if defect is None:      # keyed by the benchmark's own id strings (look-ups then compare no text)
            assert all(qid is checker._query_ids[qid] for qid in fast.predictions)


def _first_group(scores: list[dict], keep) -> dict:
    chosen = [s for s in scores if keep(s)]
    values = [{"acc": float(s["correct"]), "precision": s["precision"], "recall": s["recall"],
               "top": float(s["topic_correct"]), "grounded_acc": float(s["grounded"])} for s in chosen]
    return {"n": len(chosen), **{m: mean([v[m] for v in values]) for m in METRICS}}


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_summary_groups_equal_the_means_of_the_filtered_scores(benchmark, missing):
    graph, queries = benchmark
    result = Evaluator(DATA, graph=graph, queries=queries, missing=missing).eval(_submission(graph, queries, "mixed", 8))
    counted = [s for s in result["queries"] if s["predicted"] or missing == "zero"]
    overall = _first_group(counted, lambda s: True)
    assert {m: result[m] for m in METRICS} == {m: overall[m] for m in METRICS} and result["n"] == overall["n"]
    assert result["by_subtask"] == {r: _first_group(counted, lambda s, r=r: s["subtask"] == r)
                                    for r in ("I", "II", "III", "IV", "V", "VI")}
    assert result["by_hops"] == {str(h): _first_group(counted, lambda s, h=h: s["hops"] == h)
                                 for h in sorted({s["hops"] for s in result["queries"]})}
    assert result["n_missing"] > 0 and len(result["by_hops"]) > 2


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_a_summary_read_from_the_rows_equals_one_read_from_the_scores(benchmark, missing):
    graph, queries = benchmark
    evaluator = Evaluator(DATA, graph=graph, queries=queries, missing=missing)
    checked = evaluator.check(_submission(graph, queries, "mixed", 8))
    scores = evaluator.score(checked)
    scores[1:6:2] = [replace(s, unparseable=True, verdict="Peut-être : « oui » ou ナルガクルガ?") for s in scores[1:6:2]]
    result = evaluator.summarise(checked, scores)
    counted = [s for s in scores if s.predicted or missing == "zero"]
    columns = {m: [s.values()[m] for s in counted] for m in METRICS}
    assert result["queries"] == [s.as_dict() for s in scores]
    assert (result["n"], result["n_predicted"], result["n_missing"]) == \
           (len(counted), sum(s.predicted for s in scores), sum(not s.predicted for s in scores))
    assert result["judge"]["unparseable_queries"] == [s.query_id for s in scores if s.unparseable] != []
    assert {m: result[m] for m in METRICS} == {m: mean(column) for m, column in columns.items()}
    assert {m: result["ci"][m] for m in METRICS} == bootstrap_intervals(columns, resamples=1000, seed=0)
    assert list(result["by_hops"]) == [str(h) for h in sorted({s.hops for s in scores})]
    assert 0 < result["n_missing"] < len(scores) and {"I", "II"} <= set(result["by_subtask"])


def _plain(rng: random.Random):
    return rng.choice([1, 2.5, None, True, False, "x", "a\nb", "}", "{", "},\n      {", "é", "\u2028", -0.0, 1e300,
                       '": [', '"a": {'])


@pytest.mark.parametrize("rows_per_piece", [1, 2, 512])
def test_rows_of_plain_objects_are_written_as_json_dumps_writes_them(rows_per_piece, monkeypatch, tmp_path):
    monkeypatch.setattr(atomic, "ROWS_PER_PIECE", rows_per_piece)
    rng = random.Random(rows_per_piece)
    for n in range(3000):
        rows = [{rng.choice(["a", "b", "}", "{", "k\n"]) + str(i): _plain(rng) for i in range(rng.randint(1, 4))}
                for _ in range(rng.randint(0, 5))]
        if rows and rng.random() < 0.2:
            rows.append({})
        if rng.random() < 0.2:
            rows.append(rng.choice([1, "s", [1], {"x": [1]}, {"x": 1, "y": {"k": 2}}, {"x": ()}]))
        if rng.random() < 0.2:
            rows = tuple(rows)
        doc = rng.choice([rows, {"queries": rows, "n": 1}, {"a": {"b": rows}}, [rows, rows]])
        for sort_keys in (False, True):
            expected = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=sort_keys)
            assert indented_json(doc, sort_keys=sort_keys) == expected
            if n % 20 == 0:           # the file is written piece by piece
                atomic.atomic_write_json(tmp_path / "doc.json", doc, sort_keys=sort_keys)
                assert (tmp_path / "doc.json").read_text(encoding="utf-8") == expected + "\n"


def test_unique_rows_equal_numpy_unique_of_the_rows():
    """The bootstrap's groups of equal score rows, found by a sort on the columns, are those of
    ``np.unique(axis=0)``: the same rows in the same order (the order fixes the draw), the same counts."""
    rng = np.random.default_rng(0)
    values = np.array([0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.25, -1.0, 1e-300])
    for _ in range(2000):
        rows = rng.choice(values[:rng.integers(1, len(values) + 1)], size=(rng.integers(1, 80), rng.integers(1, 6)))
        groups, sizes = unique_rows(rows)
        expected_groups, expected_sizes = np.unique(rows, axis=0, return_counts=True)
        assert np.array_equal(groups, expected_groups) and np.array_equal(sizes, expected_sizes)
