"""The question text in the authors' style, and the conversion of their `{}` templates."""
from __future__ import annotations

import pytest

from mhmmkg.builders.official_queries import convert_template, official_query_id
from mhmmkg.model import Query
from mhmmkg.render import fill, render_question


def _query(question: str, extra: str | None = None, *, media: bool = True, perception: str | None = "seen") -> Query:
    return Query(id="q", subtask=2, question=question, monster="stygian-zinogre", answer="a",
                 paths=(("stygian-zinogre",),), extra=extra, perception=perception, has_media=media)


@pytest.mark.parametrize("template, expected", [
    ("Tell me what attack action that{} is performing?", "Tell me what attack action that {monster} is performing?"),
    ("What is difference between {} and its subspecies.", "What is difference between {monster} and its subspecies."),
    ("{} is under Charging Phase", "{monster} is under Charging Phase"),
    ("ground in front of{}", "ground in front of {monster}"),
    ("What will happen, after {}'s  current attack?", "What will happen, after {monster}'s current attack?"),
    ("Is{}sharp?", "Is {monster} sharp?"),
    ("No placeholder here.", "No placeholder here."),
    (None, None),
])
def test_official_templates_become_ours_with_one_space_around_the_name(template, expected):
    assert convert_template(template) == expected


def test_official_style_frames_the_question_as_the_authors_do():
    query = _query("Which attack is {monster} using?", "{monster} is under Charged Phase")
    assert render_question(query, "Stygian Zinogre", style="official") == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. "
        "Stygian Zinogre is under Charged Phase. Which attack is Stygian Zinogre using?")
    assert render_question(query, "Stygian Zinogre", style="official", use_extra=False) == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. Which attack is Stygian Zinogre using?")


def test_official_style_without_the_name():
    query = _query("Which attack is {monster} using?", "{monster}' back glows")
    assert render_question(query, "Stygian Zinogre", style="official", use_name=False) == (
        "I am playing 'Monster Hunter: World'. The monster's back glows. Which attack is the monster using?")


def test_a_text_only_query_keeps_the_name_when_names_are_withheld():
    query = _query("What is {monster} weak to?", media=False, perception=None)
    assert render_question(query, "Stygian Zinogre", style="official", use_name=False) == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. What is Stygian Zinogre weak to?")
    described = _query("What is {monster} weak to?", media=False, perception="A dark wolf glows red.")
    assert render_question(described, "Stygian Zinogre", style="official", use_name=False).startswith(
        "I am playing 'Monster Hunter: World'. What is the monster weak to?")


def test_default_name_comes_from_the_topic_id_and_open_style_is_unframed():
    query = _query("What is {monster} doing?", "{monster} is angry.")
    assert render_question(query) == "Stygian Zinogre is angry.\nWhat is Stygian Zinogre doing?"
    assert render_question(query, use_name=False) == "The monster is angry.\nWhat is the monster doing?"
    with pytest.raises(ValueError, match="unknown style"):
        render_question(query, style="paper")


@pytest.mark.parametrize("template, name, expected", [
    ("{monster}' tail burns", "Zinogre", "Zinogre's tail burns"),
    ("{monster}' tail burns", "Diablos", "Diablos' tail burns"),
    ("{monster}’s tail burns", "Zinogre", "Zinogre’s tail burns"),
    ("Look. {monster} roars", "the monster", "Look. The monster roars"),
    ("hit by {monster}", "the monster", "hit by the monster"),
])
def test_fill(template, name, expected):
    assert fill(template, name) == expected


@pytest.mark.parametrize("file, expected", [
    ("Zinogre_Double Slam", "Zinogre_Double-Slam"), ("Frostfang Barioth_Pure Text1", "Frostfang-Barioth_Pure-Text1"),
    ("Zinogre_360", "Zinogre_360"), (" Rathian_Tail (2) ", "Rathian_Tail-2"),
])
def test_official_file_names_become_query_ids(file, expected):
    assert official_query_id(file) == expected
