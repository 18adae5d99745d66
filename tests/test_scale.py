"""The fast paths give the results of the straightforward ones they replace.

Each fast path (indexed prefix stripping, chunked bootstrap, Parquet read with pyarrow, the
compiled schema predicate, the name index of topic selection) is checked against a plain
reference implementation kept here, and the whole evaluation is checked byte for byte against
the reference path on a benchmark made by the synthetic-scale generator of ``bench/``.
"""
from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import TINY_QUERIES, TINY_SHARED, TINY_WOLF, write_tiny_sources
from mhmmkg.eval import Evaluator, ExactJudge
from mhmmkg.eval import judges, metrics
from mhmmkg.graph import normalise_name
from mhmmkg.loading import load_graph, load_queries
from mhmmkg.model import Entity, Query, Relation
from mhmmkg.schemas import quick_check, schema_problems

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from synthetic import generate  # noqa: E402


# ---------------------------------------------------------------------------------------------
# Reference implementations (the code paths the fast ones replaced)

def linear_strip(text: str, prefixes) -> str:
    for prefix in prefixes:
        if text.startswith(prefix + " "):
            return text[len(prefix) + 1:]
    return text


class LinearPrefixJudge(ExactJudge):
    """The exact judge trying every prefix in turn, as it did before the prefixes were indexed."""

    def __init__(self, graph, **kwargs):
        super().__init__(graph, **kwargs)
        names = sorted((n for n in {normalise_name(n) for m in graph.monsters() for n in m.names} if n),
                       key=len, reverse=True)
        self._linear = [p for n in names for p in (n + " s", n)]

    def _strip_monster(self, text):
        return linear_strip(text, self._linear)

    @staticmethod
    def _strip_lead_in(text):
        text = linear_strip(text, judges._LEAD_IN_PHRASES)
        first, _, rest = text.partition(" ")
        return rest if rest and first in judges._LEAD_IN_WORDS else text

    @staticmethod
    def _strip_article(text):
        return linear_strip(text, judges._ARTICLES)

    def entity_names(self, forms, monster):
        found = [e for form in forms for e in self.graph.find(form, monster) if e.id != monster]
        own = [e for e in found if monster is not None and e.monster == monster]
        return {normalise_name(n) for e in (own or found) for n in e.names}


def full_matrix_means(columns, resamples, seed):
    n = len(columns[0])
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    return [values[idx].mean(axis=1) for values in columns]


def load_with_datasets(folder: Path):
    import datasets

    attrs = datasets.load_dataset(str(folder), "attributes", split="kg")
    edges = datasets.load_dataset(str(folder), "graph", split="kg")
    rows = datasets.load_dataset(str(folder), "queries", split="test")
    entities = [Entity(id=r["id"], name=r["name"], type=r["type"], monster=r["monster"],
                       aliases=tuple(r["aliases"] or ()), text=r["text"], caption=r["caption"],
                       has_media=bool(r["has_media"])) for r in attrs]
    relations = [Relation(**{k: r[k] for k in ("id", "head", "tail", "type", "label", "condition", "info")})
                 for r in edges]
    queries = [Query(id=r["id"], subtask=r["subtask"], question=r["question"], monster=r["monster"],
                     answer=r["answer"], paths=tuple(tuple(p) for p in r["paths"]), extra=r["extra"],
                     perception=r["perception"], has_media=bool(r["has_media"])) for r in rows]
    return entities, relations, queries


# ---------------------------------------------------------------------------------------------
# A benchmark three times the tiny one, made by the bench's generator

@pytest.fixture(scope="module")
def scaled(tmp_path_factory) -> Path:
    from mhmmkg.builders.build import build_dataset

    root = tmp_path_factory.mktemp("scaled")
    counts = generate(write_tiny_sources(root / "tiny"), root / "src", 3)
    assert counts == {"monsters": 6, "relations": 3 * 14, "queries": 18}
    build_dataset(root / "src", root / "built", quiet=True)
    return root / "built"


def varied_submission(queries: list[Query], graph, seed: int = 1) -> list[dict]:
    rng = random.Random(seed)
    lines = []
    for q in queries:
        monster = graph.entity(q.monster).name
        roll = rng.randrange(8)
        answer = [q.answer, f"{monster} {q.answer}", f"{monster}'s {q.answer}", f"It will use the {q.answer}",
                  f"{q.answer} or Bite", "Bite", "Yes", ""][roll]
        paths = [list(p) for p in q.paths][: rng.randrange(3)]
        line = {"query_id": q.id, "answer": answer, "paths": paths}
        if rng.random() < 0.3:
            line["captions"] = {p[-1]: "Rears up and slams both forepaws down twice." for p in q.paths}
        if rng.random() < 0.9:
            lines.append(line)
    return lines


def test_generated_sources_rename_every_id_and_name_consistently(scaled):
    graph = load_graph(scaled)
    monsters = sorted(m.id for m in graph.monsters())
    assert monsters == ["dark-wolf", "dark-wolf-v1", "dark-wolf-v2", "wolf", "wolf-v1", "wolf-v2"]
    assert graph.entity("wolf-v2").names == ("Wolf V2", "Thunder Wolf V2")
    assert graph.has_edge("wolf-v1", "dark-wolf-v1") and not graph.has_edge("wolf-v1", "dark-wolf")
    assert graph.entity("wolf-v1.double-slam").name == "Double Slam"
    queries = {q.id: q for q in load_queries(scaled)}
    assert queries["v2-wolf-006"].paths[1] == ("wolf-v2", "dark-wolf-v2", "dark-wolf-v2.double-slam")
    assert queries["v1-wolf-001"].answer == "Thunder Wolf V1"


def test_scores_are_byte_identical_to_the_reference_path(scaled):
    fast = Evaluator(scaled, resamples=300)
    submission = varied_submission(fast.queries, fast.graph)
    result = fast.eval(submission)

    entities, relations, queries = load_with_datasets(scaled)
    from mhmmkg.graph import KnowledgeGraph

    graph = KnowledgeGraph(entities, relations)
    reference = Evaluator(scaled, graph=graph, queries=queries, judge=LinearPrefixJudge(graph),
                          resamples=300).eval(submission)

    dump = lambda r: json.dumps(r, indent=2, ensure_ascii=False)  # noqa: E731  (as `--json` writes it)
    assert dump(result) == dump(reference)
    rules = {q["rule"] for q in result["queries"]}
    assert {"normalised", "missing", "no_match", "empty"} <= rules
    assert 0 < result["acc"] < 1 and result["n_captions"] > 0
    assert any(s["rule"] == "normalised" and s["query_id"].startswith("v") for s in result["queries"])


def test_monster_prefixes_strip_like_a_linear_scan():
    names = ["wolf", "dark wolf", "wolf v1", "thunder wolf", "thunder wolf v1", "a", "wolf v10"]
    prefixes = [p for n in sorted(names, key=len, reverse=True) for p in (n + " s", n)]
    index = judges._Prefixes(prefixes)
    words = ["wolf", "s", "v1", "v10", "dark", "thunder", "a", "double", "slam", "wolfs"]
    rng = random.Random(0)
    texts = {" ".join(rng.choice(words) for _ in range(rng.randrange(1, 6))) for _ in range(3000)}
    assert sum(index.strip(t) != t for t in texts) > 200
    for text in texts:
        assert index.strip(text) == linear_strip(text, prefixes), text


def test_name_look_ups_agree_with_find(scaled):
    graph = load_graph(scaled)
    names = {n for e in graph.entities for n in e.names} | {"nothing like it"}
    owners = [None, *(m.id for m in graph.monsters())]
    for name in names:
        found = graph.find(name)
        assert graph.names_called(name) == {normalise_name(n) for e in found for n in e.names}
        for owner in owners:
            assert set(graph.find_owned(name, owner)) == {e for e in found if e.monster == owner}
            assert graph.names_called(name, excluding=owner) == {
                normalise_name(n) for e in found if e.id != owner for n in e.names}


def test_chunked_bootstrap_draws_the_same_resamples(monkeypatch):
    rng = np.random.default_rng(5)
    columns = [rng.random(97), (rng.random(97) > 0.5).astype(float)]
    expected = full_matrix_means(columns, 250, 3)
    monkeypatch.setattr(metrics, "CHUNK_INDICES", 97 * 7 + 5)   # 7 resamples per chunk, a short last one
    for got, want in zip(metrics.resampled_means(columns, 250, 3), expected):
        assert np.array_equal(got, want)


def test_built_folder_reads_like_datasets_and_follows_the_card(scaled, tmp_path):
    entities, relations, queries = load_with_datasets(scaled)
    graph = load_graph(scaled)
    assert graph.entities == entities and graph.relations == relations
    assert load_queries(scaled) == queries
    assert pq.ParquetFile(next((scaled / "data" / "graph").glob("*.parquet"))).num_row_groups == 1

    moved = tmp_path / "moved"
    card = (scaled / "README.md").read_text(encoding="utf-8")
    for file in (scaled / "data").glob("*/*.parquet"):
        relative = file.relative_to(scaled).as_posix()
        target = moved / relative
        if file.parent.name == "graph":
            target = moved / "data" / "graph" / "kg-00000.parquet"
            card = card.replace(relative, "data/graph/kg-*.parquet")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file.read_bytes())
    (moved / "README.md").write_text(card, encoding="utf-8")
    assert load_graph(moved).relations == relations


def test_media_tables_keep_small_row_groups():
    from mhmmkg.builders.build import MEDIA_ROW_GROUP_SIZE, _row_group_size

    table = pa.table({"id": [str(i) for i in range(200)], "has_media": [i == 7 for i in range(200)]})
    assert _row_group_size(table) == MEDIA_ROW_GROUP_SIZE
    assert _row_group_size(table.set_column(1, "has_media", pa.array([False] * 200))) == 200


def _mutations(doc: dict):
    """Copies of a valid document, each changed at one place (most become invalid)."""
    def walk(node, path=()):
        yield path, node
        if isinstance(node, dict):
            for k, v in node.items():
                yield from walk(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from walk(v, (*path, i))

    replacements = [None, "", "Bad Id", 1.5, 7, True, [], {}, ["x", "x"], "a/../b", "ok-id"]
    for path, node in list(walk(doc)):
        if not path:
            continue
        for new in replacements:
            changed = copy.deepcopy(doc)
            parent = changed
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = new
            yield changed
        changed = copy.deepcopy(doc)
        parent = changed
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict):
            del parent[path[-1]]
            yield changed
            parent["unexpected"] = 1
            yield changed


@pytest.mark.parametrize("name, doc", [("monster", TINY_WOLF), ("shared", TINY_SHARED), ("queries", TINY_QUERIES),
                                       ("submission", {"query_id": "q", "answer": "a", "paths": [["x", "y"]],
                                                       "topic": "x", "captions": {"x": "c"}, "meta": {"k": 1}})])
def test_compiled_schema_check_never_accepts_what_jsonschema_rejects(name, doc):
    check = quick_check(name)
    assert check is not None and check(doc)
    from mhmmkg.schemas import validator

    rejected = 0
    for changed in _mutations(doc):
        errors = list(validator(name).iter_errors(changed))
        if check(changed):
            assert not errors, (changed, errors[0].message)
        if errors:
            rejected += 1
            assert schema_problems(name, changed, "f")
    assert rejected > 20


def test_topic_parsing_matches_a_scan_over_every_name(tiny_sources):
    from mhmmkg.baseline.agents import MonsterList

    graph = load_graph(tiny_sources)
    monsters = graph.monsters()

    def scan(reply):
        text = normalise_name(reply.split("\n")[-1] if reply.strip() else "")
        for m in monsters:
            if text in {normalise_name(n) for n in m.names}:
                return m.id
        padded, found = f" {normalise_name(reply)} ", []
        for m in monsters:
            for name in m.names:
                at = padded.find(f" {normalise_name(name)} ")
                if at >= 0 and normalise_name(name):
                    found.append((at, -len(name), m.id))
        return min(found)[2] if found else None

    menu = MonsterList(monsters)
    words = ["the", "dark", "wolf", "thunder", "is", "Wolf.", "\n", "DARK", "cat"]
    rng = random.Random(2)
    replies = {" ".join(rng.choice(words) for _ in range(rng.randrange(0, 7))) for _ in range(2000)}
    assert {menu.parse(r) for r in replies} == {"wolf", "dark-wolf", None}
    for reply in replies:
        assert menu.parse(reply) == scan(reply), reply
    short = menu.shortlist("How does the Dark Wolf differ from the Thunder Wolf?", 5)
    assert [m.id for m in short.monsters] == ["dark-wolf", "wolf"] and "Dark Wolf" in short.text
    assert menu.shortlist("a question naming no monster", 5) is menu


def test_topic_shortlist_is_off_by_default_and_keeps_config_hashes():
    import hashlib

    from mhmmkg.baseline.settings import RunConfig

    plain = RunConfig(setting="perceptive", model="offline")
    unhashed = ("dataset", "base_url", "agent_base_urls", "topic_shortlist", "protocol", "replies")
    before_the_option = {k: v for k, v in plain.as_dict().items() if k not in unhashed}
    text = json.dumps(before_the_option, sort_keys=True, ensure_ascii=False)
    assert plain.topic_shortlist == 0
    assert plain.config_hash() == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert RunConfig(setting="perceptive", model="offline", topic_shortlist=5).config_hash() != plain.config_hash()


def test_reading_verbs_import_only_what_they_use(tiny_dataset, tmp_path):
    from mhmmkg.eval import write_submission

    sub = write_submission(tmp_path / "sub.jsonl", [{"query_id": "wolf-002", "answer": "Double Slam", "paths": []}])
    probe = ("import sys\nfrom mhmmkg.cli import main\nmain(sys.argv[1:])\n"
             "heavy = ('datasets', 'networkx', 'jsonschema', 'pandas')\n"
             "print('IMPORTED', sorted(m for m in heavy if m in sys.modules))\n")
    for verb in (["info", str(tiny_dataset)],
                 ["validate", str(sub), "--dataset", str(tiny_dataset)],
                 ["evaluate", str(sub), "--dataset", str(tiny_dataset), "--json", str(tmp_path / "s.json")]):
        out = subprocess.run([sys.executable, "-c", probe, *verb], capture_output=True, text=True, cwd=tmp_path,
                             env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        assert "IMPORTED []" in out.stdout, (verb[0], out.stdout[-300:])


def test_parallel_yields_every_result_once_and_stops_at_the_first_failure():
    import threading

    from mhmmkg.baseline.runner import _parallel

    assert sorted(_parallel(lambda x: x * 2, list(range(500)), 3)) == [2 * x for x in range(500)]

    started, lock = [], threading.Lock()

    def work(x):
        with lock:
            started.append(x)
        if x == 40:
            raise ValueError("boom")
        return x

    done = []
    with pytest.raises(ValueError, match="boom"):
        for result in _parallel(work, list(range(500)), 2):
            done.append(result)
    assert len(done) == len(set(done)) and 40 not in done and set(range(38)) <= set(done)
    assert len(started) < 60          # nothing new started once the failure was seen


def test_results_log_is_readable_at_once_and_synced_on_close(tmp_path):
    from mhmmkg.baseline.runner import JsonlLog, read_jsonl

    path = tmp_path / "results.jsonl"
    log = JsonlLog(path, durable=True, sync_interval=3600)
    for i in range(5):
        log.append({"query_id": f"q{i}"})
    assert [r["query_id"] for r in read_jsonl(path)[0]] == ["q0", "q1", "q2", "q3", "q4"]
    log.close()
    path.write_bytes(path.read_bytes() + b'{"query_id": "torn')
    again = JsonlLog(path, durable=True)
    again.append({"query_id": "q5"})
    again.close()
    assert [r["query_id"] for r in read_jsonl(path)[0]] == ["q0", "q1", "q2", "q3", "q4", "q5"]
