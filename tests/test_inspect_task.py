"""The MH benchmark inside Inspect AI: the task runs offline on Inspect's mock model, its scorer
agrees with `mhmmkg evaluate` on the same answers, and the built folder's eval.yaml names it."""
from __future__ import annotations

from importlib.metadata import entry_points

import pytest
import yaml

inspect_ai = pytest.importorskip("inspect_ai")


@pytest.fixture
def quiet_inspect(tmp_path, monkeypatch):
    """Inspect writes traces and state under the user's data folder: keep them in tmp."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "data"))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    return tmp_path / "logs"


def mock_model(replies):
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    outputs = []
    for text in replies:
        output = ModelOutput.from_content(model="mockllm/model", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)   # no tokenizer download
        outputs.append(output)
    return get_model("mockllm/model", custom_outputs=outputs)


@pytest.mark.parametrize("setting", ["know", "vanilla_plus", "perceptive"])
def test_the_task_runs_offline_and_scores_like_mhmmkg_evaluate(tiny_dataset, quiet_inspect, setting):
    from mhmmkg.eval import Evaluator
    from mhmmkg.integrations.inspect_eval import mh_benchmark
    from mhmmkg.loading import load_queries

    queries = load_queries(tiny_dataset)
    answers = {q.id: (q.answer if i % 2 == 0 else "I do not know") for i, q in enumerate(queries)}
    logs = inspect_ai.eval(mh_benchmark(dataset=str(tiny_dataset), setting=setting),
                           model=mock_model([f"Answer: {answers[q.id]}" for q in queries]),
                           log_dir=str(quiet_inspect), display="none", max_samples=1, max_connections=1)
    log = logs[0]
    assert log.status == "success", log.error
    scored = {s.id: s.scores["mh_judge"].value == "C" for s in log.samples}
    assert set(scored) == {q.id for q in queries}
    expected = Evaluator(tiny_dataset).eval([{"query_id": q, "answer": a, "paths": []} for q, a in answers.items()])
    by_query = {row["query_id"]: row["correct"] for row in expected["queries"]}
    assert scored == by_query
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(expected["acc"])
    first = log.samples[0]
    shown = " ".join(m.text for m in first.messages if m.role in ("system", "user"))
    assert "Monster Hunter" in shown
    if setting == "know":
        assert "Knowledge path 1" in shown


def test_the_package_registers_its_inspect_components_and_eval_yaml_names_them(tiny_dataset):
    from mhmmkg.integrations import inspect_eval

    (entry,) = [e for e in entry_points(group="inspect_ai") if e.name == "mhmmkg"]
    assert entry.value == inspect_eval.__name__
    document = yaml.safe_load((tiny_dataset / "eval.yaml").read_text(encoding="utf-8"))
    assert document["evaluation_framework"] == "inspect-ai"
    assert {t["id"] for t in document["tasks"]} == set(inspect_eval.SETTINGS)
    for task in document["tasks"]:
        assert task["config"] == "queries" and task["split"] == "test"
        for part in task["solvers"] + task["scorers"]:
            package, name = part["name"].split("/")
            assert package == "mhmmkg" and callable(getattr(inspect_eval, name))
        assert task["solvers"][0]["args"]["setting"] in inspect_eval.SETTINGS
