"""A tiny release in the authors' layout, written with openpyxl, for the official-import tests.

    mmkg/<Monster>/Node.xlsx        name, image file or folder, video, caption, context (by position)
    mmkg/<Monster>/Relations.xlsx   head, relation phrase, information, condition, tail (by position)
    mmkg/<Monster>/Knowledge_Images/ and Knowledge_Videos/
    questions_mh/question_list.xlsx and questions_mh/<File>/ media

It carries the quirks of the real files: blank rows and cells, a number as a name, stray spaces,
an image entry whose case differs from the file, image folders next to image files, shared
entities named without a monster prefix (elements, the Pierce Pod, the fourteen implicit ones),
a prop listed by two monsters, cross-monster routes and relations, a constraint inside a
relation phrase, a missing video.
"""
from __future__ import annotations

from pathlib import Path

import openpyxl

from media_factory import make_image, make_video

NODE_HEADER = ("Name", "Image", "Video", "Action Description", "Additional Information")
RELATION_HEADER = ("Head", "Relation", "Information", "Condition", "Tail")
QUESTION_HEADER = ("File", "Video", "Image", "Question", "Monster Name", "Extra Information",
                   "Perception", "Search Route", "Answer", "Type")

NODES = {
    "Zinogre": [
        ("Zinogre", "Zinogre.png", None, None, "A fanged wyvern that gathers thunderbugs."),
        ("Charged Phase", None, None, None, "Its back glows with bugs."),
        ("Double Slam", "Double Slam", "Double Slam.mp4", "Rears up and slams both paws twice.", "Deals thunder damage."),
        None,  # a blank row, as Excel keeps them
        ("Back Slam", "back slam.PNG", None, "Flips over onto its back.", None),
        ("  Bite ", None, None, "Snaps forward.", ""),
        (360, None, None, "Spins a full circle.", None),
        ("Thunder Element", None, None, None, "Lightning damage."),
        ("Flash Pod", None, None, None, "Blinds it while it flies."),
        ("Ghost Move", None, "Ghost Move.mp4", "Never filmed.", None),
    ],
    "Stygian Zinogre": [
        ("Stygian Zinogre", None, None, None, "A subspecies charged with dragon energy."),
        ("Charged Phase", None, None, None, "Red dragon glow."),
        ("Double Slam", "Double Slam.png", None, "Slams twice with red sparks.", None),
        ("Flash Pod", None, None, "A flash of light.", None),
    ],
}

RELATIONS = {
    "Zinogre": [
        ("Zinogre", "has attack phase", None, None, "Charged Phase"),
        ("Charged Phase", "has attack action", None, None, "Double Slam"),
        ("Zinogre", "has attack action", None, None, "Bite"),
        ("Zinogre", "has attack action", None, None, "Back Slam"),
        ("Zinogre", "has attack action", None, None, 360),
        None,
        ("Double Slam", "continues with", "Two slams, then the flip.", "if the hunter is behind it", "Back Slam"),
        ("Double Slam", "continues with", None, None, "Bite"),
        ("Back Slam", "continues with (when enraged)", None, None, "Double Slam"),
        ("Double Slam", "generates", None, None, "Spark Trail"),
        ("Zinogre", "is mostly weak to", None, None, "Ice Element"),
        ("Zinogre", "is weak to", None, None, "Fire Element Weapon"),
        ("Zinogre", "is resistant to", None, None, "Thunder Element"),
        ("Zinogre", "can be stopped by", None, "while it flies", "Flash Pod"),
        ("Zinogre", "has subspecies", None, None, "Stygian Zinogre"),
    ],
    "Stygian Zinogre": [
        ("Stygian Zinogre", "is subspecies of", None, None, "Zinogre"),
        ("Stygian Zinogre", "has attack phase", None, None, "Charged Phase"),
        ("Charged Phase", "has attack action", None, None, "Double Slam"),
        ("Stygian Zinogre", "can be stopped by", None, None, "Flash Pod"),
        ("Stygian Zinogre", "can be stopped by", None, None, "Pierce Pod"),
        ("Stygian Zinogre", "is weak to", None, None, "Dragon Element"),
    ],
}

QUESTIONS = [
    # File, Video, Image, Question, Monster Name, Extra, Perception, Search Route, Answer, Type
    ("Zinogre_Double Slam", "Double Slam Start.mp4", "Double Slam Start", "What will{} do next?", "Zinogre",
     "{} is under Charged Phase", "It rears up on its hind legs.",
     "Zinogre>Charged Phase>Double Slam>Back Slam", "Back Slam", 2),
    ("Zinogre_Pure Text1", None, None, "Which element is{} weak to?", "Zinogre", None, None,
     "Zinogre>Ice Element;Zinogre>Fire Element Weapon;", "Ice", 0),
    ("Zinogre_Subspecies", None, "frame.png", "How does {}'s subspecies do this attack?", "Zinogre", None,
     "Slams twice.", "Zinogre>Charged Phase>Double Slam;Zinogre>Stygian Zinogre>Charged Phase>Double Slam",
     "With red sparks", 5),
    ("Stygian Zinogre_Stop", None, "Stop Frames", "What stops{}?", "Stygian Zinogre", "{}' back glows red.",
     "It glows red.", "Stygian Zinogre>Flash Pod;Stygian Zinogre>Pierce Pod", "A Flash Pod or a Pierce Pod", 4),
    ("Zinogre_Count", None, None, "How many slams does{} make?", "Zinogre", None, None,
     "Zinogre>Charged Phase>Double Slam", 2, 1.0),
]

#: The graph the fixture must become: entity id -> (name, type, owning monster).
EXPECTED_ENTITIES = {
    "zinogre": ("Zinogre", "monster", "zinogre"),
    "zinogre.charged-phase": ("Charged Phase", "attack_phase", "zinogre"),
    "zinogre.double-slam": ("Double Slam", "attack_action", "zinogre"),
    "zinogre.back-slam": ("Back Slam", "attack_action", "zinogre"),
    "zinogre.bite": ("Bite", "attack_action", "zinogre"),
    "zinogre.360": ("360", "attack_action", "zinogre"),
    "zinogre.ghost-move": ("Ghost Move", "attack_action", "zinogre"),
    "zinogre.spark-trail": ("Spark Trail", "attack_effect", "zinogre"),
    "stygian-zinogre": ("Stygian Zinogre", "monster", "stygian-zinogre"),
    "stygian-zinogre.charged-phase": ("Charged Phase", "attack_phase", "stygian-zinogre"),
    "stygian-zinogre.double-slam": ("Double Slam", "attack_action", "stygian-zinogre"),
    "prop.flash-pod": ("Flash Pod", "prop", None),
    "prop.pierce-pod": ("Pierce Pod", "prop", None),
    "element.thunder": ("Thunder Element", "element", None),
    "element.fire": ("Fire Element", "element", None),
    "element.water": ("Water Element", "element", None),
    "element.ice": ("Ice Element", "element", None),
    "element.dragon": ("Dragon Element", "element", None),
    "element.sleep": ("Sleep Element", "element", None),
    "weapon.non-elemental": ("None Element Weapon", "weapon", None),
    "weapon.fire": ("Fire Element Weapon", "weapon", None),
    "weapon.water": ("Water Element Weapon", "weapon", None),
    "weapon.thunder": ("Thunder Element Weapon", "weapon", None),
    "weapon.ice": ("Ice Element Weapon", "weapon", None),
    "weapon.dragon": ("Dragon Element Weapon", "weapon", None),
    "weapon.blast": ("Blast Element Weapon", "weapon", None),
    "weapon.poison": ("Poison Element Weapon", "weapon", None),
}

#: (head, type, tail, label, condition, info) of every relation.
EXPECTED_RELATIONS = {
    ("zinogre", "has_attack_phase", "zinogre.charged-phase", "has attack phase", None, None),
    ("zinogre.charged-phase", "has_attack_action", "zinogre.double-slam", "has attack action", None, None),
    ("zinogre", "has_attack_action", "zinogre.bite", "has attack action", None, None),
    ("zinogre", "has_attack_action", "zinogre.back-slam", "has attack action", None, None),
    ("zinogre", "has_attack_action", "zinogre.360", "has attack action", None, None),
    ("zinogre.double-slam", "continues_with", "zinogre.back-slam", "continues with", "if the hunter is behind it",
     "Two slams, then the flip."),
    ("zinogre.double-slam", "continues_with", "zinogre.bite", "continues with", None, None),
    ("zinogre.back-slam", "continues_with", "zinogre.double-slam", "continues with", "when enraged", None),
    ("zinogre.double-slam", "generates", "zinogre.spark-trail", "generates", None, None),
    ("zinogre", "mostly_weak_to", "element.ice", "is mostly weak to", None, None),
    ("zinogre", "weak_to", "weapon.fire", "is weak to", None, None),
    ("zinogre", "resistant_to", "element.thunder", "is resistant to", None, None),
    ("zinogre", "can_be_stopped_by", "prop.flash-pod", "can be stopped by", "while it flies", None),
    ("zinogre", "has_subspecies", "stygian-zinogre", "has subspecies", None, None),
    ("stygian-zinogre", "subspecies_of", "zinogre", "is subspecies of", None, None),
    ("stygian-zinogre", "has_attack_phase", "stygian-zinogre.charged-phase", "has attack phase", None, None),
    ("stygian-zinogre.charged-phase", "has_attack_action", "stygian-zinogre.double-slam", "has attack action", None, None),
    ("stygian-zinogre", "can_be_stopped_by", "prop.flash-pod", "can be stopped by", None, None),
    ("stygian-zinogre", "can_be_stopped_by", "prop.pierce-pod", "can be stopped by", None, None),
    ("stygian-zinogre", "weak_to", "element.dragon", "is weak to", None, None),
}

EXPECTED_PATHS = {
    "Zinogre_Double-Slam": [["zinogre", "zinogre.charged-phase", "zinogre.double-slam", "zinogre.back-slam"]],
    "Zinogre_Pure-Text1": [["zinogre", "element.ice"], ["zinogre", "weapon.fire"]],
    "Zinogre_Subspecies": [["zinogre", "zinogre.charged-phase", "zinogre.double-slam"],
                           ["zinogre", "stygian-zinogre", "stygian-zinogre.charged-phase", "stygian-zinogre.double-slam"]],
    "Stygian-Zinogre_Stop": [["stygian-zinogre", "prop.flash-pod"], ["stygian-zinogre", "prop.pierce-pod"]],
    "Zinogre_Count": [["zinogre", "zinogre.charged-phase", "zinogre.double-slam"]],
}


def write_sheet(path: Path, header, rows, *, title: str = "Sheet1", extra_sheets=()) -> Path:
    """One workbook; ``None`` rows are left blank, so row numbers match what Excel shows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    workbook = openpyxl.Workbook()
    for name in extra_sheets:
        workbook.create_sheet(name).append(("cover page",))
    sheet = workbook.active
    sheet.title = title
    if header is not None:
        sheet.append(header)
    for n, row in enumerate(rows, start=2 if header is not None else 1):
        for col, value in enumerate(row or (), start=1):
            if value is not None:
                sheet.cell(row=n, column=col, value=value)
    workbook.save(path)
    return path


def write_question_list(path: Path, rows=QUESTIONS, header=QUESTION_HEADER, **kwargs) -> Path:
    return write_sheet(path, header, rows, **kwargs)


def write_release(root: Path, *, questions=QUESTIONS, with_media: bool = True) -> Path:
    """The whole tiny release under ``root``; returns ``root``."""
    for monster, rows in NODES.items():
        base = root / "mmkg" / monster
        write_sheet(base / "Node.xlsx", NODE_HEADER, rows)
        write_sheet(base / "Relations.xlsx", RELATION_HEADER, RELATIONS[monster])
    write_question_list(root / "questions_mh" / "question_list.xlsx", questions)
    if with_media:
        write_media(root)
    return root


def write_media(root: Path) -> None:
    images = root / "mmkg" / "Zinogre" / "Knowledge_Images"
    make_image(images / "Zinogre.png", color=(20, 60, 200))
    for i in (1, 2, 10):  # natural order: 1, 2, 10
        make_image(images / "Double Slam" / f"frame{i}.png", color=(10 * i, 100, 100))
    make_image(images / "Back Slam.png", color=(90, 90, 20))
    make_video(root / "mmkg" / "Zinogre" / "Knowledge_Videos" / "Double Slam.mp4", seconds=1.0)
    make_image(root / "mmkg" / "Stygian Zinogre" / "Knowledge_Images" / "Double Slam.png", color=(200, 0, 0))
    query = root / "questions_mh"
    for i in range(12):  # more frames than the 10 keyframes a query may keep
        make_image(query / "Zinogre_Double Slam" / "Double Slam Start" / f"{i}.png", color=(i * 20, 0, 0))
    make_video(query / "Zinogre_Double Slam" / "Double Slam Start.mp4", seconds=1.0)
    make_image(query / "Zinogre_Subspecies" / "frame.png", fmt="PNG")
    make_image(query / "Stygian Zinogre_Stop" / "Stop Frames" / "a.jpg", color=(5, 5, 5))
