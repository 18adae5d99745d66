"""Exports round-trip, the Hub push (with a recording stand-in for HfApi), and pictures."""
from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from PIL import Image

from mhmmkg import load_graph
from mhmmkg.cli import main
from mhmmkg.exports import LIST_DELIMITER, NEO4J_ENTITY_HEADER, NEO4J_RELATION_HEADER


@pytest.fixture
def kg(tiny_sources):
    return load_graph(tiny_sources)


def export(fmt: str, tiny_sources: Path, out: Path, *options: str) -> Path:
    assert main(["export", "--format", fmt, "--out", str(out), "--dataset", str(tiny_sources), *options]) == 0
    return out


def test_graphml_round_trip_keeps_every_relation_and_field(kg, tiny_sources, tmp_path):
    graph = nx.read_graphml(export("graphml", tiny_sources, tmp_path / "kg.graphml"), force_multigraph=True)
    assert set(graph.nodes) == {e.id for e in kg.entities}
    for e in kg.entities:
        data = graph.nodes[e.id]
        assert data["name"] == e.name and data["type"] == e.type
        assert data.get("caption") == e.caption and data.get("monster") == e.monster
        assert data.get("aliases", "") == LIST_DELIMITER.join(e.aliases)
    edges = {key: (h, t, d) for h, t, key, d in graph.edges(keys=True, data=True)}
    assert len(edges) == len(kg.relations)
    for r in kg.relations:
        h, t, d = edges[r.id]
        assert (h, t, d["type"], d["label"], d.get("condition")) == (r.head, r.tail, r.type, r.label, r.condition)


def test_triples_round_trip_every_line_a_triple(kg, tiny_sources, tmp_path):
    with open(export("triples", tiny_sources, tmp_path / "kg.tsv"), newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert Counter(map(tuple, rows)) == Counter((r.head, r.type, r.tail) for r in kg.relations)
    assert {row[1] for row in rows} == {r.type for r in kg.relations}
    with open(export("triples", tiny_sources, tmp_path / "h.tsv", "--header"), newline="") as f:
        assert list(csv.reader(f, delimiter="\t")) == [["head", "relation", "tail"], *rows]


def test_header_is_refused_for_other_formats(tiny_sources, tmp_path, capsys):
    out = tmp_path / "kg.graphml"
    assert main(["export", "--format", "graphml", "--out", str(out), "--dataset", str(tiny_sources), "--header"]) == 2
    assert "--header applies to --format triples only" in capsys.readouterr().err and not out.exists()


def test_jsonl_docs_hold_entity_text_and_neighbourhood(kg, tiny_sources, tmp_path):
    lines = export("jsonl-docs", tiny_sources, tmp_path / "docs.jsonl").read_text().splitlines()
    docs = {d["id"]: d for d in map(json.loads, lines)}
    assert set(docs) == {e.id for e in kg.entities}
    slam = docs["wolf.double-slam"]
    assert "Rears up and slams both forepaws down twice." in slam["text"]
    assert "Double Slam continues with Back Slam (if the hunter is behind it)." in slam["text"]
    assert slam["metadata"]["monster"] == "wolf" and slam["metadata"]["type"] == "attack_action"
    assert sorted(slam["metadata"]["neighbours"]) == sorted(n.entity.id for n in kg.neighbours("wolf.double-slam"))


def test_neo4j_csv_round_trip(kg, tiny_sources, tmp_path):
    folder = export("neo4j", tiny_sources, tmp_path / "neo4j")
    with open(folder / "entities.csv", newline="") as f:
        nodes = list(csv.reader(f))
    with open(folder / "relations.csv", newline="") as f:
        rels = list(csv.reader(f))
    assert nodes[0] == NEO4J_ENTITY_HEADER and rels[0] == NEO4J_RELATION_HEADER
    by_id = {row[0]: row for row in nodes[1:]}
    assert set(by_id) == {e.id for e in kg.entities}
    assert by_id["wolf"][1] == "Entity|Monster" and by_id["wolf"][4] == "Thunder Wolf"
    assert by_id["wolf.charged-phase"][1] == "Entity|AttackPhase"
    got = Counter((r[0], r[1], r[2], r[5]) for r in rels[1:])
    assert got == Counter((r.head, r.tail, r.type.upper(), r.condition or "") for r in kg.relations)
    assert "neo4j-admin database import full" in (folder / "import.sh").read_text()


def test_one_list_delimiter_across_graphml_and_neo4j(tiny_sources, tmp_path):
    wolf_file = tiny_sources / "monsters" / "wolf.json"
    doc = json.loads(wolf_file.read_text())
    doc["entities"][0]["aliases"] = ["Thunder Wolf", "Raijin"]
    wolf_file.write_text(json.dumps(doc))
    graph = nx.read_graphml(export("graphml", tiny_sources, tmp_path / "kg.graphml"))
    folder = export("neo4j", tiny_sources, tmp_path / "neo4j")
    with open(folder / "entities.csv", newline="") as f:
        neo4j_aliases = {row[0]: row[4] for row in list(csv.reader(f))[1:]}
    assert graph.nodes["wolf"]["aliases"] == neo4j_aliases["wolf"] == "Thunder Wolf|Raijin"
    assert f"--array-delimiter='{LIST_DELIMITER}'" in (folder / "import.sh").read_text()


def test_neo4j_import_script_runs_from_any_folder(tiny_sources, tmp_path):
    import os
    import subprocess

    folder = export("neo4j", tiny_sources, tmp_path / "neo4j")
    bin_dir = tmp_path / "bin"  # a stand-in neo4j-admin that records where it ran and checks its inputs
    bin_dir.mkdir()
    (bin_dir / "neo4j-admin").write_text('#!/bin/sh\npwd > "$RECORD"\nfor a in "$@"; do case "$a" in '
                                         '--nodes=*|--relationships=*) test -s "${a#*=}" || exit 3;; esac; done\n'
                                         'echo "$@" >> "$RECORD"\n')
    (bin_dir / "neo4j-admin").chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    record = tmp_path / "record.txt"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "RECORD": str(record)}
    env.pop("NEO4J_DATABASE", None)
    subprocess.run([str(folder / "import.sh")], cwd=elsewhere, env=env, check=True)
    cwd, args = record.read_text().splitlines()
    assert Path(cwd).resolve() == folder.resolve()
    assert args.startswith("database import full neo4j --nodes=entities.csv --relationships=relations.csv")
    record.unlink()
    subprocess.run([str(folder / "import.sh"), "--overwrite-destination"], cwd=elsewhere,
                   env={**env, "NEO4J_DATABASE": "kg"}, check=True)
    args = record.read_text().splitlines()[1]
    assert args.startswith("database import full kg --nodes=") and args.endswith("--overwrite-destination")


def test_kuzu_loads_the_neo4j_csv_files_with_the_schema_beside_them(tiny_sources, tmp_path, monkeypatch):
    import re

    kuzu = pytest.importorskip("kuzu")
    folder = export("neo4j", tiny_sources, tmp_path / "neo4j")
    connection = kuzu.Connection(kuzu.Database(str(tmp_path / "kuzu-db")))
    script = re.sub(r"//.*", "", (folder / "kuzu.cypher").read_text())
    monkeypatch.chdir(folder)
    for statement in filter(None, (s.strip() for s in script.split(";"))):
        connection.execute(statement)
    kg = load_graph(tiny_sources)

    def rows(query):
        result = connection.execute(query)
        out = []
        while result.has_next():
            out.append(tuple(result.get_next()))
        return out

    assert rows("MATCH (e:Entity) RETURN count(*)") == [(len(kg.entities),)]
    follows = rows("MATCH (a:Entity)-[r:Relation]->(b:Entity) WHERE r.type = 'CONTINUES_WITH' "
                   "RETURN a.id, b.id, r.condition")
    expected = {(r.head, r.tail, r.condition or None) for r in kg.relations if r.type == "continues_with"}
    assert {(a, b, c or None) for a, b, c in follows} == expected


class RecordingHfApi:
    """Stands in for huggingface_hub.HfApi: records calls and the files each commit would send."""

    calls: list = []
    logged_in = True
    remote_files: list = []

    def whoami(self, token=None):
        if not self.logged_in:
            from huggingface_hub.errors import LocalTokenNotFoundError
            raise LocalTokenNotFoundError("no token")
        return {"name": "tester"}

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))
        return f"https://huggingface.co/datasets/{repo_id}"

    def list_repo_files(self, repo_id, **kwargs):
        return list(self.remote_files)

    def create_commit(self, **kwargs):
        from huggingface_hub import CommitOperationAdd

        operations = kwargs["operations"]
        sent = sorted(op.path_in_repo for op in operations if isinstance(op, CommitOperationAdd))
        type(self).cards = [op.path_or_fileobj for op in operations
                      if isinstance(op, CommitOperationAdd) and op.path_in_repo == "README.md"]
        deleted = sorted(op.path_in_repo for op in operations if not isinstance(op, CommitOperationAdd))
        self.calls.append(("create_commit", sent, {**kwargs, "deleted": deleted}))


@pytest.fixture
def recording_api(monkeypatch):
    import huggingface_hub

    RecordingHfApi.calls = []
    RecordingHfApi.logged_in = True
    RecordingHfApi.remote_files = []
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingHfApi)
    return RecordingHfApi


def test_push_uploads_exactly_the_built_files(tiny_sources, tmp_path, recording_api):
    from mhmmkg.builders.build import build_dataset

    out = build_dataset(tiny_sources, tmp_path / "ds", quiet=True).out
    (out / "notes.txt").write_text("scratch file a user left in the folder")
    assert main(["push", "--repo-id", "org/mh-mmkg", "--dataset", str(out), "--private"]) == 0
    recording_api.remote_files = ["README.md", "data/graph-kg-000000000000.parquet", "notes/keep.parquet"]
    assert main(["push", "--repo-id", "org/mh-mmkg", "--dataset", str(out), "--private"]) == 0
    (create, repo_id, create_kwargs), (commit, sent, commit_kwargs) = recording_api.calls[-2:]
    assert create == "create_repo" and repo_id == "org/mh-mmkg"
    assert create_kwargs["repo_type"] == "dataset" and create_kwargs["private"] is True
    assert commit == "create_commit" and commit_kwargs["repo_type"] == "dataset"
    assert commit_kwargs["deleted"] == ["data/graph-kg-000000000000.parquet"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert sent == sorted([*manifest["files"], "manifest.json"])
    assert "notes.txt" not in sent


def test_push_refuses_when_not_logged_in_or_not_a_build(tiny_sources, tmp_path, recording_api, capsys):
    from mhmmkg.builders.build import build_dataset

    assert main(["push", "--repo-id", "org/x", "--dataset", str(tiny_sources)]) == 2
    assert "not a built dataset folder" in capsys.readouterr().err
    out = build_dataset(tiny_sources, tmp_path / "ds", quiet=True).out
    recording_api.logged_in = False
    assert main(["push", "--repo-id", "org/x", "--dataset", str(out)]) == 2
    assert "not logged in" in capsys.readouterr().err
    recording_api.logged_in = True
    (out / "README.md").write_text("edited by hand")
    assert main(["push", "--repo-id", "org/x", "--dataset", str(out)]) == 2
    assert "changed since the build" in capsys.readouterr().err
    assert recording_api.calls == []


def test_draw_monster_png_and_svg(tiny_sources, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "wolf.png"
    assert main(["draw", "Thunder Wolf", "--out", str(png), "--dataset", str(tiny_sources)]) == 0
    with Image.open(png) as image:
        assert image.format == "PNG" and image.width >= 600 and image.height >= 250
    svg = tmp_path / "wolf.svg"
    assert main(["draw", "wolf", "--out", str(svg), "--dataset", str(tiny_sources)]) == 0
    text = svg.read_text()
    assert ET.fromstring(text).tag.endswith("svg") and "Double Slam" in text


def test_draw_rejects_unknown_monster_and_format(tiny_sources, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["draw", "bear", "--out", str(tmp_path / "b.png"), "--dataset", str(tiny_sources)]) == 2
    assert "no monster 'bear'" in capsys.readouterr().err
    assert main(["draw", "wolf", "--out", str(tmp_path / "b.gif"), "--dataset", str(tiny_sources)]) == 2
    assert not list(tmp_path.glob("*b.*"))


def test_subtask_bar_chart(tmp_path):
    pytest.importorskip("matplotlib")
    from mhmmkg.draw import plot_subtask_scores

    result = {"acc": 0.5, "by_subtask": {s: {"acc": a} for s, a in zip(["I", "II", "III", "IV", "V", "VI"], [1, .5, .2, 0, .3, .9])}}
    out = plot_subtask_scores({"run-a": result, "run-b": {**result, "acc": 0.4}}, tmp_path / "bars.png")
    with Image.open(out) as image:
        assert image.size[0] > 400 and image.getbbox() is not None


def test_evaluate_plot_draws_both_compared_runs(tiny_sources, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from conftest import TINY_QUERIES

    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps({"query_id": q["id"], "answer": q["answer"], "paths": q["paths"]}) + "\n"
                            for q in TINY_QUERIES["queries"]))
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"query_id": "wolf-001", "answer": "no idea", "paths": []}) + "\n")
    plot = tmp_path / "bars.svg"
    assert main(["evaluate", str(good), "--dataset", str(tiny_sources), "--compare", str(empty),
                 "--plot", str(plot), "--bootstrap", "0"]) == 0
    text = plot.read_text()
    assert ET.fromstring(text).tag.endswith("svg") and str(good) in text and str(empty) in text
    assert main(["evaluate", str(good), "--dataset", str(tiny_sources), "--plot", str(tmp_path / "x.bmp")]) == 2
    assert "must end in .svg or .png" in capsys.readouterr().err


def test_push_points_the_card_at_the_repository_and_tags_it_for_graph_learning(tiny_sources, tmp_path, recording_api):
    import yaml

    from mhmmkg.builders.build import build_dataset

    out = build_dataset(tiny_sources, tmp_path / "ds", quiet=True).out
    local = (out / "README.md").read_text(encoding="utf-8")
    assert 'load_dataset("mh-mmkg", "queries"' in local and "https://arxiv.org/abs/2506.17589" in local
    assert "graph-ml" in yaml.safe_load(local.split("---")[1])["task_categories"]
    assert main(["push", "--repo-id", "org/kg", "--dataset", str(out)]) == 0
    card = recording_api.cards[0].decode("utf-8")
    assert 'load_dataset("org/kg", "queries"' in card and 'load_dataset("mh-mmkg"' not in card
    assert 'load_graph("org/kg")' in card
    assert (out / "README.md").read_text(encoding="utf-8") == local

