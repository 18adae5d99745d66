"""The fast paths of what ``mhmmkg evaluate`` and ``validate`` read (issue 23) give exactly what the
code they replace gave: objects made field by field against their class's ``__init__``, the links
held as integer codes against the set of (head, tail) pairs, walks checked all at once against
``is_walk`` one by one, and a clean submission checked at once against the record-by-record check,
on the random generator's benchmark (coined names in several scripts) and with non-ASCII ids."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mhmmkg import load_graph, load_queries
from mhmmkg.builders.build import build_dataset
from mhmmkg.dataset.loading import _coded_links
from mhmmkg.eval.evaluator import QueryScore
from mhmmkg.eval.submission import Prediction, SubmissionChecker, _Record
from mhmmkg.kg.graph import PairLinks
from mhmmkg.kg.model import AnswerKey, Query
from mhmmkg.records import from_columns

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import synthetic_random  # noqa: E402

NAMES = ["wolf", "狼", "wolf.噛む", "Ölfaß", "m", "ζώο.δάγκωμα", "x y", ""]


@pytest.fixture(scope="module")
def random_benchmark(tmp_path_factory):
    """The random generator's sources at scale 1 and their built dataset."""
    root = tmp_path_factory.mktemp("random")
    synthetic_random.generate(root / "src", 1)
    build_dataset(root / "src", root / "built", quiet=True)
    return root / "src", root / "built"


def test_objects_made_field_by_field_equal_those_of_the_class():
    rng = random.Random(3)
    n = 50
    keys = [AnswerKey(rng.choice(["entity", "yes_no"]), tuple(rng.sample(NAMES, 2)), rng.choice([None, "yes"]),
                      ((rng.choice(NAMES),),), (), rng.choice(["curated", "derived"])) for _ in range(n)]
    query_columns = [[f"q-{i}-{rng.choice(NAMES)}" for i in range(n)], [rng.randint(1, 6) for _ in range(n)],
                     [rng.choice(NAMES) for _ in range(n)], [rng.choice(NAMES) for _ in range(n)],
                     [rng.choice(NAMES) for _ in range(n)], [((rng.choice(NAMES), "a"),) for _ in range(n)],
                     [rng.choice([None, "é"]) for _ in range(n)], [None] * n, [rng.random() < 0.5 for _ in range(n)],
                     [()] * n, [rng.choice([None, key]) for key in keys]]
    made = from_columns(Query, *query_columns)
    assert made == list(map(Query, *query_columns)) and len(made) == n
    assert [repr(q) for q in made] == [repr(q) for q in map(Query, *query_columns)]
    key_columns = [list(column) for column in zip(*((k.kind, k.entities, k.polarity, k.nuggets, k.rivals, k.origin)
                                                    for k in keys))]
    assert from_columns(AnswerKey, *key_columns) == keys
    prediction_columns = [["q1", "q2"], ["Ölfaß", "狼"], [(("wolf", "狼"),), ()], [None, "wolf"], [{}, {"狼": "c"}],
                          [None, "p"], [{}, {"x": 1}], ["f:1", "f:2"]]
    assert from_columns(Prediction, *prediction_columns) == list(map(Prediction, *prediction_columns))
    score_columns = [["q"], ["I"], [1], [True], [True], [1.0], [1.0], [1], [1], [1], [True], ["r"], [""], [False]]
    assert from_columns(QueryScore, *score_columns) == [QueryScore(*(c[0] for c in score_columns))]   # no slots: by __init__
    with pytest.raises(TypeError):          # a field missing: the class says so
        from_columns(Prediction, *prediction_columns[:1])
    assert from_columns(Query, *([] for _ in query_columns)) == []


def _column(values, encoded: bool, chunks: int):
    import pyarrow as pa

    cut = len(values) // 2
    arrays = [pa.array(part, pa.string()) for part in ([values[:cut], values[cut:]] if chunks == 2 else [values])]
    return pa.chunked_array([a.dictionary_encode() for a in arrays] if encoded else arrays)


@pytest.mark.parametrize("variant", ["plain", "encoded", "two chunks", "id on two rows", "end of no entity"])
def test_links_held_as_codes_are_the_pairs_of_the_relations(variant):
    rng = random.Random(variant)
    ids = [f"{rng.choice(NAMES)}.{i}" for i in range(40)] + NAMES
    if variant == "id on two rows":
        ids.append(ids[3])
    pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(150)]
    if variant == "end of no entity":
        pairs += [("ghost-狼", ids[0]), (ids[1], "ghost-狼"), ("ghost-2", "ghost-狼")]
    rows = dict(zip(ids, range(len(ids))))
    encoded, chunks = variant != "plain", 2 if variant == "two chunks" else 1
    heads, tails = (_column([pair[k] for pair in pairs], encoded, chunks) for k in (0, 1))
    coded = _coded_links(heads, tails, _column(ids, False, 1), rows)
    plain = PairLinks(pairs)
    ends = list(dict.fromkeys([*ids, "ghost-狼", "ghost-2", "nobody"]))
    assert {(a, b): (a, b) in coded for a in ends for b in ends} == {(a, b): (a, b) in plain for a in ends for b in ends}
    assert sum((a, b) in coded for a in ends for b in ends) == len(set(pairs))
    known = dict.fromkeys(ids)      # not the object that numbers the ends: each entity checked on its own
    for trial in range(300):
        paths = [_walk_or_not(rng, pairs, ends) for _ in range(rng.randint(0, 4))]
        expected = all(all(e in known for e in p) and all((a, b) in plain for a, b in zip(p, p[1:])) for p in paths)
        assert coded.all_walks(paths, known) == plain.all_walks(paths, known) == expected, paths
        assert coded.all_walks(paths, rows) == expected      # the ends numbered by the entities themselves


def _walk_or_not(rng: random.Random, pairs, ends) -> list[str]:
    path = list(rng.choice(pairs))
    for _ in range(rng.randint(0, 3)):
        onward = [b for a, b in pairs if a == path[-1]]
        if not onward:
            break
        path.append(rng.choice(onward))
    roll = rng.random()
    if roll < 0.1:
        path.insert(rng.randrange(len(path) + 1), rng.choice(ends))
    elif roll < 0.15:
        path.reverse()
    elif roll < 0.2:
        path = path[:1]
    return path


def test_walks_of_a_loaded_random_benchmark_are_those_of_its_sources(random_benchmark):
    src, built = random_benchmark
    loaded, sources = load_graph(built), load_graph(src)
    assert type(loaded._linked).__name__ == "CodedLinks" and type(sources._linked) is PairLinks
    queries = load_queries(built)
    assert any(not q.monster.isascii() or not q.answer.isascii() for q in queries)
    rng = random.Random(1)
    ids = [e.id for e in sources.entities]
    truth = [list(p) for q in queries for p in q.paths]
    for trial in range(200):
        paths = [list(p) for p in rng.sample(truth, rng.randint(1, 6))]
        if rng.random() < 0.5:
            path = rng.choice(paths)
            path.insert(rng.randrange(len(path) + 1), rng.choice(ids + ["nobody"]))
        one_by_one = all(map(sources.is_walk, paths))
        assert loaded.are_walks(paths) == sources.are_walks(paths) == one_by_one == all(map(loaded.is_walk, paths))
    assert loaded.are_walks(truth) and not loaded.are_walks([*truth, []])
    assert {(a, b): loaded.has_edge(a, b) for a in ids[:60] for b in ids} == \
           {(a, b): sources.has_edge(a, b) for a in ids[:60] for b in ids}


def _random_submission(queries, rng: random.Random) -> list[dict]:
    records = []
    for q in queries:
        if rng.random() < 0.1:
            continue
        record = {"query_id": q.id, "answer": rng.choice([q.answer, "Ölfaß", "狼の尾"]),
                  "paths": [list(p) for p in q.paths if rng.random() < 0.8], "topic": q.monster}
        roll = rng.random()
        if roll < 0.1:
            record["captions"] = {q.paths[0][-1]: "説明 " + q.answer} if q.paths else {}
        elif roll < 0.2:
            record["meta"] = {"ζ": 1}
        elif roll < 0.3:
            del record["topic"]
        records.append(record)
    return records


@pytest.mark.parametrize("defect", [None, "duplicate", "unknown id", "unknown entity", "reversed hop", "no walk",
                                    "bad topic", "caption", "schema", "empty path", "one entity", "blank lines"])
def test_a_random_submission_is_checked_as_the_record_by_record_check_does(random_benchmark, tmp_path, defect):
    _, built = random_benchmark
    graph, queries = load_graph(built), load_queries(built)
    rng = random.Random(str(defect))
    records = _random_submission(queries, rng)
    victim = dict(records[7])
    walk = next(list(p) for q in queries for p in q.paths if len(p) > 2)
    changed = {"duplicate": victim, "unknown id": {**victim, "query_id": "狼-nope"},
               "unknown entity": {**victim, "paths": [[walk[0], "狼.nope"]]},
               "reversed hop": {**victim, "paths": [walk[::-1]]}, "no walk": {**victim, "paths": [[walk[0], walk[2]]]},
               "bad topic": {**victim, "topic": walk[1]}, "caption": {**victim, "captions": {"Ölfaß": "c"}},
               "schema": {**victim, "paths": [[1]]}, "empty path": {**victim, "paths": [[], walk]},
               "one entity": {**victim, "paths": [walk, walk[:1]]}}
    if defect in ("empty path", "one entity"):        # the line is changed, not added
        records[7] = changed.pop(defect)
    lines = [json.dumps(r, ensure_ascii=rng.random() < 0.5) for r in records]
    if defect in changed:
        lines.append(json.dumps(changed[defect], ensure_ascii=False))
    if defect == "blank lines":
        lines[3:3] = ["", "  \t"]
    path = tmp_path / "sub.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    numbered = [(n, json.loads(line)) for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
                if line.strip()]
    clean_ones = (None, "one entity", "blank lines")
    for checker in (SubmissionChecker(graph, queries), SubmissionChecker(graph, queries, unknown_matches_nothing=True)):
        fast = checker.check_file(path)
        slow = checker._check([_Record(f"{path}:{n}", obj, None, n) for n, obj in numbered], str(path))
        assert (fast.predictions, fast.missing, fast.problems, fast.notes) == \
               (slow.predictions, slow.missing, slow.problems, slow.notes)
        assert [p.where for p in fast.predictions.values()] == [p.where for p in slow.predictions.values()]
        assert fast.missing and len(fast.predictions) > 150
        clean = checker._check_clean([n for n, _ in numbered], [o for _, o in numbered], str(path))
        assert (clean is None) == (defect not in clean_ones)
        if not checker.unknown_matches_nothing:
            assert bool(fast.problems) == (defect not in clean_ones)


@pytest.mark.parametrize("change", [None, "unknown id", "swapped", "duplicate", "one fewer", "bad topic"])
def test_a_submission_of_every_query_in_order_is_checked_as_the_record_by_record_check_does(random_benchmark,
                                                                                           tmp_path, change):
    """A submission predicting every query in the benchmark's order (told by comparing the lists
    of ids) and the same submission a little changed give what the record-by-record check gives."""
    _, built = random_benchmark
    graph, queries = load_graph(built), load_queries(built)
    rng = random.Random(str(change))
    records = [{"query_id": q.id, "answer": rng.choice([q.answer, "Ölfaß", "狼の尾"]),
                "paths": [list(p) for p in q.paths], "topic": q.monster} for q in queries]
    records[3]["captions"] = {records[3]["paths"][0][-1]: "説明"} if records[3]["paths"] else {}
    records[4]["meta"] = {"ζ": 1}
    del records[5]["topic"]
    walk = next(list(p) for q in queries for p in q.paths if len(p) > 2)
    if change == "unknown id":
        records[9]["query_id"] = "狼-nope"
    elif change == "swapped":
        records[1], records[2] = records[2], records[1]
    elif change == "duplicate":
        records.append(dict(records[0]))
    elif change == "one fewer":
        del records[6]
    elif change == "bad topic":
        records[8]["topic"] = walk[1]
    path = tmp_path / "sub.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=rng.random() < 0.5) + "\n" for r in records), encoding="utf-8")
    numbered = [(n, json.loads(line)) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)]
    checker = SubmissionChecker(graph, queries)
    fast = checker.check_file(path)
    slow = checker._check([_Record(f"{path}:{n}", obj, None, n) for n, obj in numbered], str(path))
    assert (fast.predictions, fast.missing, fast.problems, fast.notes) == \
           (slow.predictions, slow.missing, slow.problems, slow.notes)
    assert list(fast.predictions) == list(slow.predictions)
    assert [p.where for p in fast.predictions.values()] == [p.where for p in slow.predictions.values()]
    assert bool(fast.problems) == (change in ("unknown id", "duplicate", "bad topic"))
    assert (fast.missing == []) == (change not in ("unknown id", "one fewer")) and len(fast.predictions) > 150
    if not fast.problems:       # keyed by, and naming, the benchmark's own id strings
        assert all(qid is checker._query_ids[qid] is p.query_id for qid, p in fast.predictions.items())
    assert fast.predictions[queries[3].id].captions == records[3]["captions"]
    assert fast.predictions[queries[4].id].meta == {"ζ": 1} and fast.predictions[queries[5].id].topic is None


def test_evaluate_on_the_random_benchmark_imports_no_pyarrow_compute(random_benchmark, tmp_path):
    """Loading the graph and queries and checking walks call Arrow's kernels without ``pyarrow.compute``."""
    _, built = random_benchmark
    sub = tmp_path / "sub.jsonl"
    sub.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                           for r in _random_submission(load_queries(built), random.Random(2))), encoding="utf-8")
    code = ("import sys\nfrom mhmmkg.cli import main\n"
            f"assert main(['evaluate', {str(sub)!r}, '--dataset', {str(built)!r}, '--quiet']) == 0\n"
            "print(sorted(m for m in sys.modules if m.startswith(('pyarrow.compute', 'pandas'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "[]", out


@pytest.mark.parametrize("cut", ["whole", "sliced", "two chunks"])
def test_lists_read_by_offsets_equal_the_lists_of_the_column(cut):
    import pyarrow as pa

    from mhmmkg.dataset.loading import _key_tuples, _nested_tuples, _shared_tuples

    rng = random.Random(cut)
    nested = [None if rng.random() < 0.1 else [[rng.choice(NAMES) for _ in range(rng.randint(1, 3))]
                                               for _ in range(rng.randint(0, 3))] for _ in range(300)]
    flat = [None if rng.random() < 0.1 else [rng.choice(NAMES) for _ in range(rng.randint(0, 3))] for _ in range(300)]
    for values, kind, read in ((nested, pa.list_(pa.list_(pa.string())), _nested_tuples),
                               (nested, pa.list_(pa.list_(pa.string())), lambda c: _key_tuples(c, nested=True)),
                               (flat, pa.list_(pa.string()), _shared_tuples), (flat, pa.list_(pa.string()), _key_tuples)):
        for nulls in (True, False):
            rows = values if nulls else [v or [] for v in values]
            array = pa.array(rows, kind)
            if cut == "sliced":
                array, rows = array.slice(17, 200), rows[17:217]
            column = pa.chunked_array([array[:100], array[100:]]) if cut == "two chunks" else array
            expected = [tuple(tuple(p) if isinstance(p, list) else p for p in row or ()) for row in rows]
            assert read(column) == expected and any(expected)
    shared = _shared_tuples(pa.array([["a", "狼"], ["a", "狼"], None, []], pa.list_(pa.string())))
    assert shared[0] is shared[1] and shared[2] == shared[3] == ()


def test_queries_read_with_their_strings_encoded_equal_those_made_row_by_row(random_benchmark):
    """The queries' shared strings (paths, keys, monsters) read dictionary-encoded from Parquet
    give the queries that each row's plain values give through ``_query``, and those of the sources."""
    from mhmmkg.dataset.loading import QUERY_COLUMNS, QUERY_STRINGS_SHARED, _query, _read_table

    src, built = random_benchmark
    table = _read_table(built, "queries", "test", QUERY_COLUMNS, QUERY_STRINGS_SHARED)
    import pyarrow as pa

    key = table.schema.field("key").type
    assert all(map(pa.types.is_dictionary, (table.schema.field("monster").type, key.field("kind").type,
                                            key.field("entities").type.value_type,
                                            table.schema.field("paths").type.value_type.value_type)))
    plain = _read_table(built, "queries", "test", QUERY_COLUMNS).to_pylist()
    loaded = load_queries(built)
    assert loaded == [_query(row) for row in plain] == load_queries(src)
    assert [q.paths for q in loaded] == [tuple(map(tuple, row["paths"])) for row in plain]
    wordings = [w for q in loaded if q.key for w in (*q.key.rivals, *(w for n in q.key.nuggets for w in n))]
    assert any(not w.isascii() for w in wordings) and any(q.key and q.key.entities for q in loaded)
