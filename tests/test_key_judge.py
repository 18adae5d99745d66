"""The exact judge with answer keys: the issue's examples, rivals, context, negation, hedges and floods."""
from __future__ import annotations

import pytest

from mhmmkg import Entity, KnowledgeGraph, Relation
from mhmmkg.eval.judges import ANSWER, ExactJudge, Judgement
from mhmmkg.eval.key_judge import contains_wording, is_hedged, key_words, polarity
from mhmmkg.model import AnswerKey


def _graph() -> KnowledgeGraph:
    E = Entity
    entities = [
        E("zinogre", "Zinogre", "monster", aliases=("Thunder Wolf Wyvern",)),
        E("stygian-zinogre", "Stygian Zinogre", "monster"),
        E("tigrex", "Tigrex", "monster"),
        E("glavenus", "Glavenus", "monster"),
        E("zinogre.double-slam", "Double Slam", "attack_action", "zinogre", aliases=("Double Body Slam",)),
        E("zinogre.tail-slam", "Tail Slam", "attack_action", "zinogre"),
        E("zinogre.heavy-tail-slam", "Heavy Tail Slam", "attack_action", "zinogre"),
        E("zinogre.roar", "Roar", "attack_action", "zinogre"),
        E("zinogre.charged-phase", "Charged Phase", "attack_phase", "zinogre"),
        E("glavenus.lava-eruption", "Lava Eruption", "attack_action", "glavenus"),
        E("stygian-zinogre.tail-slam", "Tail Slam", "attack_action", "stygian-zinogre"),
        E("effect.fireblight", "Fireblight", "attack_effect"),
        E("effect.thunderblight", "Thunderblight", "attack_effect"),
        E("effect.dragonblight", "Dragonblight", "attack_effect"),
        E("element.ice", "Ice", "element"),
        E("element.thunder", "Thunder", "element"),
        E("prop.shock-trap", "Shock Trap", "prop"),
        E("prop.pitfall-trap", "Pitfall Trap", "prop"),
        E("prop.flash-pod", "Flash Pod", "prop"),
    ]
    return KnowledgeGraph(entities, [Relation("r1", "zinogre", "zinogre.double-slam", "has_attack_action",
                                              "has attack action")])


@pytest.fixture(scope="module")
def judge() -> ExactJudge:
    return ExactJudge(_graph())


def verdict(judge, key, reply, *, question="Which attack is Zinogre using?", monster="zinogre", scene=None,
            reference="reference text", paths=()):
    return judge.judge(Judgement(ANSWER, question, reference, reply, monster, key=key, scene=scene, paths=paths))


DOUBLE_SLAM = AnswerKey("entity", ("zinogre.double-slam",))


@pytest.mark.parametrize("reply, accepted, rule", [
    ("Double Slam", True, "key-entity"),
    ("Zinogre's Double Slam.", True, "key-entity"),                 # a leading monster name
    ("double-body-slam", True, "key-entity"),                       # an alias, normalised
    ("It slams its body down twice: the Double Slam, then it stands up.", True, "key-entity"),
    ("Double Slams", True, "key-entity"),
    ("Double Slam or Tail Slam", False, "key-rival"),               # a hedge
    ("Double Slam, Tail Slam, Roar", False, "key-rival"),           # a list
    ("It is the Double Slam, not the Tail Slam.", True, "key-entity"),   # a negated rival is no rival
    ("Not the Double Slam; it is the Tail Slam.", False, "key-missing"),
    ("Heavy Tail Slam", False, "key-missing"),
    ("Slam", False, "key-missing"),
    ("I don't know.", False, "key-missing"),
    ("Stygian Zinogre's Tail Slam, I think, or the Double Slam", False, "key-rival"),
])
def test_entity_key(judge, reply, accepted, rule):
    got = verdict(judge, DOUBLE_SLAM, reply)
    assert (got.accepted, got.rule) == (accepted, rule)


def test_the_issues_sentences_are_read_by_the_key(judge):
    fireblight = AnswerKey("entity", ("effect.fireblight",))
    reply = "It erupts a few moments later (Lava Eruption), causing fireblight."
    assert verdict(judge, fireblight, reply, monster="glavenus").rule == "key-entity"
    roar = AnswerKey("entity", ("zinogre.roar",))
    assert verdict(judge, roar, "Roar: it makes you cover your ears until it ends.").accepted is True
    assert verdict(judge, fireblight, "Thunderblight", monster="glavenus").rule == "key-missing"
    assert verdict(judge, fireblight, "Fireblight or thunderblight", monster="glavenus").rule == "key-rival"


def test_context_entities_are_not_rivals(judge):
    question = "Zinogre is in its Charged Phase and has just used the Tail Slam. Which attack comes next?"
    assert verdict(judge, DOUBLE_SLAM, "After the Tail Slam it does a Double Slam.", question=question).accepted
    assert verdict(judge, DOUBLE_SLAM, "After the Tail Slam it does a Double Slam.").rule == "key-rival"
    scene = "It roars, then throws itself down twice."
    assert verdict(judge, DOUBLE_SLAM, "It roars, then Double Slam", scene=scene).rule == "key-entity"


def test_reference_names_and_the_way_to_the_answer_are_context(judge):
    # the reference names the Tail Slam; the Charged Phase lies on the path to the answer
    got = verdict(judge, DOUBLE_SLAM, "After the Tail Slam it does a Double Slam.", reference="Double Slam, after a Tail Slam")
    assert got.rule == "key-entity"
    path = (("zinogre", "zinogre.charged-phase", "zinogre.double-slam"),)
    got = verdict(judge, DOUBLE_SLAM, "In the Charged Phase: Double Slam", paths=path)
    assert got.rule == "key-entity"
    # a leaf of another path is not context for an entity answer
    two = path + (("zinogre", "zinogre.tail-slam"),)
    assert verdict(judge, DOUBLE_SLAM, "Double Slam or Tail Slam", paths=two).rule == "key-rival"


def test_an_ambiguous_name_in_the_context_stands_only_for_itself(judge):
    # "Tail Slam" in the question is context; "Heavy Tail Slam" in the reply is still a rival
    question = "After its Tail Slam, which attack comes?"
    assert verdict(judge, DOUBLE_SLAM, "Heavy Tail Slam or Double Slam", question=question).rule == "key-rival"


def test_a_shorter_name_after_the_key_names_it_again(judge):
    key = AnswerKey("entity", ("zinogre.heavy-tail-slam",))
    assert verdict(judge, key, "The Heavy Tail Slam: the tail slam lands twice.").rule == "key-entity"
    assert verdict(judge, key, "Tail Slam or Heavy Tail Slam").rule == "key-rival"
    assert verdict(judge, key, "Heavy Tail Slam, or maybe a Tail Slam").rule == "key-rival"
    assert verdict(judge, key, "Heavy Tail Slam or a Tail Slam").rule == "key-rival"     # "or" right after the key


def test_a_flood_of_other_entities_is_wrong(judge):
    reply = "Double Slam; Charged Phase, Fireblight, Thunderblight, Dragonblight, Ice, Thunder, Shock Trap, Flash Pod"
    assert verdict(judge, DOUBLE_SLAM, reply).rule == "key-flood"
    assert verdict(judge, DOUBLE_SLAM, "Double Slam in the Charged Phase, causing Thunderblight").rule == "key-entity"


def test_monster_answers_compete_with_other_monsters(judge):
    key = AnswerKey("entity", ("tigrex",))
    question = "Which monster has the same roar as Zinogre?"
    assert verdict(judge, key, "Tigrex", question=question).accepted is True
    assert verdict(judge, key, "Tigrex or Glavenus", question=question).rule == "key-rival"
    assert verdict(judge, key, "Zinogre's roar is like Tigrex's", question=question).accepted is True
    # a monster the reply relates the answer to is a comparison, not a rival answer
    assert verdict(judge, key, "Tigrex, a variant of the Glavenus", question=question).rule == "key-entity"
    assert verdict(judge, key, "Tigrex, the same class as Glavenus", question=question).rule == "key-entity"


def test_entities_key_needs_all_and_no_rival(judge):
    key = AnswerKey("entities", ("prop.shock-trap", "prop.pitfall-trap"))
    question = "Which traps work on Zinogre?"
    assert verdict(judge, key, "Pitfall Trap and Shock Trap", question=question).rule == "key-entities"
    assert verdict(judge, key, "Shock Trap", question=question).rule == "key-missing"
    assert verdict(judge, key, "Shock Trap, Pitfall Trap, Flash Pod", question=question).rule == "key-rival"


@pytest.mark.parametrize("reply, accepted, rule", [
    ("Yes", True, "key-polarity"),
    ("Yes, an Explosive Slime patch stays at the pivot point.", True, "key-polarity"),
    ("Yeah, it will.", True, "key-polarity"),
    ("No", False, "key-polarity-wrong"),
    ("Yes/No", False, "key-hedge"),
    ("Yes (no)", False, "key-hedge"),
    ("Yes, or maybe no", False, "key-hedge"),
    ("Yes, no damage is taken while it lasts.", True, "key-polarity"),   # "no damage" is not a "No"
    ("It is safe.", False, "key-polarity-missing"),
    ("Yes No", False, "key-hedge"),
    ("Yes: Double Slam, Tail Slam, Heavy Tail Slam, Roar, Charged Phase, Lava Eruption, Fireblight, Ice",
     False, "key-claim"),
    ("Yes, because of the Fireblight.", False, "key-claim"),      # a reason the reference does not give
    ("Yes, the Thunderblight sets in.", True, "key-polarity"),    # the reference's own reason
    ("Yes, not from Fireblight but Thunderblight.", True, "key-polarity"),
])
def test_yes_no_key(judge, reply, accepted, rule):
    key = AnswerKey("yes_no", polarity="yes")
    got = verdict(judge, key, reply, question="Will it explode?", reference="Yes, with Thunderblight.")
    assert (got.accepted, got.rule) == (accepted, rule)


def test_yes_no_key_with_required_points(judge):
    key = AnswerKey("yes_no", polarity="no", entities=("element.ice",), nuggets=(("stygian",),))
    question = "Is Zinogre weak to Thunder like the Stygian one?"
    assert verdict(judge, key, "No, the Stygian one is weak to ice.", question=question).rule == "key-polarity"
    assert verdict(judge, key, "No.", question=question).rule == "key-point-missing"
    assert verdict(judge, key, "No, it is weak to ice.", question=question).rule == "key-nugget-missing"


def test_text_key_nuggets_and_rival_wordings(judge):
    key = AnswerKey("text", nuggets=(("fanged wyvern",),), rivals=("flying wyvern", "brute wyvern"))
    question = "To which class of monsters does Tigrex belong?"
    assert verdict(judge, key, "Fanged Wyverns", question=question).rule == "key-text"
    assert verdict(judge, key, "It is a fanged wyvern, not a flying wyvern.", question=question).accepted is True
    assert verdict(judge, key, "Flying Wyvern", question=question).rule == "key-nugget-missing"
    assert verdict(judge, key, "Fanged Wyvern or Flying Wyvern", question=question).rule == "key-rival"


def test_without_a_key_or_with_use_keys_off_the_text_rules_decide():
    nokey = ExactJudge(_graph(), use_keys=False)
    item = Judgement(ANSWER, "Which attack?", "Double Slam", "It does the Double Slam twice over.", "zinogre",
                     key=DOUBLE_SLAM)
    assert nokey.name == "exact-nokey" and nokey.judge(item).rule == "no_match"
    assert ExactJudge(_graph()).judge(item).rule == "key-entity"


def test_every_rule_is_listed(judge):
    from mhmmkg.eval.key_judge import ACCEPTED_RULES, REJECTED_RULES

    keys = [DOUBLE_SLAM, AnswerKey("yes_no", polarity="yes"), AnswerKey("text", nuggets=(("fanged",),))]
    replies = ["Double Slam", "Yes", "No", "Yes/No", "fanged", "Tail Slam or Double Slam", "Yes, the Fireblight", "It is"]
    for key in keys:
        for reply in replies:
            got = verdict(judge, key, reply)
            assert got.rule in (ACCEPTED_RULES if got.accepted else REJECTED_RULES)


def test_helpers():
    assert key_words("Fanged-Wyverns' class") == ["fanged", "wyvern", "class"]
    assert contains_wording(key_words("it is a fanged wyvern"), "Fanged Wyverns")
    assert not contains_wording(key_words("fanged"), "fanged wyvern")
    assert [polarity(t) for t in ("Nope.", "yes!", "It is", "")] == ["no", "yes", None, None]
    assert is_hedged("No (yes)", "no") and not is_hedged("No, no explosion", "no")


@pytest.mark.parametrize("key", [DOUBLE_SLAM, AnswerKey("entities", ("prop.shock-trap", "prop.pitfall-trap")),
                                 AnswerKey("yes_no", polarity="yes"), AnswerKey("yes_no", polarity="no"),
                                 AnswerKey("text", nuggets=(("fanged wyvern",),), rivals=("flying wyvern",))])
def test_listing_every_entity_or_both_polarities_never_wins(judge, key):
    everything = ", ".join(n for e in _graph().entities for n in e.names)
    for reply in (everything, f"Yes No {everything}", f"No Yes {everything}", f"Fanged Wyvern {everything}",
                  "Yes No", "No Yes", "Yes or no"):
        assert verdict(judge, key, reply).accepted is False, reply


def test_negating_every_other_entity_is_a_flood(judge):
    others = [n for e in _graph().entities if e.id != "zinogre.double-slam" for n in e.names]
    assert verdict(judge, DOUBLE_SLAM, "Double Slam, not " + ", not ".join(others)).rule == "key-flood"
    assert verdict(judge, AnswerKey("yes_no", polarity="yes"), "Yes, not " + ", not ".join(others)).rule == "key-flood"
