"""The fast paths of the build (issue 23) give exactly what the slow paths they replace gave:
strict JSON without a hook per object, tables made by columns, the generated schema check and
the provenance figures counted in one pass."""
from __future__ import annotations

import json

import pytest

from mhmmkg import jsontext
from mhmmkg.graph import KnowledgeGraph


def _nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def _fast_outcome(text: str, control_characters: bool):
    try:
        return ("ok", jsontext.loads_strict(text, control_characters=control_characters))
    except jsontext.JSONTextError as exc:
        return ("error", exc.reason, exc.pointer)


def _hooked_outcome(text: str, control_characters: bool):
    """What loads_strict answered before duplicate keys were found by counting: a hook per object."""
    try:
        value = jsontext._parse(text, one_line=False)
        if jsontext._too_deep(value) or jsontext._may_hold_bad_text(text, control_characters):
            jsontext._check_value(value, (), control_characters)
    except jsontext.JSONTextError as exc:
        return ("error", exc.reason, exc.pointer)
    return ("ok", value)


KEY_TEXTS = [
    '{"a": 1, "a": 2}', '{"a" : 1, "b": {"c": 1, "c" : 2}}', '{"a":1,"b":2}', '{"a"\n:\t1}',
    '{"x": "\\":", "x": 1}', '{"x": "\\":"}', '{"x\\"": 1, "x\\"": 2}', '[{"a": 1}, {"a": 1}]',
    '{"a": 1, "a": 2, "b": [}', '{"a": [1, 2, }', '{"a": NaN}', '{"a": 1e999}', '{"": 1, "": 2}',
    '{"a": {"b": {"b": 1}}, "b": 1}', '{"a": "é", "a": "\\u00e9"}', '{"k": "q\\":"}',
    json.dumps({"deep": json.loads(_nested(70)), "d": 1}).replace('"d": 1', '"d": 1, "d": 2'),
    _nested(66, '{"a": 1, "a": 2}'), '[' * 2000 + ']' * 2000, '"ab"', '12', 'null',
    '{"a": "\\ud800", "a": 1}', '{"a": "\\u0001"}', '{"a": "\x7f"}', '{"a": "\ufffe"}', '{"\\udc00": 1}',
    _nested(64), _nested(65), _nested(64, "[]"), _nested(64, '{"a": 1}'), _nested(65, '"\\ud800"'),
]


@pytest.mark.parametrize("control_characters", [True, False])
@pytest.mark.parametrize("text", KEY_TEXTS)
def test_loads_strict_counting_keys_answers_as_the_hook(text, control_characters):
    assert _fast_outcome(text, control_characters) == _hooked_outcome(text, control_characters)

def test_clean_text_is_parsed_once_without_the_hook(monkeypatch):
    calls = []
    monkeypatch.setattr(jsontext, "_object_without_duplicates", lambda pairs: calls.append(pairs) or dict(pairs))
    assert jsontext.loads_strict('{"a": {"b": [1, {"c": "d"}]}, "e" : 2}') == {"a": {"b": [1, {"c": "d"}]}, "e": 2}
    assert calls == []
    jsontext.loads_strict('{"a": {"c": 1, "c": 2}}')
    assert calls == [[("c", 1), ("c", 2)], [("a", {"c": 2})]]
    monkeypatch.undo()
    with pytest.raises(jsontext.JSONTextError, match="duplicate key 'c'"):
        jsontext.loads_strict('{"a": {"c": 1, "c": 2}}')


def test_reading_a_file_reads_it_whole_and_refuses_one_over_the_cap(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 5000)
    assert jsontext.read_bytes_file(path, "file", max_bytes=5000) == b"x" * 5000
    with pytest.raises(jsontext.InputFileError, match="over the limit"):
        jsontext.read_bytes_file(path, "file", max_bytes=4999)




# --- build: tables made column by column equal the tables made row by row --------------------

def _tables_from_rows(sources, media):
    import pyarrow as pa

    from mhmmkg.builders.build import MediaColumns
    from mhmmkg.features import FEATURES
    from mhmmkg.model import SUBTASKS

    entities = sources.entities
    graph = [{
        "id": r.id, "head": r.head, "type": r.type, "label": r.label, "condition": r.condition,
        "info": r.info, "tail": r.tail,
        "head_name": entities[r.head].name, "head_type": entities[r.head].type,
        "tail_name": entities[r.tail].name, "tail_type": entities[r.tail].type,
        "monster": entities[r.head].monster, "sources": list(r.sources), "unverified": r.unverified,
    } for r in sources.relations]
    attributes = [{
        "id": e.id, "name": e.name, "type": e.type, "monster": e.monster, "aliases": list(e.aliases),
        "text": e.text, "caption": e.caption, "name_origin": e.name_origin, "has_media": e.has_media,
        "sources": list(e.sources), "unverified": e.unverified, **media.get(e.id, MediaColumns()).row(),
    } for e in entities.values()]
    queries = [{
        "id": q.id, "subtask": q.subtask, "subtask_name": SUBTASKS[q.subtask], "question": q.question,
        "monster": q.monster, "extra": q.extra, "perception": q.perception, "answer": q.answer,
        "key": q.key.as_json() if q.key else None, "paths": [list(p) for p in q.paths], "hops": q.hops,
        "has_media": q.has_media, **media.get(q.id, MediaColumns()).row(),
    } for q in sources.queries]
    return {name: pa.Table.from_pylist(rows, schema=FEATURES[name].arrow_schema)
            for name, rows in (("graph", graph), ("attributes", attributes), ("queries", queries))}


def _random_sources(folder):
    """A sources folder of the random benchmark generator at scale 1: names in several scripts."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import synthetic_random

    synthetic_random.generate(folder, 1)
    return folder


@pytest.mark.parametrize("which", ["data", "random"])
def test_build_tables_by_columns_equal_the_tables_by_rows(tmp_path, which):
    from mhmmkg.builders import build, card
    from mhmmkg.builders.media import EncodedImage
    from mhmmkg.sources import load_sources

    sources = load_sources("data" if which == "data" else _random_sources(tmp_path / "src"))
    if which == "random":
        assert any(not e.name.isascii() for e in sources.entities.values())
    entity, query = next(iter(sources.entities)), sources.queries[3].id
    media = {
        entity: build.MediaColumns(images=[EncodedImage(b"png", "a.png")], keyframe_source="sampled",
                                   keyframes=[EncodedImage(b"k1", "k1.jpg"), EncodedImage(b"k2", "k2.jpg")]),
        query: build.MediaColumns(video=b"video", keyframe_source="human"),
    }
    tables = {"graph": build.graph_table(sources), "attributes": build.attributes_table(sources, media),
              "queries": build.queries_table(sources, media)}
    expected = _tables_from_rows(sources, media)
    for name, table in tables.items():
        assert table.equals(expected[name]), name
        assert table.num_rows > 100
    written = build.write_parquet(tables, tmp_path / "new")
    wanted = build.write_parquet(expected, tmp_path / "old")
    assert written == wanted      # files named after their content hash
    for name, table in tables.items():      # the card's split sizes, measured in memory and read back
        assert card.split_num_bytes(tmp_path / "new" / written[name], table) == \
            card.split_num_bytes(tmp_path / "new" / written[name]), name


def test_work_overlapped_in_a_thread_gives_both_results_and_raises_the_background_error_first():
    import threading

    from mhmmkg.builders.build import _overlapped

    def fails(message):
        def run():
            raise ValueError(message)
        return run

    seen = []

    def background():
        seen.append(threading.current_thread() is not threading.main_thread())
        return "written"

    assert _overlapped(background, lambda: "stats") == ("written", "stats")
    assert seen == [True]
    with pytest.raises(ValueError, match="write failed"):
        _overlapped(fails("write failed"), lambda: "stats")
    with pytest.raises(ValueError, match="stats failed"):
        _overlapped(lambda: "written", fails("stats failed"))
    with pytest.raises(ValueError, match="write failed"):        # as if the write had run first, alone
        _overlapped(fails("write failed"), fails("stats failed"))
    assert not [t for t in threading.enumerate() if t.name == "mhmmkg-background"]


def test_split_size_in_memory_equals_the_size_read_back_with_nulls_and_row_groups(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mhmmkg.builders import card

    table = pa.table({
        "number": pa.array([1, None, 3, 4, 5, 6, 7], pa.int32()), "count": pa.array(range(7), pa.int64()),
        "share": pa.array([0.5] * 7), "flag": pa.array([True, None, False] * 2 + [True]),
        "text": pa.array(["a", None, "ccc", "", "e", "f", "g"]), "words": pa.array([["x"], None, [], ["y", None]] + [[]] * 3),
        "pair": pa.array([{"bytes": b"b", "path": None}, None] + [{"bytes": None, "path": "p"}] * 5,
                         pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
        "full_text": pa.array(["a", "bb", "", "d", "e", "ff", "g"]), "full_flag": pa.array([True, False] * 3 + [True]),
        "full_words": pa.array([["x"], [], ["y", "zz"]] * 2 + [[]]),
        "full_pairs": pa.array([[{"bytes": b"b", "path": "p"}], []] * 3 + [[]],
                               pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))),
    })
    for row_group_size in (7, 3, 2):
        path = tmp_path / f"t{row_group_size}.parquet"
        pq.write_table(table, path, row_group_size=row_group_size, compression="zstd", write_statistics=False)
        assert card.split_num_bytes(path, table) == card.split_num_bytes(path) > 0, row_group_size
    assert card.split_num_bytes(path, table.drop_columns(["number", "count", "share"])) != card.split_num_bytes(path)


# --- schemas: the generated check accepts every source of data/ and agrees on white space ---------

def test_generated_schema_check_accepts_the_sources_and_agrees_with_jsonschema_on_white_space():
    import copy
    from pathlib import Path

    from mhmmkg.schemas import quick_check, validator

    documents = [("shared", Path("data/shared.json"))]
    documents += [("monster", p) for p in sorted(Path("data/monsters").glob("*.json"))]
    documents += [("queries", p) for p in sorted(Path("data/queries").glob("*.json"))]
    for name, path in documents:
        assert quick_check(name)(json.loads(path.read_text(encoding="utf-8"))), path
    doc = json.loads(Path("data/shared.json").read_text(encoding="utf-8"))
    for text in ("", " ", "\u00a0", "\u2003\u3000", "\x1c", "\u200b", "x", " \u00a0x"):
        changed = copy.deepcopy(doc)
        changed["entities"][0]["name"] = text
        assert quick_check("shared")(changed) == (not list(validator("shared").iter_errors(changed))), repr(text)


def test_generated_schema_check_searching_each_id_once_still_refuses_a_bad_one_after_good_ones():
    import copy
    from pathlib import Path

    from mhmmkg.schemas import quick_check, validator

    doc = json.loads(Path("data/monsters/rathalos.json").read_text(encoding="utf-8"))
    check = quick_check("monster")
    for _ in range(2):                              # the second time, every id is one already searched
        assert check(doc)
    good = doc["relations"][0]["tail"]
    for bad in ("Rathalos", "rathalos..tail", "", " rathalos", good + " "):
        changed = copy.deepcopy(doc)
        changed["relations"][0]["tail"] = bad
        assert check(changed) is False and list(validator("monster").iter_errors(changed)), repr(bad)
        changed["relations"][0]["tail"] = good
        assert check(changed)


def test_hop_count_from_the_path_lengths_equals_the_longest_path_minus_one():
    from mhmmkg.model import hop_count

    for paths in ((), ((),), (("a",),), (("a", "b"), ("a",)), ((), ("a", "b", "c")), [["a", "b"], ["a", "b", "c", "d"]]):
        want = max((len(p) - 1 for p in paths), default=0)
        assert hop_count(paths) == want and type(hop_count(paths)) is int


def test_generated_schema_check_of_an_integer_bound_compares_without_a_number_test():
    import copy
    from pathlib import Path

    from mhmmkg.schemas import quick_check, validator

    doc = json.loads(Path("data/queries/" + sorted(p.name for p in Path("data/queries").glob("*.json"))[0])
                     .read_text(encoding="utf-8"))
    for subtask in (-1, 0, 1, 2, 4, 5, 99, 2.0, 1.5, True, "2", None):
        changed = copy.deepcopy(doc)
        changed["queries"][0]["subtask"] = subtask
        valid = not list(validator("queries").iter_errors(changed))
        # 2.0 is an integer to JSON Schema; the check defers it to jsonschema (stricter, never laxer)
        assert quick_check("queries")(changed) == (valid and not isinstance(subtask, float)), repr(subtask)


def test_mean_by_value_equals_statistics_mean_in_value_and_type():
    """The card's paper depth: whole numbers and fractions as paper_depth gives them."""
    import random
    import statistics

    from mhmmkg.kg.stats import _mean_by_value

    rng = random.Random(11)
    samples = [[2], [0.0], [1, 3], [1, 2], [2, 2.0], [0.0, 1], [1 / 3, 2 / 3, 1], [2.5, 2, 3]]
    for _ in range(300):
        samples.append([rng.choice([rng.randint(1, 9), rng.randint(1, 40) / rng.randint(1, 7), 0.0])
                        for _ in range(rng.randint(1, 60))])
        samples.append([rng.randint(1, 6) for _ in range(rng.randint(1, 60))])
    for values in samples:
        expected = statistics.mean(values)
        got = _mean_by_value(values)
        assert (got, type(got)) == (expected, type(expected)), values


# --- sources: the keys counted by the schema's check stand for the reader's own count --------

def _documents_of(folder):
    from pathlib import Path

    folder = Path(folder)
    out = [("shared", folder / "shared.json")]
    out += [("monster", p) for p in sorted((folder / "monsters").glob("*.json"))]
    out += [("queries", p) for p in sorted((folder / "queries").glob("*.json"))]
    return out


@pytest.mark.parametrize("which", ["data", "random"])
def test_keys_counted_by_the_schema_check_equal_the_keys_counted_by_walking(tmp_path, which):
    from mhmmkg.schemas import object_keys

    folder = "data" if which == "data" else _random_sources(tmp_path / "src")
    documents = _documents_of(folder)
    if which == "random":
        assert any(not path.read_text(encoding="utf-8").isascii() for _, path in documents)
    for name, path in documents:
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert object_keys(name, doc) == jsontext._count_keys_within_depth(doc) > 0, path
        doc[name == "queries" and "queries" or "entities"][0]["unknown"] = {"a": [[1]]}
        assert object_keys(name, doc) is None, path          # invalid: not counted


def test_a_schema_that_leaves_a_value_unchecked_gives_no_count():
    from mhmmkg.curation.schemas import _walked_depth

    assert _walked_depth({"type": "object", "properties": {"a": {"type": "string"}}}) is None
    assert _walked_depth({"type": "object", "additionalProperties": False,
                          "properties": {"a": {"type": "array"}}}) is None
    assert _walked_depth({"type": "object", "additionalProperties": False, "properties": {"a": {}}}) is None
    assert _walked_depth({"type": "array", "items": {"minLength": 1}}) is None
    assert _walked_depth({"allOf": [{"minLength": 1}, {"type": "string"}]}) is None
    assert _walked_depth({"type": "object", "additionalProperties": {"type": "array", "items": {"enum": ["é"]}}}) == 2
    assert _walked_depth({"allOf": [{"type": "array", "items": {"type": "integer"}}, {"maxItems": 2}]}) == 1


MONSTER_TEXTS = [
    '{"monster": "m", "entities": [{"id": "m", "name": "Mé", "type": "monster"}], "relations": []}',
    '{"monster": "m", "entities": [{"id": "m", "name": "Mé", "type": "monster", "name": "X"}], "relations": []}',
    '{"monster": "m", "monster": "m", "entities": [{"id": "m", "name": "M", "type": "monster"}], "relations": []}',
    '{"monster": "m", "entities": [{"id": "m", "name": "M\\":", "type": "monster"}], "relations": []}',
    '{"monster": "m", "entities": [{"id": "m", "name": "M", "type": "monster", "x": {"a": 1, "a": 2}}], '
    '"relations": []}',
    '{"monster": "m", "entities": [{"id": "m", "name": "M", "type": "monster", "x": ' + _nested(70) + '}], '
    '"relations": []}',
    '{"monster": "m", "entities": [{"id": "m", "name": "ヘ", "type": "monster"}], "relations": [], "x": 1}',
    '{"monster": "m", "entities": [{"id": "m", "name": "\\ud800", "type": "monster"}], "relations": []}',
    '{"monster": "m", "entities": [], "relations": [}',
    '{"monster": "m" , "entities": [{"id" : "m", "name": "M", "type": "monster"}], "relations": []}',
]


@pytest.mark.parametrize("text", MONSTER_TEXTS)
def test_reading_a_source_with_its_schema_gives_what_reading_then_checking_gave(tmp_path, text):
    from mhmmkg.curation.sources import read_json
    from mhmmkg.schemas import schema_problems

    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    doc, problems = read_json(path, "m.json")
    if not problems:
        problems = schema_problems("monster", doc, "m.json")
    assert read_json(path, "m.json", "monster") == (doc, problems)


@pytest.mark.parametrize("control_characters", [True, False])
@pytest.mark.parametrize("text", KEY_TEXTS + [
    '{"a": "é\\ud800"}', '{"ヘ": "\\udc00x"}', '{"a": "é\x7f"}', '{"a": "é\ufffe"}', '{"a": "é\\u0007"}',
    '{"a": ["é", "ヘ", "\\ud83d\\ude00"]}', '{"a": "😀"}'])
def test_a_text_decoded_from_utf8_is_not_searched_for_surrogates_and_answers_the_same(text, control_characters):
    with pytest.raises(UnicodeDecodeError):
        b"\xed\xa0\x80".decode("utf-8")          # a strict decoder makes no surrogate
    try:
        decoded = text.encode("utf-8").decode("utf-8")
    except UnicodeEncodeError:
        return                                   # a surrogate of its own: no UTF-8 file holds it
    outcomes = []
    for from_utf8 in (False, True):
        try:
            outcomes.append(("ok", jsontext.loads_strict(decoded, control_characters=control_characters,
                                                         from_utf8=from_utf8)))
        except jsontext.JSONTextError as exc:
            outcomes.append(("error", exc.reason, exc.pointer))
    assert outcomes[0] == outcomes[1]


def test_texts_found_to_match_a_pattern_are_shared_by_every_schema_and_only_those_that_match():
    import copy
    import re
    from pathlib import Path

    from mhmmkg.curation.schemas import _MATCHED, object_keys
    from mhmmkg.schemas import quick_check, validator

    for path in sorted(Path("data/monsters").glob("*.json")):
        assert object_keys("monster", json.loads(path.read_text(encoding="utf-8"))) is not None
    queries = json.loads(sorted(Path("data/queries").glob("*.json"))[0].read_text(encoding="utf-8"))
    assert quick_check("queries")(queries) and object_keys("queries", queries) is not None
    for bad in ("Rathalos", "rathalos..x", "ヘ", " rathalos"):
        changed = copy.deepcopy(queries)
        changed["queries"][0]["paths"][0][-1] = bad
        assert list(validator("queries").iter_errors(changed))
        assert quick_check("queries")(changed) is False and object_keys("queries", changed) is None, bad
    assert _MATCHED and all(re.search(pattern, text) for pattern, texts in _MATCHED.items() for text in texts)
