"""The fast paths of ``mhmmkg report`` (issue 23) give exactly what the slow paths they replace gave; the key
judge's rivals, mentions and key words (its fast paths are speed-read's) against the rules as first written."""
from __future__ import annotations

import random

import pytest

from mhmmkg import Entity, KnowledgeGraph
from mhmmkg.eval.key_judge import MAX_NAME_WORDS, EntityIndex, Mention, _compared, _negated, key_words

TYPES = ("attack_action", "attack_phase", "attack_effect", "element", "prop")
WORDS = ("tail", "slam", "heavy", "double", "roar", "fire", "ice", "not", "the", "of", "trap", "like")


def _graph(seed: int = 0) -> KnowledgeGraph:
    """Monsters, owned and shared entities of several types, and names that share first words and
    run longer than MAX_NAME_WORDS."""
    rng = random.Random(seed)
    monsters = [f"m{i}" for i in range(5)]
    entities = [Entity(m, f"Beast {m}", "monster") for m in monsters]
    for i in range(300):
        owner = rng.choice([*monsters, None])
        name = " ".join(rng.choice(WORDS) for _ in range(rng.choice((1, 1, 2, 3, MAX_NAME_WORDS + 2))))
        entities.append(Entity(f"{owner or 'shared'}.e{i}", name.title(), rng.choice(TYPES), owner))
    return KnowledgeGraph(entities, [])


def _slow_competitors(graph: KnowledgeGraph, entity_id: str, topic: str | None) -> set[str]:
    """The scan over every entity the rivals were found by before."""
    entity = graph.entity(entity_id)
    if entity.type == "monster":
        return {m.id for m in graph.monsters()} - {entity_id}
    owners = {entity.monster, topic, None}
    return {e.id for e in graph.entities if e.type == entity.type and e.monster in owners} - {entity_id}


def _slow_mentions(index: EntityIndex, text: str) -> list[Mention]:
    """Longest name first at each word, every length up to the longest name tried (the old loop)."""
    words = key_words(text)
    names = index.names()
    longest = min(MAX_NAME_WORDS, max(len(w) for w in names))
    found, i = [], 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            ids = names.get(tuple(words[i:i + n]))
            if ids:
                found.append(Mention(i, tuple(words[i:i + n]), frozenset(ids), _negated(words, i), _compared(words, i)))
                i += n
                break
        else:
            i += 1
    return found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rivals_are_those_of_the_full_scan(seed):
    graph = _graph(seed)
    index = EntityIndex(graph)
    topics = [None, "m0", "m3", "nobody"]
    found = 0
    for entity in graph.entities:
        for topic in topics:
            rivals = index.rivals(entity.id, topic)
            assert rivals == _slow_competitors(graph, entity.id, topic)
            found += len(rivals)
    assert found > 10_000     # the comparison is not between empty sets


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mentions_tried_from_the_first_word_equal_every_length_tried(seed):
    graph = _graph(seed)
    index = EntityIndex(graph)
    rng = random.Random(seed)
    names = [e.name for e in graph.entities]
    texts = [" ".join(rng.choice([*WORDS, "zzz", rng.choice(names)]) for _ in range(rng.randint(0, 30)))
             for _ in range(400)]
    found = 0
    for text in texts:
        mentions = index.mentions(text)
        assert mentions == _slow_mentions(index, text)
        found += len(mentions)
    assert found > 1000


def _slow_pack(data) -> str:
    """The page's data as it was packed before: the whole JSON text, then gzip.compress."""
    import base64
    import gzip
    import json

    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _records(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [{"id": f"q-{i}", "hops": rng.randint(1, 5), "text": " ".join(rng.choice(WORDS + ("é", "“x”", "\u2028", "\\"))
                                                                      for _ in range(rng.randint(0, 40))),
             "truth": tuple(tuple(rng.choice(WORDS) for _ in range(3)) for _ in range(rng.randint(0, 3))),
             "score": rng.random(), "ok": rng.random() < 0.5, "none": None, "runs": [{"paths": [], "calls": []}]}
            for i in range(n)]


@pytest.mark.parametrize("chunk, together", [(1, 1), (97, 3), (1 << 20, 256)])
@pytest.mark.parametrize("n", [0, 1, 500])
def test_streamed_pack_is_byte_identical_to_gzip_of_the_whole_text(monkeypatch, chunk, together, n):
    from mhmmkg.eval.html_report import page

    monkeypatch.setattr(page, "PACK_CHUNK", chunk)
    monkeypatch.setattr(page, "ENCODED_TOGETHER", together)
    records = _records(n, seed=n)
    head = {"runs": [{"label": "a · α=5", "colour": "#fff"}], "n": 3}
    tail = {"entities": {f"x{i}": [f"X “{i}”", "monster", "Ёж"] for i in range(n)}, "types": {}, "drawn": 10,
            "deeper": {"plain": {"a": 1}, "streamed": {"b": iter(records[:7])}}}
    streamed = page.pack({**head, "queries": iter(records), **tail})
    assert streamed == _slow_pack({**head, "queries": records, **tail, "deeper": {"plain": {"a": 1},
                                                                                   "streamed": {"b": records[:7]}}})
    assert page.pack(iter(records)) == _slow_pack(records)
    assert page.pack("plain") == _slow_pack("plain")


def test_key_words_by_one_substitution_equal_the_word_by_word_rule():
    from mhmmkg.graph import normalise_name

    rng = random.Random(5)
    letters = "sssabe1 -'S"
    texts = ["", "s", "ss", "bus", "buss", "boss bosses", "Monsters' tails", "gas gass gasss", "abcs", "abs",
             *("".join(rng.choice(letters) for _ in range(rng.randint(0, 30))) for _ in range(5000))]
    for text in texts:
        slow = [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                for w in normalise_name(text).split()]
        assert key_words(text) == slow, text


def test_relations_of_the_drawn_hops_in_one_pass_equal_the_graphs_index(tiny_dataset):
    from mhmmkg import load_graph
    from mhmmkg.eval.html_report.page import _relations_between

    kg = load_graph(tiny_dataset)
    ids = [e.id for e in kg.entities]
    hops = {(a, b) for a in ids for b in ids}
    found = _relations_between(kg, hops)
    assert found.keys() == hops
    assert all(found[a, b] == kg.relations_between(a, b) for a, b in hops)
    assert sum(map(len, found.values())) == len(kg.relations) > 0


def _slow_entities_and_relations(kg, records):
    """How the page found the entities and relations it names before: from the whole list of records."""
    from collections import Counter

    from mhmmkg.eval.html_report.charts import DRAWN_PATHS
    from mhmmkg.layout import relation_title

    used, hops = {}, {}
    for record in records:
        drawn = [*record["truth"], *(p for r in record["runs"] if r["predicted"] for p in r["paths"][:DRAWN_PATHS])]
        for path in [*drawn, *(p for r in record["runs"] if r["predicted"] for p in r["paths"][DRAWN_PATHS:])]:
            used.update(dict.fromkeys(path))
        for path in drawn:
            for a, b in zip(path, path[1:]):
                hops.setdefault(f"{a}>{b}", (a, b))
    known = [i for i in used if i in kg]
    by_name = Counter(kg.entity(i).name for i in known)
    name = lambda n: kg.entity(n).name if n in kg else n  # noqa: E731
    entities = {}
    for i in known:
        e = kg.entity(i)
        owner = kg.entity(e.monster).name if by_name[e.name] > 1 and e.monster in kg and e.type != "monster" else ""
        entities[i] = [e.name, e.type, owner]
    relations = {key: relation_title(kg.relations_between(a, b), name) if a in kg and b in kg else ""
                 for key, (a, b) in hops.items()}
    return entities, relations


def test_the_page_data_is_what_the_whole_list_of_records_gave(tiny_dataset, tmp_path):
    """Two runs (right, wrong, partial, missing and too many paths) through the streamed page: its
    data is the document built whole from every record, as before."""
    import base64
    import gzip
    import json
    import re
    from datetime import datetime, timezone

    from mhmmkg import load_graph, load_queries
    from mhmmkg.eval.evaluator import Evaluator
    from mhmmkg.eval.html_report.charts import DRAWN_PATHS, run_colour
    from mhmmkg.eval.html_report.page import query_records, render_report
    from mhmmkg.eval.html_report.runs import load_run
    from mhmmkg.layout import TYPE_COLOURS

    kg, queries = load_graph(tiny_dataset), load_queries(tiny_dataset)
    runs = []
    for seed in (0, 1):
        rng = random.Random(seed)
        lines = []
        for q in queries[seed:]:        # the second run misses the first query
            paths = [list(p[:rng.randint(1, len(p))]) for p in q.paths] * rng.choice((1, DRAWN_PATHS + 2))
            lines.append({"query_id": q.id, "answer": rng.choice((q.answer, "Bite", "no idea")), "paths": paths,
                          "topic": q.monster})
        path = tmp_path / f"run{seed}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        runs.append(path)
    evaluator = Evaluator(tiny_dataset, graph=kg, queries=queries, quiet=True)
    views = [load_run(path, evaluator, f"run{i}") for i, path in enumerate(runs)]
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    html = render_report(kg, queries, views, dataset="d", judge="exact", evaluator=evaluator, generated=when)
    packed = re.search(r'id="report-data">([^<]*)<', html)[1]
    records = json.loads(json.dumps(query_records(kg, queries, views)))
    entities, relations = _slow_entities_and_relations(kg, records)
    expected = {"runs": [{"label": r.label, "name": r.name, "colour": run_colour(i), **r.settings}
                         for i, r in enumerate(views)],
                "queries": records, "entities": entities, "relations": relations, "types": TYPE_COLOURS,
                "drawn": DRAWN_PATHS}
    assert packed == _slow_pack(expected)
    shown = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert not shown["queries"][0]["runs"][1]["predicted"] and shown["relations"] and shown["entities"]


def test_the_report_runs_the_collector_rarely_and_restores_its_thresholds(tiny_dataset, tmp_path, monkeypatch):
    import gc

    from mhmmkg.errors import UserError
    from mhmmkg.eval import report_cli

    before = gc.get_threshold()
    seen = []
    monkeypatch.setattr(report_cli, "check_output", lambda *args: seen.append(gc.get_threshold()))
    with pytest.raises(UserError):
        report_cli.write_report([tmp_path / "no-such-run"], str(tiny_dataset), tmp_path / "r.html")
    assert seen and seen[0][0] > before[0]
    assert gc.get_threshold() == before


def test_the_relations_among_some_pairs_are_those_of_the_whole_graph(tiny_dataset):
    """A loaded graph makes only the relations among the pairs asked (the page's hops): the same
    relations, in the same order, as filtering every relation made."""
    from mhmmkg import load_graph

    whole = load_graph(tiny_dataset).relations
    pairs = {(r.head, r.tail) for r in whole[::3]} | {("nobody", "nothing"), (whole[0].tail, whole[0].head)}
    expected = [r for r in whole if (r.head, r.tail) in pairs]
    loaded = load_graph(tiny_dataset)
    assert loaded.relations_among(pairs) == expected and len(expected) >= len(whole) // 3
    assert "_given_relations" not in loaded.__dict__         # the others were never made
    assert loaded.relations_among(set()) == []
    made = load_graph(tiny_dataset)
    assert made.relations and made.relations_among(pairs) == expected
    assert KnowledgeGraph(made.entities, whole).relations_among(pairs) == expected


def test_the_page_written_in_pieces_is_the_page_made_whole(tiny_dataset, tmp_path, monkeypatch):
    """``mhmmkg report`` writes the page as it makes it (the packed queries in base64 pieces, here
    many small ones): the file is the text ``render_report`` gives of the same runs."""
    import json
    import re
    from datetime import datetime, timezone

    from mhmmkg import load_graph, load_queries
    from mhmmkg.eval import report_cli
    from mhmmkg.eval.evaluator import Evaluator
    from mhmmkg.eval.html_report import page
    from mhmmkg.eval.html_report.runs import differing_labels, labels_for, load_run

    kg, queries = load_graph(tiny_dataset), load_queries(tiny_dataset)
    runs = []
    for seed in (0, 1):
        rng = random.Random(seed)
        lines = [{"query_id": q.id, "answer": rng.choice((q.answer, "Bite")), "topic": q.monster,
                  "paths": [list(p[:rng.randint(1, len(p))]) for p in q.paths]} for q in queries[seed:]]
        runs.append(tmp_path / f"run{seed}.jsonl")
        runs[-1].write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    monkeypatch.setattr(page, "PACK_CHUNK", 64)
    out = report_cli.write_report(runs, str(tiny_dataset), tmp_path / "report.html")
    written = out.read_text(encoding="utf-8")

    evaluator = Evaluator(tiny_dataset, graph=kg, queries=queries, quiet=True)
    views = [load_run(path, evaluator, label) for path, label in zip(runs, labels_for(runs))]
    for view, label in zip(views, differing_labels([v.settings for v in views], [v.name for v in views])):
        view.label = label
    stamp = re.search(r"generated (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", written)[1]
    when = datetime.strptime(stamp, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
    whole = page.render_report(kg, queries, views, dataset=str(tiny_dataset), judge=evaluator.judge.name,
                               evaluator=evaluator, generated=when)
    assert written == whole
    assert len(re.search(r'id="report-data">([^<]*)<', whole)[1]) > 64 * 4      # written in several pieces


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_packed_pieces_of_a_text_that_barely_compresses_join_to_the_whole(monkeypatch, seed):
    """The compressor gives bytes in the middle of the text only when it compresses poorly (random
    texts at scale): each piece is the base64 of whole 3-byte groups, the rest carried over."""
    from mhmmkg.eval.html_report import page

    monkeypatch.setattr(page, "PACK_CHUNK", 1000 + seed)
    rng = random.Random(seed)
    records = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyzé0123456789") for _ in range(rng.randint(1, 2000)))
               for _ in range(300)]
    pieces = list(page.packed_pieces(iter(records)))
    assert sum(1 for piece in pieces[:-1] if piece) > 1
    assert all(len(piece) % 4 == 0 and "=" not in piece for piece in pieces[:-1])
    assert "".join(pieces) == _slow_pack(records)


def _with_an_entity_renamed_on_a_second_row(dataset, tmp_path):
    """A copy of ``dataset`` whose attributes table repeats one owned entity's row last, with
    names in other scripts (the graph keeps that last row)."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    copy = shutil.copytree(dataset, tmp_path / "renamed")
    (file,) = (copy / "data" / "attributes").glob("*.parquet")
    table = pq.read_table(file)
    row = next(i for i, monster in enumerate(table.column("monster").to_pylist()) if monster)
    again = table.slice(row, 1).to_pylist()[0] | {"name": "Ёжик Drachen·火", "aliases": ["ドラゴンの尾", "Ωmega"]}
    pq.write_table(pa.concat_tables([table, pa.Table.from_pylist([again], schema=table.schema)]), file)
    return copy, again["id"]


def test_naming_an_entity_gives_what_the_entity_has_without_making_any(tiny_dataset, tmp_path):
    from mhmmkg import load_graph

    renamed, twice = _with_an_entity_renamed_on_a_second_row(tiny_dataset, tmp_path)
    for source in (tiny_dataset, renamed, tiny_dataset.parent / "src"):
        kg = load_graph(source)
        made = kg.__dict__.get("_make_entity")
        ids = [i for i, _, _, _ in kg.entity_names()]
        named = [kg.naming(i) for i in ids]
        if made is not None:
            assert "_entities" not in kg.__dict__ and not made.__self__._made, "naming made an entity"
        expected = [(e.id, e.type, e.monster, e.names) for e in load_graph(source).entities]
        assert named == expected and [kg.entity_name(i) for i in ids] == [e[3][0] for e in expected]
        assert kg.entities and [kg.naming(i) for i in ids] == named        # the same once the entities are made
        with pytest.raises(KeyError):
            kg.naming("no such entity")
    assert load_graph(renamed).naming(twice)[3] == ("Ёжик Drachen·火", "ドラゴンの尾", "Ωmega")


def test_a_run_summarised_without_its_per_query_scores_is_the_whole_summary_less_them(tiny_dataset):
    from mhmmkg.eval.evaluator import Evaluator

    evaluator = Evaluator(tiny_dataset)
    records = [{"query_id": q.id, "answer": q.answer if i % 3 else "no idea", "paths": [list(p) for p in q.paths[:1]]}
               for i, q in enumerate(evaluator.queries) if i % 5]
    checked = evaluator.check(records)
    scores = evaluator.score(checked)
    whole, less = evaluator.summarise(checked, scores), evaluator.summarise(checked, scores, per_query=False)
    assert len(whole.pop("queries")) == len(scores) and less.pop("queries") == [] and whole == less
    assert 0 < whole["acc"] < 1 and whole["n_missing"]


def test_the_selections_a_comparison_resamples_sorted_in_one_pass_are_those_filtered_one_by_one(tiny_dataset):
    from mhmmkg.eval.evaluator import Evaluator
    from mhmmkg.eval.html_report.compare import selected
    from mhmmkg.kg.model import ROMAN

    evaluator = Evaluator(tiny_dataset)
    records = [{"query_id": q.id, "answer": q.answer, "paths": []} for i, q in enumerate(evaluator.queries) if i % 4]
    scores = evaluator.counted(evaluator.score(evaluator.check(records)))
    keeps = {f"subtask={r}": (lambda s, r=r: s.subtask == r) for r in ROMAN.values()}
    keeps |= {f"hops={h}": (lambda s, h=h: s.hops == h) for h in range(8)}
    expected = {"all": scores} | {key: {q: s for q, s in scores.items() if keep(s)} for key, keep in keeps.items()}
    found = selected(scores)
    assert len({s.subtask for s in scores.values()}) > 1 and len({s.hops for s in scores.values()}) > 1
    assert {key: list(group.items()) for key, group in found.items()} == {
        key: list(group.items()) for key, group in expected.items() if group or key == "all"}


def test_a_page_left_half_written_leaves_no_compressing_thread_behind(monkeypatch):
    import threading

    from mhmmkg.eval.html_report import page

    monkeypatch.setattr(page, "PACK_CHUNK", 10)
    pieces = page.packed_pieces({"queries": iter(_records(50, seed=1))})
    assert next(pieces) and any(t.name.startswith("mhmmkg-report-gzip") for t in threading.enumerate())
    pieces.close()
    assert not any(t.name.startswith("mhmmkg-report-gzip") for t in threading.enumerate())
