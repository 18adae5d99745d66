"""The MH benchmark as an Inspect AI task (``pip install 'mhmmkg[inspect]'``).

  inspect eval mhmmkg/mh_benchmark -T setting=know --model openai/gpt-4o-mini
  inspect eval mhmmkg/mh_benchmark -T setting=perceptive -T dataset=path/to/mh-mmkg --model mockllm/model

or in Python: ``inspect_ai.eval(mh_benchmark(setting="know"), model=...)``. The task, its solver
and its scorer are registered with Inspect under the ``mhmmkg/`` prefix (a package entry point),
so the dataset card's ``eval.yaml`` can name them.

Settings (``-T setting=...``), as in ``mhmmkg run``, with our prompt set:

- ``vanilla_plus``: the question and the human scene description, no knowledge;
- ``know``: the same plus the ground-truth knowledge paths rendered as text (entity, caption,
  context, one sentence per relation), given to the summarizer prompt;
- ``perceptive``: the question and scene, and three graph tools the model calls itself
  (``kg_find`` an entity by name, ``kg_entity`` its description, ``kg_neighbours`` its relations):
  retrieval by tool use instead of our agents' search.

The scorer is the benchmark's judge (``mh_judge``: the offline exact judge of ``mhmmkg evaluate``),
so Inspect's accuracy equals the answer accuracy ``mhmmkg evaluate`` gives the same answers.
"""
from __future__ import annotations

from ..kg.graph import KnowledgeGraph
from ..kg.model import Query
from . import INSPECT_SETTINGS, require

EXTRA = "inspect"
SETTINGS = tuple(INSPECT_SETTINGS)
_inspect = require("inspect_ai", EXTRA)

from inspect_ai import Task, task  # noqa: E402  (after the check that names the extra)
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.model import ChatMessageSystem, ChatMessageUser  # noqa: E402
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr  # noqa: E402
from inspect_ai.solver import TaskState, generate, solver, use_tools  # noqa: E402
from inspect_ai.tool import tool  # noqa: E402


def _check_setting(setting: str) -> None:
    if setting not in SETTINGS:
        raise ValueError(f"setting {setting!r}: choose one of {', '.join(SETTINGS)}")


def _benchmark(dataset: str) -> tuple[KnowledgeGraph, list[Query]]:
    from ..dataset.loading import load_graph, load_queries

    return load_graph(dataset), load_queries(dataset)


def _messages(query: Query, kg: KnowledgeGraph, setting: str) -> list:
    from mhmmkg.baseline.pipeline import question_texts
    from mhmmkg.baseline.prompts import default_prompts

    asked = question_texts(query, kg)
    asked.scene = query.perception or ""
    if setting == "know":
        system, user = default_prompts().render("summarizer", {**asked.fields(),
                                                               "knowledge": kg.render_paths(query.paths)})
    else:
        system, user = default_prompts().render("direct", asked.fields())
    return ([ChatMessageSystem(content=system)] if system else []) + [ChatMessageUser(content=user)]


def samples(dataset: str, setting: str) -> MemoryDataset:
    """One Inspect ``Sample`` per benchmark query: our prompt for the setting, the reference answer."""
    _check_setting(setting)
    kg, queries = _benchmark(dataset)
    return MemoryDataset([Sample(id=q.id, input=_messages(q, kg, setting), target=q.answer,
                                 metadata={"subtask": q.roman, "monster": q.monster})
                          for q in queries], name=f"mh-mmkg-{setting}")


def graph_tools(kg: KnowledgeGraph) -> list:
    """Three tools over the KG for a model that retrieves by itself."""

    @tool
    def kg_find():
        async def execute(name: str) -> str:
            """Find entities of the Monster Hunter knowledge graph by name or alias.

            Args:
                name: The name to look up, e.g. a monster or an attack.
            """
            found = kg.find(name)
            return "\n".join(f"{e.id}: {e.name} ({e.type})" for e in found) or "no entity of that name"
        return execute

    @tool
    def kg_entity():
        async def execute(entity_id: str) -> str:
            """Describe one entity of the knowledge graph: its caption and context.

            Args:
                entity_id: The entity's id, as kg_find returns it.
            """
            return kg.render_entity(entity_id) if entity_id in kg else f"unknown entity {entity_id!r}"
        return execute

    @tool
    def kg_neighbours():
        async def execute(entity_id: str) -> str:
            """List the relations of one entity: one sentence each, with conditions, and the neighbour's id.

            Args:
                entity_id: The entity's id, as kg_find returns it.
            """
            if entity_id not in kg:
                return f"unknown entity {entity_id!r}"
            return "\n".join(f"{kg.render_relation(n.relation)} [{n.entity.id}]"
                             for n in kg.neighbours(entity_id)) or "no relations"
        return execute

    return [kg_find(), kg_entity(), kg_neighbours()]


@solver
def mh_solver(dataset: str = "mh-mmkg", setting: str = "know"):
    """Ask the query with our prompt for the setting (rebuilt from the sample id, so a sample loaded
    straight from the `queries` config works too), then generate; with the graph tools in
    ``perceptive``."""
    _check_setting(setting)
    kg, queries = _benchmark(dataset)
    by_id = {q.id: q for q in queries}
    steps = [use_tools(graph_tools(kg))] if setting == "perceptive" else []
    chain = steps + [generate()]

    async def solve(state: TaskState, generate_) -> TaskState:
        state.messages = _messages(by_id[str(state.sample_id)], kg, setting)
        for step in chain:
            state = await step(state, generate_)
        return state
    return solve


@scorer(metrics=[accuracy(), stderr()])
def mh_judge(dataset: str = "mh-mmkg"):
    """The benchmark's offline exact judge on the model's final answer."""
    from mhmmkg.baseline.agents import parse_answer
    from mhmmkg.eval.judges import ANSWER, ExactJudge, Judgement

    kg, queries = _benchmark(dataset)
    by_id = {q.id: q for q in queries}
    judge = ExactJudge(kg)

    async def score(state: TaskState, target: Target) -> Score:
        query = by_id[str(state.sample_id)]
        answer = parse_answer(state.output.completion or "")
        verdict = judge.judge(Judgement(ANSWER, query.question, query.answer, answer, query.monster))
        return Score(value=CORRECT if verdict.accepted else INCORRECT, answer=answer, explanation=verdict.rule)
    return score


@task
def mh_benchmark(dataset: str = "mh-mmkg", setting: str = "know") -> Task:
    """The MH benchmark in one setting (see the module docstring)."""
    return Task(dataset=samples(dataset, setting), solver=mh_solver(dataset, setting), scorer=mh_judge(dataset))
