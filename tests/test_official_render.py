"""The question text in the authors' style, and the conversion of their `{}` templates."""
from __future__ import annotations

import pytest

from mhmmkg.builders.official.queries import convert_template, official_query_id
from mhmmkg.model import Query
from mhmmkg.render import fill, render_extra, render_question


def _query(question: str, extra: str | None = None, *, media: bool = True, perception: str | None = "seen") -> Query:
    return Query(id="q", subtask=2, question=question, monster="stygian-zinogre", answer="a",
                 paths=(("stygian-zinogre",),), extra=extra, perception=perception, has_media=media)


@pytest.mark.parametrize("template, expected", [
    ("Tell me what attack action that{} is performing?", "Tell me what attack action that{monster} is performing?"),
    ("What will happen, after {}'s  current attack? ", "What will happen, after {monster}'s  current attack? "),
    ("No placeholder here.", "No placeholder here."),
    ("   ", None),
    (None, None),
])
def test_official_templates_are_kept_verbatim_with_our_placeholder(template, expected):
    assert convert_template(template) == expected


def test_open_style_frames_the_question_and_puts_the_text_right():
    query = _query("Which attack is{monster}using?", "{monster} is under Charged Phase")
    assert render_question(query, "Stygian Zinogre") == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. "
        "Stygian Zinogre is under Charged Phase. Which attack is Stygian Zinogre using?")
    assert render_question(query, "Stygian Zinogre", use_extra=False) == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. Which attack is Stygian Zinogre using?")


def test_official_style_is_the_authors_string_character_for_character():
    query = _query("Which attack is {monster} using? ", "{monster} is under Charged Phase")
    assert render_question(query, "Stygian Zinogre", style="official") == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre.  Stygian Zinogre is under "
        "Charged Phase Which attack is  Stygian Zinogre using? ")
    assert render_question(query, "Stygian Zinogre", style="official", use_extra=False) == (
        "I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. Which attack is  Stygian Zinogre using? ")
    glued = _query("What is{monster}doing?", "around{monster}, sparks")
    assert render_question(glued, "Zinogre", style="official") == (
        "I am playing 'Monster Hunter: World' and fighting with Zinogre. around Zinogre, sparks What is Zinogredoing?")


def test_without_the_name_the_official_style_still_names_the_monster_in_the_extra():
    query = _query("Which attack is {monster} using?", "{monster}' back glows")
    assert render_question(query, "Stygian Zinogre", use_name=False) == (
        "I am playing 'Monster Hunter: World'. The monster's back glows. Which attack is the monster using?")
    assert render_question(query, "Stygian Zinogre", style="official", use_name=False) == (
        "I am playing 'Monster Hunter: World'.  Stygian Zinogre' back glows Which attack is  the monster using?")
    assert render_extra(query, "Stygian Zinogre", use_name=False) == "The monster's back glows."
    assert render_extra(query, "Stygian Zinogre", use_name=False, style="official") == " Stygian Zinogre' back glows"
    assert render_extra(_query("q"), "Stygian Zinogre") is None


@pytest.mark.parametrize("style", ["open", "official"])
def test_a_text_only_query_keeps_the_name_when_names_are_withheld(style):
    query = _query("What is {monster} weak to?", media=False, perception=None)
    text = render_question(query, "Stygian Zinogre", style=style, use_name=False)
    assert text.startswith("I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. ")
    assert text.replace("  ", " ").endswith("What is Stygian Zinogre weak to?")
    described = _query("What is {monster} weak to?", media=False, perception="A dark wolf glows red.")
    assert render_question(described, "Stygian Zinogre", style=style, use_name=False).replace("  ", " ") == (
        "I am playing 'Monster Hunter: World'. What is the monster weak to?")


def test_default_name_comes_from_the_topic_id():
    query = _query("What is {monster} doing?", "{monster} is angry.")
    assert render_question(query) == ("I am playing 'Monster Hunter: World' and fighting with Stygian Zinogre. "
                                      "Stygian Zinogre is angry. What is Stygian Zinogre doing?")
    assert render_question(query, use_name=False) == (
        "I am playing 'Monster Hunter: World'. The monster is angry. What is the monster doing?")
    with pytest.raises(ValueError, match="unknown style"):
        render_question(query, style="paper")


@pytest.mark.parametrize("template, name, expected", [
    ("{monster}' tail burns", "Zinogre", "Zinogre's tail burns"),
    ("{monster}' tail burns", "Diablos", "Diablos' tail burns"),
    ("{monster}’s tail burns", "Zinogre", "Zinogre’s tail burns"),
    ("Look. {monster} roars", "the monster", "Look. The monster roars"),
    ("hit by {monster}", "the monster", "hit by the monster"),
    ("attack action that{monster} is", "Zinogre", "attack action that Zinogre is"),
    ("Is{monster}sharp? ", "Zinogre", "Is Zinogre sharp?"),
    ("front of  ({monster})", "Zinogre", "front of (Zinogre)"),
])
def test_fill(template, name, expected):
    assert fill(template, name) == expected


@pytest.mark.parametrize("file, expected", [
    ("Zinogre_Double Slam", "Zinogre_Double-Slam"), ("Frostfang Barioth_Pure Text1", "Frostfang-Barioth_Pure-Text1"),
    ("Zinogre_360", "Zinogre_360"), (" Rathian_Tail (2) ", "Rathian_Tail-2"),
])
def test_official_file_names_become_query_ids(file, expected):
    assert official_query_id(file) == expected
