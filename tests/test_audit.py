"""``mhmmkg audit``: the KG against game tables the test writes, near-copy captions, and the
recognition shortcut, on the tiny sources."""
from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import pytest

from conftest import TINY_DARK_WOLF, TINY_QUERIES, TINY_SHARED, TINY_WOLF, write_json, write_tiny_sources
from mhmmkg.builders.audit.captions import near_copies, similarity
from mhmmkg.builders.audit.cli import audit
from mhmmkg.builders.audit.reference import Form, element_relations
from mhmmkg.cli import main
from mhmmkg.graph import KnowledgeGraph
from mhmmkg.shortcut import recognition_shortcut
from mhmmkg.sources import load_sources

WEAK = "mhworlddata:monster_weaknesses.csv"
AILMENTS = "mhworlddata:monster_ailments.csv"
BASE = "mhworlddata:monster_base.csv"
ELEMENT_COLUMNS = ["fire", "water", "thunder", "ice", "dragon", "poison", "sleep", "paralysis", "blast", "stun"]


def write_tables(folder: Path, wolf_traps=("TRUE", "TRUE")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)

    def write(name, header, rows):
        with (folder / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows(rows)

    write("monster_base.csv", ["id", "name_en", "ecology_en", "size", "pitfall_trap", "shock_trap", "vine_trap"], [
        [1, "Wolf", "Fanged Wyvern", "large", *wolf_traps, "TRUE"],
        [2, "Dark Wolf", "Fanged Wyvern", "large", "TRUE", "TRUE", "TRUE"],
    ])
    write("monster_weaknesses.csv", ["name_en", "form", "alt_description", *ELEMENT_COLUMNS], [
        ["Wolf", "normal", "", 1, 2, 0, 3, 1, 2, 2, 1, 2, 2],
        ["Dark Wolf", "normal", "", 3, 1, 1, 1, 1, 2, 2, 2, 3, 2],
        ["Dark Wolf", "alt", "when glowing", 0, 3, 1, 1, 1, "", "", "", "", ""],
    ])
    write("monster_ailments.csv", ["base_name_en", "roar", "wind", "tremor", "fireblight", "thunderblight", "bleed"], [
        ["Wolf", "large", "", "", "", "", ""],
        ["Dark Wolf", "", "", "", "", "", ""],
    ])
    return folder


def agreeing_sources(root: Path) -> Path:
    """The tiny sources edited until they agree with ``write_tables``."""
    write_tiny_sources(root)
    shared = copy.deepcopy(TINY_SHARED)
    shared["entities"] += [
        {"id": "element.water", "name": "Water Element", "type": "element", "text": "Soaks."},
        {"id": "element.thunder", "name": "Thunder Element", "type": "element", "text": "Shocks."},
        {"id": "effect.roar", "name": "Roar", "type": "attack_effect", "text": "Hunters cover their ears."},
    ]
    wolf = copy.deepcopy(TINY_WOLF)
    wolf["entities"][0]["text"] += " It is a Fanged Wyvern."
    wolf["entities"][0]["sources"] = [BASE]
    wolf["entities"].append({"id": "wolf.howl", "name": "Howl", "type": "attack_action", "caption": "Throws its head back and howls at the sky."})
    wolf["relations"] = [r for r in wolf["relations"] if r["type"] != "mostly_weak_to"] + [
        {"head": "wolf", "type": "mostly_weak_to", "tail": "element.ice", "sources": [WEAK]},
        {"head": "wolf", "type": "weak_to", "tail": "element.water", "sources": [WEAK]},
        {"head": "wolf", "type": "resistant_to", "tail": "element.thunder", "sources": [WEAK]},
        {"head": "wolf", "type": "has_attack_action", "tail": "wolf.howl"},
        {"head": "wolf.howl", "type": "causes", "tail": "effect.roar", "sources": [AILMENTS]},
        {"head": "wolf", "type": "can_be_stopped_by", "tail": "prop.pitfall-trap", "sources": [BASE]},
    ]
    shared["entities"].append({"id": "prop.pitfall-trap", "name": "Pitfall Trap", "type": "prop", "text": "A hole."})
    dark = copy.deepcopy(TINY_DARK_WOLF)
    dark["entities"][0]["text"] = "A Fanged Wyvern, subspecies of the Wolf."
    dark["entities"][0]["sources"] = [BASE]
    dark["relations"] = [r for r in dark["relations"] if r["type"] != "weak_to"] + [
        {"head": "dark-wolf", "type": "mostly_weak_to", "tail": "element.fire", "sources": [WEAK]},
        {"head": "dark-wolf", "type": "weak_to", "tail": "element.blast", "sources": [WEAK]},
        {"head": "dark-wolf", "type": "mostly_weak_to", "tail": "element.water", "condition": "When GLOWING red", "sources": [WEAK]},
        {"head": "dark-wolf", "type": "resistant_to", "tail": "element.fire", "condition": "when glowing", "sources": [WEAK]},
    ]
    shared["entities"].append({"id": "element.blast", "name": "Blast Element", "type": "element", "text": "Explodes."})
    queries = copy.deepcopy(TINY_QUERIES)
    queries["queries"][0].update(question="Which class does {monster} belong to?", answer="fanged wyvern")
    write_json(root / "shared.json", shared)
    write_json(root / "monsters" / "wolf.json", wolf)
    write_json(root / "monsters" / "dark-wolf.json", dark)
    write_json(root / "queries" / "wolf.json", queries)
    return root


@pytest.mark.parametrize("stars, expected", [
    ({"fire": 1, "water": 2, "thunder": 0, "ice": 3, "dragon": 1},
     {("mostly_weak_to", "element.ice"), ("weak_to", "element.water"), ("resistant_to", "element.thunder")}),
    ({"fire": 3, "water": 3, "thunder": 2, "ice": 1, "dragon": 0},
     {("mostly_weak_to", "element.fire"), ("mostly_weak_to", "element.water"), ("weak_to", "element.thunder"),
      ("resistant_to", "element.dragon")}),
    ({"fire": 0, "water": 0, "thunder": 1, "ice": 0, "dragon": 0},   # a best element of one star is still the best
     {("mostly_weak_to", "element.thunder"), *(("resistant_to", f"element.{e}") for e in ("fire", "water", "ice", "dragon"))}),
])
def test_the_star_rule(stars, expected):
    assert element_relations(Form("normal", {**stars, "poison": None, "sleep": None, "paralysis": None, "blast": None})) == expected


def test_sources_that_follow_the_rules_agree(tmp_path):
    findings = audit(agreeing_sources(tmp_path / "src"), write_tables(tmp_path / "tables"))
    assert findings["table_disagreements"] == []


def edit(root: Path, file: str, change) -> None:
    path = root / file
    doc = json.loads(path.read_text("utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), "utf-8")


def relation(doc, **match):
    return next(r for r in doc["relations"] if all(r.get(k) == v for k, v in match.items()))


@pytest.mark.parametrize("file, change, expected", [
    ("monsters/wolf.json", lambda d: relation(d, tail="element.water").update(type="mostly_weak_to"),
     ["wolf: mostly_weak_to element.water: wrong: the table gives 2 star(s)",
      "wolf: weak_to element.water: missing: the table gives 2 star(s)"]),
    ("monsters/wolf.json", lambda d: d["relations"].remove(relation(d, tail="element.thunder")),
     ["wolf: resistant_to element.thunder: missing: the table gives 0 star(s)"]),
    ("monsters/wolf.json", lambda d: d["relations"].append({"head": "wolf", "type": "weak_to", "tail": "element.fire", "sources": [WEAK]}),
     ["wolf: weak_to element.fire: wrong: the table gives 1 star(s)"]),
    ("monsters/wolf.json", lambda d: relation(d, tail="element.ice").update(condition="when enraged"),
     ["wolf: mostly_weak_to element.ice: missing: the table gives 3 star(s)",
      "wolf: mostly_weak_to element.ice (when enraged): the condition names no state of the weakness table (states: none)"]),
    ("monsters/dark-wolf.json", lambda d: d["relations"].remove(relation(d, tail="element.fire", condition="when glowing")),
     ["dark-wolf: resistant_to element.fire (when glowing): missing: the table gives 0 star(s)"]),
    ("monsters/dark-wolf.json", lambda d: relation(d, tail="element.blast").update(type="resistant_to"),
     ["dark-wolf: resistant_to element.blast: wrong: the table gives 3 star(s) (weak_to needs 3, resistant_to 0)"]),
    ("monsters/wolf.json", lambda d: d["relations"].remove(relation(d, tail="effect.roar")),
     ["wolf: causes effect.roar: missing: the table lists it, but no move of the monster causes it"]),
    ("monsters/wolf.json", lambda d: d["relations"].append({"head": "wolf.bite", "type": "causes", "tail": "effect.fireblight", "sources": [AILMENTS]}),
     ["wolf: causes effect.fireblight: wrong: the table does not list it (caused by wolf.bite)"]),
    ("monsters/wolf.json", lambda d: relation(d, tail="effect.roar").pop("sources"),
     ["wolf: wolf.howl causes effect.roar: does not cite mhworlddata:monster_ailments.csv"]),
    ("monsters/wolf.json", lambda d: d["entities"][0].update(text="A wolf."),
     ["wolf: class: the monster's text does not name its class 'Fanged Wyvern'"]),
    ("queries/wolf.json", lambda d: d["queries"][0].update(answer="Flying Wyvern"),
     ["wolf: query wolf-001: answers 'Flying Wyvern', the table's class is 'Fanged Wyvern'"]),
])
def test_each_kind_of_disagreement_is_named(tmp_path, file, change, expected):
    src = agreeing_sources(tmp_path / "src")
    edit(src, file, change)
    assert audit(src, write_tables(tmp_path / "tables"))["table_disagreements"] == expected


def test_a_trap_the_game_rules_out(tmp_path):
    findings = audit(agreeing_sources(tmp_path / "src"), write_tables(tmp_path / "tables", wolf_traps=("", "TRUE")))
    assert findings["table_disagreements"] == [
        "wolf: wolf can_be_stopped_by prop.pitfall-trap: wrong: the table says this trap does not work on it"]


def test_a_monster_missing_from_the_tables(tmp_path):
    src = agreeing_sources(tmp_path / "src")
    edit(src, "monsters/wolf.json", lambda d: d["entities"][0].update(name="Moon Wolf"))
    assert "wolf: monster: 'Moon Wolf' is not in the game tables" in audit(src, write_tables(tmp_path / "tables"))["table_disagreements"]


def tiny_kg(root: Path) -> KnowledgeGraph:
    sources = load_sources(root)
    return KnowledgeGraph(sources.entities.values(), sources.relations)


def test_near_copies_within_a_monster_and_across_species_but_not_within_one(tmp_path):
    src = write_tiny_sources(tmp_path / "src")
    caption = "Rears up on its hind legs and slams both forepaws into the ground twice in a row."
    edit(src, "monsters/wolf.json", lambda d: d["entities"][2].update(caption=caption))
    edit(src, "monsters/wolf.json", lambda d: d["entities"][4].update(caption=caption.replace("twice", "three times")))
    edit(src, "monsters/dark-wolf.json", lambda d: d["entities"][1].update(caption=caption))
    pairs = {(n.first, n.second) for n in near_copies(tiny_kg(src))}
    assert pairs == {("wolf.bite", "wolf.double-slam")}   # dark-wolf is the wolf's subspecies: exempt
    edit(src, "monsters/dark-wolf.json", lambda d: d.update(relations=[r for r in d["relations"] if r["type"] != "subspecies_of"]))
    edit(src, "monsters/wolf.json", lambda d: d.update(relations=[r for r in d["relations"] if r["type"] != "has_subspecies"]))
    edit(src, "queries/wolf.json", lambda d: d.update(queries=[q for q in d["queries"] if q["subtask"] != 6]))
    pairs = {(n.first, n.second) for n in near_copies(tiny_kg(src))}
    assert ("dark-wolf.double-slam", "wolf.double-slam") in pairs and ("dark-wolf.double-slam", "wolf.bite") in pairs
    assert similarity("Snaps its jaws.", "Swings its tail in a wide circle.") < 0.6


def test_recognition_shortcut_counts_scenes_that_reword_the_caption(tmp_path):
    src = write_tiny_sources(tmp_path / "src")
    sources = load_sources(src)
    kg = tiny_kg(src)
    reworded = recognition_shortcut(kg, sources.queries)
    assert reworded.measured == ("wolf-002",) and reworded.first == ("wolf-002",) and reworded.share() == 1.0
    assert reworded.share("char_tfidf", 1) == 1.0
    edit(src, "queries/wolf.json", lambda d: d["queries"][1].update(perception="The hunter is thrown back as the screen shakes."))
    viewer = recognition_shortcut(kg, load_sources(src).queries)
    assert viewer.first == () and viewer.share() == 0.0 and viewer.share("char_tfidf", 1) == 0.0
    assert viewer.share("bm25", 3) == 1.0   # three attacks: any rank is in the top 3


def test_character_ngrams_match_inflections_that_words_miss():
    from mhmmkg.bm25 import BM25
    from mhmmkg.tfidf import CharTfidf

    captions = ["Slamming its forepaws repeatedly.", "Sweeps its tail around in a circle."]
    scene = "It slams with the paws."
    assert BM25(captions).scores(scene) == [0.0, 0.0]   # no word in common
    first, second = CharTfidf(captions).scores(scene)
    assert first > second >= 0.0
    assert CharTfidf(captions).scores(captions[1])[1] == pytest.approx(1.0)


def test_rank_counts_ties_against_the_answer():
    from mhmmkg.shortcut import rank_of

    assert rank_of([0.5, 0.2, 0.1], 0) == 1
    assert rank_of([0.5, 0.5, 0.1], 0) == 2
    assert rank_of([0.1, 0.5, 0.3], 0) == 3


def test_cli_exit_codes_and_report(tmp_path, capsys):
    src = agreeing_sources(tmp_path / "src")
    tables = write_tables(tmp_path / "tables")
    assert main(["audit", str(src), "--tables", str(tables)]) == 1   # the tiny scene rewords its caption
    out = capsys.readouterr().out
    assert "Game tables: 0 disagreement(s)" in out
    assert "BM25 top-1 100.0%, top-3 100.0%; char n-gram TF-IDF top-1 100.0%" in out and "over it: bm25, char_tfidf" in out
    edit(src, "queries/wolf.json", lambda d: d["queries"][1].update(perception="The hunter is thrown back as the screen shakes."))
    assert main(["audit", str(src), "--tables", str(tables)]) == 0
    assert main(["audit", str(src), "--tables", str(tmp_path / "nowhere")]) == 2
    assert "monster_base.csv: cannot read the reference table" in capsys.readouterr().err
    assert main(["audit", str(src), "--tables", str(tables), "--json", "--monster", "dark-wolf"]) == 0
    assert json.loads(capsys.readouterr().out)["recognition_shortcut"]["measured"] == 0


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """``mhmmkg audit | head``: the pipe closes early; no traceback, exit 141 as a shell reports it."""
    import subprocess
    import sys

    src = agreeing_sources(tmp_path / "src")
    code = ("import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1)\n"
            "from mhmmkg.cli import main\n"
            f"sys.exit(main(['audit', {str(src)!r}, '--tables', {str(write_tables(tmp_path / 'tables'))!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
