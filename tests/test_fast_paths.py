"""The fast paths of issue 23 give exactly what the slow paths they replace gave."""
from __future__ import annotations

import json

import pytest

from mhmmkg import jsontext
from mhmmkg.graph import KnowledgeGraph


def _slow_outcome(text: str, control_characters: bool):
    """What loads_strict answered before its prefilter: the walk over every node."""
    value = json.loads(text)
    try:
        jsontext._check_value(value, (), control_characters)
    except jsontext.JSONTextError as exc:
        return ("error", exc.reason, exc.pointer)
    return ("ok", value)


def _fast_outcome(text: str, control_characters: bool):
    try:
        return ("ok", jsontext.loads_strict(text, control_characters=control_characters))
    except jsontext.JSONTextError as exc:
        return ("error", exc.reason, exc.pointer)


def _nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


TEXTS = [
    '{"a": "plain", "b": [1, 2, {"c": "d"}]}',
    '{"a": "\\ud800"}', '{"a": ["x", "\\uDBFF"]}', '{"\\udc00": 1}', '"\\ud83d\\ude00"',
    '{"a": "\\u0001"}', '{"a": "\\b"}', '{"a": "x\\fy"}', '{"a": "\\u007F"}', '{"a": "\\uFFFE"}',
    '{"a": "\\uffff"}', '{"a": "\\u001f"}', '{"a": "tab\\tnew\\nline\\r"}', '{"a": "\\u0009"}',
    '{"a": "\x7f"}', '{"a": "\ufffe"}', '{"k\x7f": 1}', '{"a": "\\\\b"}', '{"a": "\\\\ud800"}',
    '{"a": "\\/"}', '"\\u00e9t\\u00e9"', '[]', '{}', '3', '"\\u0000"',
    _nested(64), _nested(65), _nested(64, "[]"), _nested(63, '{"a": []}'), _nested(63, '{"a": [1]}'),
    _nested(64, '{}'), _nested(64, '{"a": 1}'), _nested(65, '"\\ud800"'),
    json.dumps({"deep": json.loads(_nested(70)), "bad": "\ud800"}),
    '{"名前": "ゾラ・マグダラオス", "é": ["Zör", "😀"]}', '{"a": "é\ud800"}', '{"é": "\udfff"}', '{"\ud83d": "é"}',
    '["😀", "\ud83d\ude00"]', '{"a": "é\x7f"}', '{"a": "ü\ufffe"}', '{"a": "ü\uffff"}', '{"é\uffff": 1}',
    '{"a": "é\\u0001"}', '{"a": "ü\\b"}', '{"a": "ü\\ud800"}', '{"a": "ü\\\\ud800"}', '{"a": "ü\\u00e9"}',
]


@pytest.mark.parametrize("control_characters", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_loads_strict_prefilter_answers_as_the_full_walk(text, control_characters):
    assert _fast_outcome(text, control_characters) == _slow_outcome(text, control_characters)


LINES = TEXTS + ['{"a": 1, "a": 2}', '{"a": "x\\":"}', '[NaN]', '1e999', '{"a": ', '\ufeff{}', '{"a": 1} {"b": 2}',
                 '[1', '2]', '{"k": "v"', '": 1}', _nested(66)]


@pytest.mark.parametrize("line", LINES)
def test_json_lines_read_at_once_give_the_records_of_line_by_line(line):
    """A batch holding a line that parse_json_line refuses is left to the line-by-line reading (None);
    a batch read at once gives the records read one by one."""
    clean = '{"query_id": "q", "paths": [["m", "m.a"]], "x": {"y": [1.5, true, null]}}'
    _assert_read_at_once_as_one_by_one([clean.encode(), line.encode("utf-8", "surrogatepass"), clean.encode()])


def _assert_read_at_once_as_one_by_one(raws):
    try:
        one_by_one = [jsontext.parse_json_line(raw) for raw in raws]
    except jsontext.JSONTextError:
        one_by_one = None
    at_once = jsontext.parse_json_lines(raws)
    if at_once is not None:
        assert at_once == one_by_one
    if one_by_one is None:
        assert at_once is None


FLAT_LINES = LINES + ['{"a": ' + _nested(n, leaf) + '}' for n in (62, 63, 64, 65) for leaf in ("1", "[]", '"x"')] + [
    '{"a": 1, "a": 2}', '{"a": "{"}', '{"a": "}", "a": 1}', '  {"a": 1}', '{"a": 1}  ', '{"a": 1}\r', '\t{"a": [[]]}\t',
    '{"a": "x\\":"}', '{}', '{"a": {}}', '{"a": [{"b": 1}]}', '{"a": [1, 2], "b": "[[["}', '[{"a": 1}]', '"{"']


@pytest.mark.parametrize("line", FLAT_LINES)
def test_json_lines_of_flat_records_read_at_once_give_the_records_of_line_by_line(line):
    """Records holding no object (a submission's lines) are counted by their brackets; any other
    batch is walked: either way the records, or None, as read one by one."""
    clean = '{"query_id": "q", "answer": "a", "paths": [["m", "m.a"], ["m"]], "topic": "m"}'
    for raws in ([clean.encode(), line.encode("utf-8", "surrogatepass"), clean.encode()],
                 [line.encode("utf-8", "surrogatepass")]):
        _assert_read_at_once_as_one_by_one(raws)
    texts = [clean, clean.replace('"a"', '"b"')]
    assert jsontext._flat_record_keys([json.loads(t) for t in texts], "\0".join(texts), [2, 2]) == 8
    assert jsontext._flat_record_keys([json.loads(t) for t in texts], "\0".join(texts), [2, 64]) is None


PLAIN_LINES = FLAT_LINES + ['{"a": [1', '2]}', '', ' ', '\t', '\x0c', '\x1c', '\u3000', '\u2028', '"x"', 'true',
                            '{"query_id": "q-é", "answer": "\u93ac ゾラ", "paths": [["m", "m.ü"]], "topic": "m"}']


@pytest.mark.parametrize("line", PLAIN_LINES)
@pytest.mark.parametrize("end", ["", "\n", "\n\n", "\r\n", " \n", "\n \n"])
def test_plain_json_lines_read_in_place_give_the_records_of_the_lines(line, end):
    """A file read in place gives what reading its lines gives; any file that is not one value
    per line and nothing else gives None (its lines are then read as lines)."""
    clean = '{"query_id": "q", "answer": "a", "paths": [["m", "m.a"], ["m"]], "topic": "m"}'
    for lines in ([clean, line, clean], [line], [line, clean], [clean, line]):
        data = "\n".join(lines).encode("utf-8", "surrogatepass") + end.encode()
        pieces = data.split(b"\n")
        lines_of_file = pieces[:-1] if data.endswith(b"\n") else pieces
        plain = all(raw and raw == raw.strip() for raw in lines_of_file)
        in_place = jsontext.parse_plain_json_lines(data)
        if in_place is not None:
            assert plain and in_place == jsontext.parse_json_lines(lines_of_file)
        elif plain:
            assert jsontext.parse_json_lines(lines_of_file) is None


def test_plain_json_lines_of_a_file_without_lines_or_not_utf8_are_none():
    assert jsontext.parse_plain_json_lines(b"") is None
    assert jsontext.parse_plain_json_lines(b'{"a": "\xff"}\n') is None
    assert jsontext.parse_plain_json_lines(b'{"a": 1}\n{"b": [2,\n3]}\n') is None      # a value over two lines
    assert jsontext.parse_plain_json_lines(b'{"a": 1}\n{"b": "\xc3\xa9"}') == [{"a": 1}, {"b": "é"}]


def test_json_lines_whose_halves_join_into_json_are_read_one_by_one():
    raws = [b'{"a": [1', b'2]}', b'{"b": "c"}']
    assert jsontext.parse_json_lines(raws) is None
    assert jsontext.parse_json_lines([b'{"a": 1}', b'{"b": ["x", {"c": 2.5}]}']) == [{"a": 1}, {"b": ["x", {"c": 2.5}]}]


@pytest.mark.parametrize("text", LINES + ['{"a" : 1, "b"\n:\t2, "c"\r\n  :3, "d":4}', '"":"" \t:',
                                          '{"x\\"   :": "\\":"}', '" " :', '"":', ' ::"""  ::'])
def test_key_ends_counted_in_two_steps_equal_the_one_regex_count(text):
    import re

    assert jsontext._key_ends(text) == len(re.findall(r'"[ \t\n\r]*:', text))


@pytest.mark.parametrize("text", ["", "abc", "é" * 7, "é" * 6 + "\ud800", "\udfff" + "é" * 9, "😀" * 5 + "\ud83d",
                                  "ゾ" * 4 + "\ud83d\ude00" + "ゾ", "\u00ff" * 8])
def test_surrogates_found_piece_by_piece_are_those_the_regex_finds(text, monkeypatch):
    monkeypatch.setattr(jsontext, "_ENCODED_AT_ONCE", 3)
    assert jsontext._holds_surrogate(text) is bool(jsontext._SURROGATE.search(text))


def test_prefilter_lets_clean_text_skip_the_walk(monkeypatch):
    calls = []
    monkeypatch.setattr(jsontext, "_check_value", lambda *a: calls.append(a))
    jsontext.loads_strict('{"a": ["b", {"c": "d\\te"}]}', control_characters=False)
    assert calls == []
    jsontext.loads_strict('{"a": "\\ud800"}')
    assert len(calls) == 1


# --- GraphML: the stream writes the bytes networkx wrote ----------------------------------------

def _networkx_graphml(kg, path):
    import networkx as nx

    from mhmmkg.exports import to_networkx

    nx.write_graphml_xml(to_networkx(kg), path)     # what write_graphml is without lxml installed
    return path.read_bytes()


def _streamed_graphml(kg, path):
    from mhmmkg.exports import write_graphml

    write_graphml(kg, path)
    return path.read_bytes()


def _awkward_graph():
    from mhmmkg.graph import KnowledgeGraph
    from mhmmkg.model import Entity, Relation

    entities = [
        Entity("m", 'Rath & "Co" <x>', "monster", aliases=("a|b", "c\td"), text="line\nbreak\r\n& <tag>",
               sources=("s1", "s2"), unverified=True, name_origin="game"),
        Entity("m.x", "X", "attack_action", monster="m", caption="", text=None),
        Entity("lonely", "Lonely", "element"),
    ]
    relations = [
        Relation("m|has|m.x", "m", "m.x", "has_attack_action", "has", condition="", info="i & j"),
        Relation("m|causes|ghost", "m", "ghost", "causes", "causes", condition="when \"angry\""),
        Relation("m|also|m.x", "m", "m.x", "has_attack_action", "also"),
        Relation("m.x|to|m", "m.x", "m", "related_to", "to", sources=("s",), unverified=True),
        Relation("m|has|lonely", "m", "lonely", "related_to", "has"),
    ]
    return KnowledgeGraph(entities, relations)


def test_streamed_graphml_is_byte_identical_to_networkx_on_awkward_values(tmp_path):
    import networkx as nx

    kg = _awkward_graph()
    assert _streamed_graphml(kg, tmp_path / "new.graphml") == _networkx_graphml(kg, tmp_path / "old.graphml")
    new, old = nx.read_graphml(tmp_path / "new.graphml"), nx.read_graphml(tmp_path / "old.graphml")
    assert list(new.nodes(data=True)) == list(old.nodes(data=True))
    assert list(new.edges(keys=True, data=True)) == list(old.edges(keys=True, data=True))
    assert new.nodes["m"]["name"] == 'Rath & "Co" <x>' and new.nodes["m"]["text"] == "line\nbreak\n& <tag>"  # XML reads CR LF as LF



def test_streamed_graphml_is_byte_identical_to_networkx_with_a_repeated_relation_id(tmp_path):
    from mhmmkg.graph import KnowledgeGraph
    from mhmmkg.model import Relation

    kg = _awkward_graph()
    again = Relation("m|has|m.x", "m", "m.x", "related_to", "again", info="replaces the first in its place")
    kg = KnowledgeGraph(kg.entities, [*kg.relations, again, Relation("lonely|to|m", "lonely", "m", "related_to", "to")])
    streamed = _streamed_graphml(kg, tmp_path / "new.graphml")
    assert streamed == _networkx_graphml(kg, tmp_path / "old.graphml")
    assert b"replaces the first in its place" in streamed and streamed.count(b"<edge ") == 6

def test_streamed_graphml_is_byte_identical_to_networkx_on_the_built_kg_and_an_empty_one(tmp_path, tiny_dataset):
    from mhmmkg import load_graph
    from mhmmkg.graph import KnowledgeGraph

    for name, kg in (("tiny", load_graph(tiny_dataset)), ("data", load_graph("data")), ("empty", KnowledgeGraph([], []))):
        new = _streamed_graphml(kg, tmp_path / f"{name}-new.graphml")
        assert new == _networkx_graphml(kg, tmp_path / f"{name}-old.graphml"), name


# --- bootstrap: group counts drawn from a multinomial ------------------------------------------

def _score_columns(n: int, seed: int = 7):
    import numpy as np

    rng = np.random.default_rng(seed)
    acc = (rng.random(n) < 0.6).astype(float)
    return [acc, rng.integers(0, 4, n) / 3, rng.integers(0, 3, n) / 2, acc * (rng.random(n) < 0.5)]


def test_bootstrap_means_are_the_group_counts_times_the_group_values():
    import numpy as np

    from eval import metrics

    columns = _score_columns(2000)
    rows = np.column_stack(columns)
    groups, sizes = np.unique(rows, axis=0, return_counts=True)
    assert len(groups) * metrics.GROUPS_PER_ROW <= len(rows)       # the count draw is the one used
    counts = np.random.default_rng(11).multinomial(len(rows), sizes / len(rows), size=40)
    got = metrics.resampled_means(columns, 40, 11)
    for r in range(40):
        for j in range(rows.shape[1]):
            total = 0.0
            for g in range(len(groups)):
                total += float(counts[r, g] * groups[g, j])
            assert got[j][r] == total / len(rows)


def test_bootstrap_by_counts_has_the_law_of_the_bootstrap_by_indices():
    import numpy as np

    from eval import metrics

    columns = _score_columns(2000)
    rows = np.column_stack(columns)
    assert len(np.unique(rows, axis=0)) * metrics.GROUPS_PER_ROW <= len(rows)
    by_counts = metrics.resampled_means(columns, 20_000, 1)
    by_index = metrics._resampled_means_by_index(columns, 20_000, 2)
    for a, b in zip(by_counts, by_index):
        assert abs(a.mean() - b.mean()) < 0.003
        assert abs(a.std() - b.std()) / b.std() < 0.05
        assert np.allclose(np.percentile(a, [2.5, 50, 97.5]), np.percentile(b, [2.5, 50, 97.5]), atol=0.006)


def test_bootstrap_of_many_distinct_values_draws_indices_as_before():
    import numpy as np

    from eval import metrics

    columns = [np.random.default_rng(3).random(300)]
    idx = np.random.default_rng(5).integers(0, 300, size=(64, 300))
    assert np.array_equal(metrics.resampled_means(columns, 64, 5)[0], columns[0][idx].mean(axis=1))


# --- loading: queries without media are read with pyarrow, as datasets would give them ----------

def test_queries_with_images_read_without_datasets_when_no_query_has_media(tiny_dataset, monkeypatch):
    from mhmmkg import loading

    assert not any(q.has_media for q in loading.load_queries(tiny_dataset))
    calls = []
    original = loading._load_config
    monkeypatch.setattr(loading, "_load_config", lambda *a: calls.append(a) or original(*a))
    fast = loading.load_queries(tiny_dataset, with_images=True)
    assert calls == []
    monkeypatch.setattr(loading, "_has_media_columns", lambda folder: False)    # the datasets path
    slow = loading.load_queries(tiny_dataset, with_images=True)
    assert calls and fast == slow and len(fast) > 5


# --- lexical scores: BM25 and char TF-IDF give exactly what the old loops gave -----------------

def _old_char_ngrams(text, sizes=(3, 4, 5)):
    from collections import Counter

    from mhmmkg.bm25 import words

    joined = " ".join(words(text))
    grams = Counter()
    for n in sizes:
        grams.update(joined[i:i + n] for i in range(len(joined) - n + 1))
    return grams


def _old_tfidf_scores(documents, query):
    import math
    from collections import Counter

    counts = [_old_char_ngrams(d) for d in documents]
    df = Counter(g for c in counts for g in c)
    idf = {g: math.log((1 + len(counts)) / (1 + k)) + 1 for g, k in df.items()}

    def unit(c):
        weights = {g: k * idf[g] for g, k in c.items() if g in idf}
        norm = math.sqrt(math.fsum(w * w for w in weights.values()))
        return {g: w / norm for g, w in weights.items()} if norm else {}
    q = unit(_old_char_ngrams(query))
    return [math.fsum(w * doc[g] for g, w in sorted(q.items()) if g in doc) for doc in map(unit, counts)]


def _old_bm25_scores(documents, query, k1=1.5, b=0.75):
    import math
    from collections import Counter

    from mhmmkg.bm25 import words

    docs = [Counter(words(d)) for d in documents]
    lengths = [sum(d.values()) for d in docs]
    avg = sum(lengths) / len(docs)
    df = Counter(t for d in docs for t in d)
    idf = {t: math.log((len(docs) - c + 0.5) / (c + 0.5) + 1) for t, c in df.items()}
    terms = sorted(t for t in set(words(query)) if t in idf)
    out = []
    for doc, length in zip(docs, lengths):
        norm = k1 * (1 - b + b * length / avg)
        out.append(math.fsum(idf[t] * doc[t] * (k1 + 1) / (doc[t] + norm) for t in terms if doc[t]))
    return out


def test_lexical_scores_of_the_shortcut_equal_the_old_loops():
    from mhmmkg.bm25 import BM25
    from mhmmkg.sources import load_sources
    from mhmmkg.tfidf import CharTfidf, char_ngrams

    sources = load_sources("data")
    attacks = {}
    for e in sources.entities.values():
        if e.type == "attack_action" and e.caption and e.monster:
            attacks.setdefault(e.monster, []).append(e.caption)
    checked = 0
    for q in sources.queries:
        captions = attacks.get(q.monster)
        if not q.perception or not captions:
            continue
        assert char_ngrams(q.perception) == _old_char_ngrams(q.perception)
        assert CharTfidf(captions).scores(q.perception) == _old_tfidf_scores(captions, q.perception)
        assert BM25(captions).scores(q.perception) == _old_bm25_scores(captions, q.perception)
        checked += 1
    assert checked > 50


# --- the BM25 example retriever and `mhmmkg rank`: the same scores and rankings as the old loops ---

def _old_retrieve(query, graph, bm25, ids):
    import networkx as nx

    from mhmmkg.graph import normalise_name

    scores = dict(zip(ids, bm25.scores(query.text)))
    question = f" {normalise_name(query.question)} "
    named = [(len(normalise_name(name)), m.id) for m in graph.monsters() for name in m.names
             if normalise_name(name) and f" {normalise_name(name)} " in question]
    if named:
        root = max(named)[1]
    else:
        monsters = sorted(graph.monsters(), key=lambda m: (-scores.get(m.id, 0.0), m.id))
        root = monsters[0].id if monsters else None
    if root is None:
        return [], scores
    walks = nx.single_source_shortest_path(graph.graph, root, cutoff=4)
    ranked = sorted((e for e in walks if scores.get(e, 0.0) > 0), key=lambda e: (-scores[e], e))
    return [walks[e] for e in ranked[:5]] or [[root]], scores


@pytest.mark.parametrize("which", ["tiny", "data"])
def test_bm25_retriever_and_ranking_equal_the_old_loops(which, tiny_dataset):
    from mhmmkg import load_graph, load_queries
    from mhmmkg.baseline.rank_cli import query_text
    from mhmmkg.baseline.retrievers import RetrievalQuery
    from mhmmkg.baseline.retrievers.bm25 import index, retrieve

    source = tiny_dataset if which == "tiny" else "data"
    graph, queries = load_graph(source), load_queries(source)
    entity_index = index(graph)
    asked = [RetrievalQuery(q.id, q.question, q.extra or "", q.perception or "") for q in queries]
    asked.append(RetrievalQuery("nameless", "Which attack comes next?", "", "it breathes fire"))
    for query in asked:
        walks, scores = _old_retrieve(query, graph, entity_index.bm25, entity_index.ids)
        assert retrieve(query, graph) == walks
        new = entity_index.scores(query.text)
        assert all(abs(new[e] - scores[e]) <= 1e-9 for e in scores) and new == scores
    for query in queries:
        text = query_text(query, graph)
        scores = dict(zip(entity_index.ids, entity_index.bm25.scores(text)))
        for depth in (1, 3, 100):
            want = sorted((e for e, s in scores.items() if s > 0), key=lambda e: (-scores[e], e))[:depth]
            assert entity_index.ranked(text, depth) == [(e, scores[e]) for e in want]


def _old_recognition_ranks(kg, queries):
    from collections import defaultdict

    from mhmmkg.shortcut import MEASURES, rank_of

    attacks_of = defaultdict(list)
    for e in kg.entities:
        if e.type == "attack_action" and e.caption and e.monster:
            attacks_of[e.monster].append(e.id)
    indexes, measured, ranks = {}, [], {m: [] for m in MEASURES}
    for q in queries:
        if q.subtask != 2 or not q.perception or not q.paths:
            continue
        attacks, target = attacks_of.get(q.monster, []), q.paths[0][-1]
        if target not in attacks:
            continue
        measured.append(q.id)
        for name, measure in MEASURES.items():
            if (name, q.monster) not in indexes:
                indexes[name, q.monster] = measure([kg.entity(a).caption for a in attacks])
            ranks[name].append(rank_of(indexes[name, q.monster].scores(q.perception), attacks.index(target)))
    return tuple(measured), {m: tuple(r) for m, r in ranks.items()}


def test_recognition_shortcut_grouped_by_monster_keeps_the_ranks_and_their_order():
    import random

    from mhmmkg.shortcut import recognition_shortcut
    from mhmmkg.sources import load_sources

    sources = load_sources("data")
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    queries = list(sources.queries)
    random.Random(4).shuffle(queries)          # monsters interleaved
    result = recognition_shortcut(kg, queries)
    assert len(result.measured) > 50
    assert (result.measured, result.ranks) == _old_recognition_ranks(kg, queries)


def test_lazy_graph_indexes_answer_as_the_eager_ones():
    from mhmmkg import load_graph

    kg = load_graph("data")
    ids = [e.id for e in kg.entities]
    assert kg.has_edge(kg.relations[0].head, kg.relations[0].tail)
    for head in ids[::7]:
        for tail in ids[::5]:
            assert kg.has_edge(head, tail) == any(r.head == head and r.tail == tail for r in kg.relations)
    eager: dict = {}
    for r in kg.relations:                       # the index __init__ used to build
        keys = eager.setdefault(r.head, {}).setdefault(r.tail, [])
        if r.id not in keys:
            keys.append(r.id)
    for head in ids:
        assert [n.relation.id for n in kg.neighbours(head)] == [k for ks in eager.get(head, {}).values() for k in ks]


@pytest.mark.parametrize("vocabulary", [
    "tail slam bite roar charge fire breath leaps back spins wing swipe x 7 ab",
    "tail slam Zör brûlée ガルルガ 火竜 尾 ＲＯＡＲ charge x 7 ab"], ids=["ascii", "any-script"])
def test_recognition_shortcut_ranks_ties_and_empty_texts_as_the_measures_do(vocabulary):
    """Vectorised scores decide only clear differences: ties (duplicate captions, texts sharing
    nothing, texts with no n-gram at all) are ranked by the measures themselves; texts beyond ASCII
    are numbered by their characters."""
    import random

    from mhmmkg.model import Entity, Query
    from mhmmkg.shortcut import recognition_shortcut

    rng = random.Random(7)
    vocabulary = vocabulary.split()
    entities, queries = [], []
    for m in range(6):
        monster = f"m{m}"
        entities.append(Entity(monster, f"Monster {m}", "monster"))
        captions = [" ".join(rng.choices(vocabulary, k=rng.randint(1, 8))) for _ in range(rng.randint(1, 7))]
        captions += [captions[0], "ab", "?!"]                 # a duplicate, a text too short for 3-grams, no word
        for a, caption in enumerate(captions):
            entities.append(Entity(f"{monster}.a{a}", f"Attack {a}", "attack_action", monster=monster, caption=caption))
        for k in range(12):
            target = rng.randrange(len(captions))
            perception = rng.choice([captions[target], captions[0], "ab", "zzz qqq",
                                     " ".join(rng.choices(vocabulary, k=rng.randint(1, 6)))])
            queries.append(Query(f"q{m}-{k}", 2, "Which attack?", monster, "x", ((monster, f"{monster}.a{target}"),),
                                 perception=perception))
    kg = KnowledgeGraph(entities, [])
    result = recognition_shortcut(kg, queries)
    assert len(result.measured) == len(queries)
    assert (result.measured, result.ranks) == _old_recognition_ranks(kg, queries)


@pytest.mark.parametrize("pairs_at_once", [None, 100], ids=["pairs-at-once", "pairs-in-blocks"])
@pytest.mark.parametrize("scripts", ["ascii", "several"])
def test_recognition_shortcut_on_large_groups_equals_the_measures_query_by_query(scripts, pairs_at_once, monkeypatch):
    """Groups of a few hundred captions beside small ones (chunks of one group and of many), in
    one or several scripts, with near-copies of captions as perceptions: every rank equals the
    one the measures give query by query, also when a chunk's (query, document) pairs are made
    a block at a time."""
    import random

    from mhmmkg.lexical import shortcut
    from mhmmkg.model import Entity, Query
    from mhmmkg.shortcut import recognition_shortcut

    if pairs_at_once:
        monkeypatch.setattr(shortcut, "_PAIRS_AT_ONCE", pairs_at_once)

    rng = random.Random(11)
    vocabulary = "tail slam bite roar charge fire breath leaps back spins wing swipe the its a of".split()
    if scripts == "several":
        vocabulary += "Zör brûlée ガルルガ 火竜 尾 ＲＯＡＲ Straße cafe\u0301 ﬁre が ℕorth क्षि Ёж 가 𠀀𠀁".split()  # the last beyond 16 bits
    entities, queries = [], []
    for m, size in enumerate([300, 2, 9, 140, 1, 5, 60]):
        monster = f"m{m}"
        entities.append(Entity(monster, f"Monster {m}", "monster"))
        captions = [" ".join(rng.choices(vocabulary, k=rng.randint(1, 12))) for _ in range(size)]
        for a, caption in enumerate(captions):
            entities.append(Entity(f"{monster}.a{a}", f"Attack {a}", "attack_action", monster=monster, caption=caption))
        for k in range(max(3, size // 6)):
            target = rng.randrange(size)
            words = captions[target].split()
            perception = " ".join(rng.sample(words, len(words)) + rng.choices(vocabulary, k=rng.randint(0, 4)))
            queries.append(Query(f"q{m}-{k}", 2, "Which attack?", monster, "x", ((monster, f"{monster}.a{target}"),),
                                 perception=rng.choice([perception, captions[target]])))
    rng.shuffle(queries)
    kg = KnowledgeGraph(entities, [])
    result = recognition_shortcut(kg, queries)
    assert len(result.measured) == len(queries) > 90
    assert (result.measured, result.ranks) == _old_recognition_ranks(kg, queries)
    assert {1, 2} <= set(result.ranks["char_tfidf"]) and max(result.ranks["bm25"]) > 3


def test_words_of_many_texts_folded_at_once_equal_the_words_of_each():
    """Folding the texts joined equals folding each: accents and marks at the texts' edges stay
    with their text; a text holding the joining character is read alone."""
    import random

    from mhmmkg.lexical.bm25 import words
    from mhmmkg.lexical.tokens import PLAIN

    def words_of(texts):
        numbered = PLAIN.numbered_words_of(texts)
        read = [numbered.words(i) for i in range(len(texts))]
        assert read == list(map(list, PLAIN.word_tuples_of(texts)))
        return read

    rng = random.Random(5)
    pieces = ["Tail", "SLAM", "𠀀", "\u0301", "e\u0301", "Zör", "か", "\u3099", "ガ", "ﬁ", "ß", "½", "_x_", " ", ", ", "\n", "１２"]
    texts = ["".join(rng.choices(pieces, k=rng.randint(0, 8))) for _ in range(400)] + ["", "plain ascii"]
    assert words_of(texts) == [words(t) for t in texts]
    assert words_of(["ascii only", "Two WORDS"]) == [["ascii", "only"], ["two", "words"]]
    assert words_of(["a\x00b", "Zör"]) == [["a", "b"], ["zor"]] and words_of([]) == []
    assert words_of(["one \ud800 two", "x"]) == [["one", "two"], ["x"]]       # a lone surrogate
    assert words_of(["", "", "__", "½ ① x"]) == [[], [], [], words("½ ① x")]
    assert words_of(["a  b ", " ガ\u3099 e\u0301 ", "Zör  Zör"]) == [["a", "b"], words(" ガ\u3099 e\u0301 "), ["zor", "zor"]]


def test_a_space_folds_apart_from_every_mark_and_decomposable_character():
    """What reading a text's words piece by piece between spaces rests on (tokens._found_by_piece)."""
    import sys
    import unicodedata

    from mhmmkg.lexical.tokens import folded

    special = [chr(c) for c in range(0x80, sys.maxunicode + 1) if 0xD800 > c or c > 0xDFFF
               if unicodedata.combining(chr(c)) or unicodedata.decomposition(chr(c)) or 0x1100 <= c < 0x1200]
    assert len(special) > 5000
    for char in special:
        assert folded(f" {char}") == " " + folded(char) and folded(f"{char} ") == folded(char) + " ", hex(ord(char))


def test_idf_looked_up_per_group_size_and_df_equals_the_formula_per_entry():
    import numpy as np

    from mhmmkg.lexical.shortcut import _by_size_and_df

    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 40, 5000)
    dfs = (rng.random(5000) * (sizes + 1)).astype(np.int64).astype(float)     # 0..size, as bincount's floats
    for idf in (lambda n, k: np.log((1 + n) / (1 + k)) + 1, lambda n, k: np.log((n - k + 0.5) / (k + 0.5) + 1)):
        assert np.array_equal(_by_size_and_df(idf, sizes, dfs), idf(sizes, dfs))
        assert _by_size_and_df(idf, sizes[:0], dfs[:0]).shape == (0,)
        large = sizes * 100                                  # a table of more than a million pairs: formula
        assert np.array_equal(_by_size_and_df(idf, large, dfs), idf(large, dfs))


def test_provenance_counts_of_queries_equal_rests_on_per_query():
    from mhmmkg.provenance import leans_on_authors_list, provenance_figures, rests_on
    from mhmmkg.sources import load_sources

    sources = load_sources("data")
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    figures = provenance_figures(kg, sources.queries)
    on_authors_list = sum(rests_on(kg, q, leans_on_authors_list) for q in sources.queries)
    assert on_authors_list > 0
    assert figures["queries_on_authors_list_only"] == on_authors_list
    assert figures["queries_on_unverified"] == sum(rests_on(kg, q, lambda f: f.unverified) for q in sources.queries)
    facts = [*kg.entities, *kg.relations]
    assert figures["authors_list_only"] == round(sum(map(leans_on_authors_list, facts)) / len(facts), 3)


def test_whole_number_means_equal_statistics_mean_in_value_and_type():
    import random
    from statistics import mean

    from mhmmkg.stats import _int_mean

    rng = random.Random(3)
    for _ in range(2000):
        values = [rng.randint(0, 12) for _ in range(rng.randint(1, 7))]
        assert (_int_mean(values), type(_int_mean(values))) == (mean(values), type(mean(values)))


def test_loaded_graph_checks_walks_without_making_relations_and_answers_as_an_eager_graph(tiny_dataset):
    from mhmmkg import load_graph

    kg = load_graph(tiny_dataset)
    ids = [e.id for e in kg.entities]
    walks = {(a, b): kg.has_edge(a, b) for a in ids for b in ids}
    assert "_given_relations" not in kg.__dict__          # checking walks made no Relation object
    eager = KnowledgeGraph(kg.entities, kg.relations)
    assert any(walks.values())
    assert walks == {(a, b): eager.has_edge(a, b) for a in ids for b in ids}
    assert kg.relations == load_graph(tiny_dataset).relations and len(kg.relations) > 10
    for head in ids:
        assert kg.neighbours(head) == eager.neighbours(head)


def _old_mention_names(index, text):
    """The scan of EntityIndex.mentions before issue 23: every length from the longest name down at every place."""
    from mhmmkg.eval.key_judge import MAX_NAME_WORDS, key_words

    words, found, i, names = key_words(text), [], 0, index.names()
    longest = min(MAX_NAME_WORDS, max((len(w) for w in names), default=1))
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            if names.get(tuple(words[i:i + n])):
                found.append((i, tuple(words[i:i + n])))
                i += n
                break
        else:
            i += 1
    return found


def test_key_judge_finds_the_mentions_the_full_scan_found():
    import random

    from mhmmkg.eval.key_judge import EntityIndex, key_words
    from mhmmkg.graph import normalise_name
    from mhmmkg.sources import load_sources

    sources = load_sources("data")
    kg = KnowledgeGraph(sources.entities.values(), sources.relations)
    index = EntityIndex(kg)
    names = [n for e in kg.entities for n in e.names]
    rng = random.Random(5)
    texts = [t for q in sources.queries for t in (q.question, q.answer, q.perception or "")]
    texts += [" ".join(rng.choices(names + ["not", "the", "or", "tails", "bosses"], k=rng.randint(1, 9))) for _ in range(3000)]
    found = 0
    for text in texts:
        old = _old_mention_names(index, text)
        assert [(m.start, m.words) for m in index.mentions(text)] == old
        assert index.mentioned_names(text) == {words for _, words in old}
        found += len(old)
    assert found > 1000
    for text in texts + ["Tail Swipes, bosses, boss, abs, s, ss, sss and Bites"]:      # the plural rule as it was
        assert key_words(text) == [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                                   for w in normalise_name(text).split()]


def test_queries_from_the_table_equal_the_row_by_row_queries(tmp_path):
    from conftest import build_keyed_dataset

    from mhmmkg import loading

    dataset = build_keyed_dataset(tmp_path, {"wolf-001": {"kind": "text", "nuggets": [["thunder wolf", "wolf"]]},
                                             "wolf-002": {"kind": "entity", "entities": ["wolf.double-slam"]}})
    columns = loading._read_table(dataset, "queries", "test", loading.QUERY_COLUMNS).to_pydict()
    rows = [loading._query(dict(zip(loading.QUERY_COLUMNS, row))) for row in zip(*columns.values())]
    fast = loading._queries_from_table(loading._read_table(dataset, "queries", "test", loading.QUERY_COLUMNS))
    assert fast == rows and len(rows) > 5 and sum(q.key is not None for q in rows) == 2
    assert loading.load_queries(dataset) == rows == loading.load_queries(dataset, with_images=True)
    assert [(q.key, q.images, q.has_media) for q in fast] == [(q.key, q.images, q.has_media) for q in rows]
    assert [tuple(map(type, (q.has_media, q.paths, *q.paths))) for q in fast] == [
        tuple(map(type, (q.has_media, q.paths, *q.paths))) for q in rows]


def test_query_ids_are_those_of_the_loaded_queries(tiny_dataset, tiny_sources):
    from mhmmkg.loading import load_queries, load_query_ids

    for source in (tiny_dataset, tiny_sources):
        ids = load_query_ids(source)
        assert ids == [q.id for q in load_queries(source)] and len(ids) == 6


def test_graph_read_column_by_column_equals_the_graph_of_its_sources(tiny_dataset):
    from mhmmkg import load_graph

    built, sources = load_graph(tiny_dataset), load_graph(tiny_dataset.parent / "src")
    assert built.entities == sources.entities and built.relations == sources.relations
    assert len(built.relations) > 10
    types = {id(r.type) for r in built.relations}
    assert len(types) == len({r.type for r in built.relations})      # one object per distinct value


@pytest.mark.parametrize("lists", [
    [["a", "b"], None, [], ["a", "b"], ["a\x1fb"], ["a", "b"]],       # the separator inside a value
    [["x"], None, [], ["x"], ["y", "x"], ["y", "x"]],
    [None, None],
])
def test_shared_tuples_and_strings_equal_the_plain_conversion(lists):
    import pyarrow as pa

    from mhmmkg.loading import _shared_strings, _shared_tuples

    column = pa.chunked_array([pa.array(lists[:1], pa.list_(pa.string())), pa.array(lists[1:], pa.list_(pa.string()))])
    assert _shared_tuples(column) == [tuple(v or ()) for v in lists]
    strings = pa.chunked_array([pa.array(["a", None, "b"]), pa.array(["a", "c", None])])
    assert _shared_strings(strings, {"a": "a"}) == ["a", None, "b", "a", "c", None]


def test_graph_is_read_with_the_system_allocator_and_the_default_pool_is_given_back(tiny_dataset):
    import pyarrow as pa

    from mhmmkg import load_graph, load_queries
    from mhmmkg.loading import _system_memory

    before = pa.default_memory_pool().backend_name
    with _system_memory():
        assert pa.default_memory_pool().backend_name == "system"
    assert pa.default_memory_pool().backend_name == before
    kg = load_graph(tiny_dataset)
    assert kg.relations and load_queries(tiny_dataset)
    assert pa.default_memory_pool().backend_name == before


KEY_ROWS = [
    {"kind": "text", "entities": [], "polarity": None, "nuggets": [["thunder wolf", "wolf"], ["x"]], "rivals": ["y"],
     "origin": "derived"},
    None,
    {"kind": "entity", "entities": ["wolf.bite"], "polarity": None, "nuggets": None, "rivals": None, "origin": None},
    {"kind": "yes_no", "entities": None, "polarity": "yes", "nuggets": [[], ["a", None]], "rivals": [None],
     "origin": ""},
    {"kind": "entities", "entities": ["a", "b"], "polarity": None, "nuggets": [], "rivals": [], "origin": "curated"},
    {"kind": "entity", "entities": ["wolf.bite"], "polarity": None, "nuggets": None, "rivals": None, "origin": None},
]


@pytest.mark.parametrize("rows", [KEY_ROWS, KEY_ROWS[:2] + [None], [None]])
def test_answer_keys_made_from_the_struct_fields_equal_from_json(rows):
    import pyarrow as pa

    from mhmmkg.dataset.loading import _answer_keys
    from mhmmkg.kg.model import AnswerKey

    strings = pa.list_(pa.string())
    key_type = pa.struct([("kind", pa.string()), ("entities", strings), ("polarity", pa.string()),
                          ("nuggets", pa.list_(strings)), ("rivals", strings), ("origin", pa.string())])
    column = pa.chunked_array([pa.array(rows[:1], key_type), pa.array(rows[1:], key_type)])
    assert _answer_keys(column) == [AnswerKey.from_json(v) for v in column.to_pylist()]


def test_a_loaded_graph_makes_its_entities_on_first_use_and_they_equal_the_sources(tiny_dataset):
    from mhmmkg import load_graph

    graph = load_graph(tiny_dataset)
    assert "_entities" not in graph.__dict__ and "_given_relations" not in graph.__dict__
    assert graph.has_edge("wolf", "wolf.bite") and not graph.has_edge("wolf.bite", "wolf")
    assert "_entities" not in graph.__dict__ and "_given_relations" not in graph.__dict__
    sources = load_graph(tiny_dataset.parent / "src")
    assert "wolf.bite" in graph and graph.entity("wolf").type == "monster"
    assert graph.entities == sources.entities and len(graph) == len(sources) > 10
    assert graph.relations == sources.relations and "_make_entities" not in graph.__dict__


def test_entities_looked_up_one_by_one_equal_and_are_those_made_all_at_once(tiny_sources, tmp_path):
    from conftest import write_json

    from mhmmkg import load_graph
    from mhmmkg.builders.build import build_dataset

    doc = json.loads((tiny_sources / "monsters" / "wolf.json").read_text())
    doc["entities"][0]["sources"] = ["https://example.org/wolf", "mhworlddata:monster_base.csv"]
    doc["entities"][1]["unverified"] = True
    write_json(tiny_sources / "monsters" / "wolf.json", doc)
    sources = load_graph(tiny_sources)
    out = build_dataset(tiny_sources, tmp_path / "ds", quiet=True).out
    fresh = load_graph(out)
    assert [fresh.entity(e.id) for e in sources.entities] == sources.entities
    assert "_entities" not in fresh.__dict__ and any(e.unverified for e in sources.entities)
    graph = load_graph(out)
    ids = [e.id for e in sources.entities]
    one_by_one = {i: graph.entity(i) for i in ids[::2]}
    assert all(graph.entity(i) is e for i, e in one_by_one.items())
    assert all(i in graph for i in ids) and "nobody" not in graph and graph.is_walk(["wolf", "wolf.bite"])
    with pytest.raises(KeyError):
        graph.entity("nobody")
    assert "_entities" not in graph.__dict__
    assert one_by_one == {i: sources.entity(i) for i in ids[::2]}
    assert {"wolf", ids[2]} <= set(one_by_one) and one_by_one["wolf"].aliases and one_by_one["wolf"].sources
    assert graph.entities == sources.entities
    assert all(graph.entity(i) is e for i, e in one_by_one.items())
    assert {e.id: e for e in graph.entities}["wolf"] is one_by_one["wolf"]


def _names_of_entities(entities):
    return [(e.id, e.type, e.monster, e.names) for e in {e.id: e for e in entities}.values()]


def test_entity_names_read_from_the_columns_equal_those_of_the_entities(tiny_dataset):
    from mhmmkg import load_graph

    graph, sources = load_graph(tiny_dataset), load_graph(tiny_dataset.parent / "src")
    names = graph.entity_names()
    assert "_entities" not in graph.__dict__
    assert names == sources.entity_names() == _names_of_entities(sources.entities)
    assert any(len(n[3]) > 1 for n in names) and any(n[2] is None for n in names)
    made = load_graph(tiny_dataset)
    assert made.entities and made.entity_names() == names


def test_entity_names_of_an_id_on_two_rows_are_its_last_rows_at_its_first_place():
    import pyarrow as pa

    from mhmmkg.dataset.loading import _Entities

    rows = [("a", "A", "monster", None, ["Ay"]), ("b", "B", "attack_action", "a", None),
            ("a", "A2", "monster", None, ["Ay2", "Az"]), ("c", "C", "element", None, [])]
    table = pa.table({"id": [r[0] for r in rows], "name": [r[1] for r in rows], "type": [r[2] for r in rows],
                      "monster": [r[3] for r in rows], "aliases": pa.array([r[4] for r in rows], pa.list_(pa.string())),
                      "text": [None] * 4, "caption": [None] * 4, "has_media": [False] * 4,
                      "sources": pa.array([None] * 4, pa.list_(pa.string())), "unverified": [False] * 4,
                      "name_origin": [None] * 4})
    entities = _Entities(table, table.column("id").to_pylist())
    assert entities.names() == _names_of_entities(entities.all())
    assert entities.names()[0] == ("a", "monster", None, ("A2", "Ay2", "Az"))
    assert entities.types() == [n[:2] for n in entities.names()] == [("a", "monster"), ("b", "attack_action"),
                                                                     ("c", "element")]


def test_ids_of_a_type_read_from_the_type_column_equal_those_of_the_entities(tiny_dataset):
    from mhmmkg import load_graph

    graph, sources = load_graph(tiny_dataset), load_graph(tiny_dataset.parent / "src")
    monsters = graph.ids_of_type("monster")
    assert "_entities" not in graph.__dict__ and "_entity_names" not in graph.__dict__
    assert monsters == sources.ids_of_type("monster") == {e.id for e in sources.monsters()} and "wolf" in monsters
    named = load_graph(tiny_dataset)
    assert named.entity_names() and named.ids_of_type("monster") == monsters
    made = load_graph(tiny_dataset)
    assert made.entities and made.ids_of_type("monster") == monsters and not made.ids_of_type("no such type")


def test_judges_index_a_loaded_graph_as_the_graph_of_its_sources(tiny_dataset):
    from mhmmkg import load_graph
    from mhmmkg.eval.judges import ExactJudge

    loaded, sources = ExactJudge(load_graph(tiny_dataset)), ExactJudge(load_graph(tiny_dataset.parent / "src"))
    assert "_entities" not in loaded.graph.__dict__
    assert loaded._monster_names == sources._monster_names and loaded._monster_names
    a, b = loaded._key_judge.index, sources._key_judge.index
    assert (a.names(), a._by_type_and_owner, a._groups, a._monsters, a._names_from) == \
           (b.names(), b._by_type_and_owner, b._groups, b._monsters, b._names_from)
    assert a._monsters and len(a.names()) > 10


@pytest.mark.parametrize("measure", ["bm25", "char_tfidf"])
def test_scores_of_some_documents_are_those_of_all(measure):
    """What the shortcut compares close scores by: the exact scores of a few documents."""
    from mhmmkg.lexical.shortcut import MEASURES

    documents = ["Tail slam, then a bite", "tail SLAM", "Zör brûlée ガルルガ", "火竜 尾 ＲＯＡＲ", "cafe\u0301 café", "", "?!"]
    index = MEASURES[measure](documents)
    for query in ["tail slam", "ガルルガ zor", "café roar", "ＴＡＩＬ", ""]:
        scores = index.scores(query)
        assert any(scores) == bool(query)
        for which in ([0, 1], [3, 2, 2], [], list(range(len(documents)))):
            assert index.scores_of(query, which) == [scores[i] for i in which]


def _texts_read_as(tokens: dict[str, list[str]]):
    """The shortcut's numbered texts, with each text's words as ``tokens`` gives them."""
    import numpy as np

    from mhmmkg.lexical.shortcut import _Texts
    from mhmmkg.lexical.tokens import NumberedWords

    vocabulary, codes, starts = {"\x00": 0}, [], []
    for words in tokens.values():
        starts.append(len(codes))
        codes += [vocabulary.setdefault(w, len(vocabulary)) for w in words] + [0]
    lengths = [len(words) for words in tokens.values()]
    words = NumberedWords(list(vocabulary), np.asarray(codes), np.asarray(starts), np.asarray(lengths))
    return _Texts({t: i for i, t in enumerate(tokens)}, words)


@pytest.mark.parametrize("alphabet", [" abc", " " + "".join(map(chr, range(0x4E00, 0x4E00 + 9000))),
                                      " " + "".join(map(chr, range(0x4E00, 0x4E00 + 300)))],
                         ids=["few-characters", "more-than-64-bits-of-5-grams", "numbered-again"])
def test_ngram_codes_beyond_ascii_name_each_ngram_by_one_code(alphabet):
    """Two n-grams get the same code exactly when they are the same string, of whatever length,
    also when the characters are too many for a 5-gram to fit 64 bits (they are numbered again);
    the codes come size by size, text by text, in the order of the n-grams."""
    import random

    import numpy as np

    from mhmmkg.lexical.shortcut import _char_ngram_codes
    from mhmmkg.lexical.tfidf import NGRAMS

    rng = random.Random(3)
    texts = ["é" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(300)]
    tokens = {t: t.split() for t in texts}
    read = _texts_read_as(tokens)
    chosen = [*texts[150:], *texts[:150], texts[7]]                 # any texts, in any order, one twice
    codes, owners, span = _char_ngram_codes(np.asarray([read.number[t] for t in chosen]), read)
    joined = [" ".join(tokens[t]) for t in chosen]
    grams = [(i, j[k:k + n]) for n in NGRAMS for i, j in enumerate(joined) for k in range(len(j) - n + 1)]
    assert owners.tolist() == [i for i, _ in grams]
    code_of = dict(zip((g for _, g in grams), codes.tolist()))
    assert [code_of[g] for _, g in grams] == codes.tolist()          # one code per n-gram
    assert len(set(code_of.values())) == len(code_of)                # a code per distinct n-gram
    assert 0 <= codes.min() and codes.max() < span
    assert len(set(alphabet)) < 100 or len(code_of) > 10_000
