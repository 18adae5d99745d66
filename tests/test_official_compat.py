"""The curators' route compatibility report: python -m mhmmkg.builders.official.compat XLSX KG [--monster NAME]."""
from __future__ import annotations

from mhmmkg.builders.official.compat import main

from official_release import write_question_list

ROWS = [
    ("Wolf_Slam", None, None, "Q{}?", "Wolf", None, "p", "Wolf>Charged Phase>Double Slam", "A", 1),
    ("Wolf_Bad", None, None, "Q{}?", "Wolf", None, "p", "Wolf>Tail Whip;Wolf>Spark Trail", "A", 1),
    ("Dark_Slam", None, None, "Q{}?", "Dark Wolf", None, "p", "Dark Wolf>Double Slam;Dark Wolf>Wolf>Double Slam", "A", 1),
]


def test_report_lists_each_failing_route_and_the_rate(tmp_path, tiny_sources, capsys):
    xlsx = write_question_list(tmp_path / "question_list.xlsx", ROWS)
    assert main([str(xlsx), str(tiny_sources)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "row 3 [Wolf] Wolf>Tail Whip: no entity named 'Tail Whip' in Wolf (under Wolf)",
        "row 3 [Wolf] Wolf>Spark Trail: not a walk: no edge wolf -> wolf.spark",
        "row 4 [Dark Wolf] Dark Wolf>Wolf>Double Slam: not a walk: no edge wolf -> wolf.double-slam",
        "2/5 official routes are walks in the KG (40.0%)",
    ]


def test_one_monster_only(tmp_path, tiny_sources, capsys):
    xlsx = write_question_list(tmp_path / "question_list.xlsx", ROWS)
    assert main([str(xlsx), str(tiny_sources), "--monster", "Wolf"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "1/3 official routes are walks in the KG (33.3%)"
    assert main([str(xlsx), str(tiny_sources), "--monster", "Dark Wolf"]) == 1


def test_a_bad_kg_folder_is_a_message_not_a_traceback(tmp_path, capsys):
    xlsx = write_question_list(tmp_path / "question_list.xlsx", ROWS)
    (tmp_path / "empty").mkdir()
    assert main([str(xlsx), str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert "compat: error:" in err and "not a built dataset folder" in err
