"""Questions-only import (the question list resolved against our KG) and malformed workbooks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import write_tiny_sources
from mhmmkg.cli import main
from mhmmkg.sources import load_sources

from official_release import QUESTION_HEADER, write_question_list, write_sheet

# Rows in the authors' layout against the tiny sources of conftest (monsters "Wolf", "Dark Wolf").
ROWS = [
    ("Wolf_Slam", None, None, "What is{} doing?", "Wolf", "{} is charged", "It slams twice.",
     "Wolf>Charged Phase>Double Slam", "Double Slam", 1),
    ("Wolf_Pure Text1", None, None, "What is{} weak to?", "Thunder Wolf", None, None,
     "Wolf>Ice Element", "Ice", 0),
    ("Wolf_Cross", None, None, "How does its subspecies slam?", "Wolf", None, "Red sparks.",
     "Wolf>Charged Phase>Double Slam;Wolf>Dark Wolf>Double Slam", "Red", 5),
    ("Wolf_Stop", None, None, "What stops{}?", "Wolf", None, "It flies.", "Wolf>Flash Pod", "Flash Pod", 4),
]


@pytest.fixture
def kg(tmp_path) -> Path:
    return write_tiny_sources(tmp_path / "kg")


def _import(tmp_path, kg, rows, *extra) -> tuple[int, Path]:
    xlsx = write_question_list(tmp_path / "q" / "question_list.xlsx", rows)
    out = tmp_path / "out"
    return main(["import-official", str(xlsx), "--kg", str(kg), "--out", str(out), *extra]), out


def test_questions_resolve_by_name_and_alias_and_the_output_is_a_buildable_sources_folder(tmp_path, kg, capsys):
    code, out = _import(tmp_path, kg, ROWS)
    assert code == 0
    assert "routes: 5/5 resolved to walks in the KG (100.0%)" in capsys.readouterr().out
    sources = load_sources(out)  # the KG of --kg, with the official queries instead of its own
    assert len(sources.entities) == len(load_sources(kg).entities)
    assert [q.id for q in sources.queries] == ["Wolf_Slam", "Wolf_Pure-Text1", "Wolf_Cross", "Wolf_Stop"]
    by_id = {q.id: q for q in sources.queries}
    assert by_id["Wolf_Slam"].paths == (("wolf", "wolf.charged-phase", "wolf.double-slam"),)
    assert by_id["Wolf_Pure-Text1"].monster == "wolf"  # "Thunder Wolf" is an alias
    assert by_id["Wolf_Cross"].paths[1] == ("wolf", "dark-wolf", "dark-wolf.double-slam")  # prefix switches to Dark Wolf
    assert by_id["Wolf_Stop"].paths == (("wolf", "prop.flash-pod"),)  # a shared prop under a monster prefix
    assert by_id["Wolf_Slam"].question == "What is{monster} doing?"  # kept as written: the official style needs it


def test_unresolved_and_non_walk_routes_fail_with_file_row_and_name(tmp_path, kg, capsys):
    rows = ROWS + [
        ("Wolf_Bad", None, None, "Q?", "Wolf", None, "p", "Wolf>Charged Phase>Tail Whip", "A", 1),
        ("Wolf_Jump", None, None, "Q?", "Wolf", None, "p", "Wolf>Spark Trail", "A", 4),
    ]
    code, out = _import(tmp_path, kg, rows)
    assert code == 2
    err = capsys.readouterr().err
    assert "question_list.xlsx:row 6: route 1 'Wolf>Charged Phase>Tail Whip': no entity named 'Tail Whip' in Wolf" in err
    assert "question_list.xlsx:row 7: route 1 'Wolf>Spark Trail': not a walk: no edge wolf -> wolf.spark" in err
    assert not out.exists()


def test_allow_unresolved_leaves_those_queries_out(tmp_path, kg, capsys):
    rows = ROWS + [("Wolf_Bad", None, None, "Q?", "Wolf", None, "p", "Wolf>Tail Whip;Wolf>Bite", "A", 1)]
    code, out = _import(tmp_path, kg, rows, "--allow-unresolved")
    assert code == 0
    captured = capsys.readouterr()
    assert "routes: 6/7 resolved" in captured.out and "queries: 4/5 rows imported" in captured.out
    assert "row 6: route 1 'Wolf>Tail Whip'" in captured.err and "(query left out)" in captured.err
    assert "Wolf_Bad" not in {q.id for q in load_sources(out).queries}


def test_a_built_dataset_as_kg_gives_a_queries_only_folder(tmp_path, tiny_dataset, capsys):
    code, out = _import(tmp_path, tiny_dataset, ROWS)
    assert code == 0
    assert "holds the queries only" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "queries"]
    doc = json.loads((out / "queries" / "official.json").read_text())
    assert len(doc["queries"]) == 4


def test_query_media_next_to_the_question_list_is_attached(tmp_path, kg):
    from media_factory import make_image, make_video

    folder = tmp_path / "q"
    make_image(folder / "Wolf_Slam" / "Slam" / "1.png")
    make_image(folder / "Wolf_Slam" / "Slam" / "2.png")
    make_video(folder / "Wolf_Slam" / "Slam.mp4", seconds=0.5)
    rows = [("Wolf_Slam", "Slam.mp4", "Slam", *ROWS[0][3:])] + ROWS[1:]
    code, out = _import(tmp_path, kg, rows)
    assert code == 0
    media = load_sources(out).query_media["Wolf_Slam"]
    assert [Path(p).name for p in media.keyframe_images] == ["1.png", "2.png"] and media.video.endswith("Slam.mp4")


@pytest.mark.parametrize("rows, header, expected", [
    (ROWS, QUESTION_HEADER[:7] + QUESTION_HEADER[8:], "row 1: no sheet has the question-list columns"),
    ([ROWS[0][:7] + ("Wolf>>Bite",) + ROWS[0][8:]], QUESTION_HEADER, "row 2: bad Search Route syntax: route 1 'Wolf>>Bite' has an empty node"),
    ([ROWS[0][:7] + ("Wolf>Bite;;Wolf>Bite",) + ROWS[0][8:]], QUESTION_HEADER, "row 2: bad Search Route syntax: route 2 is empty"),
    ([ROWS[0][:4] + ("Kirin",) + ROWS[0][5:]], QUESTION_HEADER, "row 2: unknown monster 'Kirin'"),
    ([ROWS[0][:9] + (7,)], QUESTION_HEADER, "row 2: Type must be a whole number 0..5"),
    ([ROWS[0][:7] + ("Dark Wolf>Double Slam",) + ROWS[0][8:]], QUESTION_HEADER,
     "row 2: route 1 'Dark Wolf>Double Slam' starts at 'Dark Wolf', not at the row's monster 'Wolf'"),
    ([ROWS[0][:8] + (None, 1)], QUESTION_HEADER, "row 2: empty Answer"),
])
def test_malformed_question_lists_end_in_exit_2_with_file_row_and_reason(tmp_path, kg, capsys, rows, header, expected):
    xlsx = write_question_list(tmp_path / "question_list.xlsx", rows, header)
    code = main(["import-official", str(xlsx), "--kg", str(kg), "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{xlsx}:{expected}" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_missing_columns_are_named(tmp_path, kg, capsys):
    xlsx = write_question_list(tmp_path / "question_list.xlsx", [r[:8] for r in ROWS], QUESTION_HEADER[:8])
    assert main(["import-official", str(xlsx), "--kg", str(kg), "--out", str(tmp_path / "out")]) == 2
    assert "missing column(s): Answer, Type" in capsys.readouterr().err


def test_the_question_sheet_may_follow_a_cover_sheet_but_not_be_absent(tmp_path, kg, capsys):
    xlsx = write_question_list(tmp_path / "question_list.xlsx", ROWS, title="Questions", extra_sheets=("Cover",))
    assert main(["import-official", str(xlsx), "--kg", str(kg), "--out", str(tmp_path / "out")]) == 0
    wrong = write_sheet(tmp_path / "wrong.xlsx", ("Name", "Image"), [("a", "b")], title="Nodes")
    assert main(["import-official", str(wrong), "--kg", str(kg), "--out", str(tmp_path / "out2")]) == 2
    assert "no sheet has the question-list columns in its first row (sheets: 'Nodes')" in capsys.readouterr().err


def test_an_unreadable_workbook_is_reported(tmp_path, kg, capsys):
    xlsx = tmp_path / "question_list.xlsx"
    xlsx.write_bytes(b"PK\x03\x04 truncated zip")
    assert main(["import-official", str(xlsx), "--kg", str(kg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{xlsx}: not a readable .xlsx workbook" in err and "Traceback" not in err


def test_a_repeated_file_gets_a_numbered_id_and_a_warning(tmp_path, kg, capsys):
    code, out = _import(tmp_path, kg, ROWS + [ROWS[0]])
    assert code == 0
    assert "repeats row 2" in capsys.readouterr().err
    assert [q.id for q in load_sources(out).queries][-1] == "Wolf_Slam-2"


def test_without_openpyxl_the_message_says_what_to_install(tmp_path, kg):
    import subprocess
    import sys

    xlsx = write_question_list(tmp_path / "question_list.xlsx", ROWS)
    code = ("import sys; sys.modules['openpyxl'] = None\n"
            "from mhmmkg.cli import main\n"
            f"sys.exit(main(['import-official', {str(xlsx)!r}, '--kg', {str(kg)!r}, '--out', {str(tmp_path / 'o')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "pip install 'mhmmkg[official]'" in done.stderr and "Traceback" not in done.stderr
