"""Prompt text written and read back by one module (mhmmkg.llm.prompt_text): every piece the agents
are shown, rendered from the whole default dataset, reads back to what was rendered, so a change
to the format cannot leave the offline model reading something else."""
from __future__ import annotations

from pathlib import Path

import pytest

from mhmmkg import load_graph, load_queries
from mhmmkg.baseline.agents import group_neighbours, render_candidates, render_monsters
from mhmmkg.baseline.prompts import default_prompts
from mhmmkg.llm.prompt_sets import placeholders
from mhmmkg.llm.prompt_text import (Block, parse_candidates, parse_entity, parse_knowledge, parse_monster_menu,
                                    parse_path_names, parse_sections, path_names_text, relation_condition,
                                    relation_type_of)

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def graph():
    return load_graph(DATA)


def block_of(entity, caption: str | None = None) -> Block:
    return Block(entity.name, entity.type, [], (entity.caption if caption is None else caption) or "", entity.text or "")


def test_every_entity_reads_back(graph):
    entities = list(graph.entities)
    assert len(entities) > 400
    for entity in entities:
        assert parse_entity(graph.render_entity(entity.id).splitlines()) == block_of(entity)
        shown = graph.render_entity(entity.id, caption="A model's words (with a parenthesis).")
        assert parse_entity(shown.splitlines()) == block_of(entity, "A model's words (with a parenthesis).")


def test_every_relation_reads_back_to_its_type_and_condition(graph):
    """The condition is ambiguous in one shape only: no condition and a note whose last words are in
    parentheses ("... (source, row ...)."); the offline model reads that as the condition, as it
    always has (reading it otherwise would change its answers)."""
    ambiguous = 0
    for relation in graph.relations:
        sentence = graph.render_relation(relation)
        assert relation_type_of(sentence) == relation.type, sentence
        condition = relation_condition(sentence)
        if condition != (relation.condition or None):
            assert not relation.condition and relation.info.rstrip(".").endswith(")"), sentence
            ambiguous += 1
    assert ambiguous <= 1


def test_the_candidates_of_every_entity_read_back(graph):
    for entity in graph.entities:
        groups = group_neighbours(graph.neighbours(entity.id))
        if not groups:
            continue
        captions = {groups[0][0].id: "described by a model"}
        parsed = parse_candidates(render_candidates(graph, groups, captions))
        assert [n for n, _ in parsed] == list(range(1, len(groups) + 1))
        for (number, block), (neighbour, relations) in zip(parsed, groups):
            assert block.name == neighbour.name and block.type == neighbour.type
            assert [relation_type_of(link) for link in block.links] == [r.type for r in relations]
            assert block.appearance == captions.get(neighbour.id, "")
            assert block.knowledge == (neighbour.text or "")


def test_the_knowledge_paths_of_every_query_read_back(graph):
    queries = load_queries(DATA)
    assert len(queries) > 200
    for query in queries:
        paths = parse_knowledge(graph.render_paths(query.paths))
        assert [p.names for p in paths] == [[graph.entity(e).name for e in path] for path in query.paths]
        for parsed, path in zip(paths, query.paths):
            assert parsed.entities == {graph.entity(e).name: block_of(graph.entity(e)) for e in reversed(path)}
            assert parsed.sentences == [graph.render_relation(r) for a, b in zip(path, path[1:])
                                        for r in graph.relations_between(a, b)]
            assert parse_path_names(path_names_text(parsed.names)) == parsed.names


def test_the_monster_menu_reads_back(graph):
    monsters = [e for e in graph.entities if e.type == "monster"]
    assert parse_monster_menu(render_monsters(monsters)) == [(m.name, list(m.aliases)) for m in monsters]


@pytest.mark.parametrize("agent", sorted(default_prompts().agents))
def test_each_field_of_the_default_prompts_reads_back_from_its_section(agent):
    """Each field of a default template is a ``## Section`` of its own, read back as given (an
    empty one as empty); the other sections are the template's fixed text."""
    prompts = default_prompts()
    for template in prompts.agents[agent].templates:
        layout = parse_sections(template.user)
        fields = {section: text[1:-1] for section, text in layout.items() if text[1:-1] in placeholders(text)}
        assert set(fields.values()) == placeholders(template.user)
        given = {name: f"the {name}\nover two lines" for name in fields.values()}
        read = parse_sections(template.user.format(**given), prompts.empty)
        assert read == {section: given[fields[section]] if section in fields else text for section, text in layout.items()}
        _, user = prompts.render(agent, dict.fromkeys(given, ""))
        assert {section: text for section, text in parse_sections(user, prompts.empty).items() if section in fields} \
            == dict.fromkeys(fields, "")
