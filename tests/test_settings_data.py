"""Settings as data: every list of settings is read from the one declaration (``mhmmkg.settings``),
and gives what the separate copies gave before."""
from __future__ import annotations

from pathlib import Path

from mhmmkg import demo
from mhmmkg.baseline import settings as baseline_settings
from mhmmkg.eval import import_results
from mhmmkg.eval.html_report import reported
from mhmmkg.benchmark.official_protocol import ANSWER_ONLY_SETTINGS, OFFICIAL_MODES
from mhmmkg.benchmark.settings import SETTINGS


def test_the_lists_read_from_the_declaration_are_those_of_before():
    paper_order = ("vanilla", "vanilla_plus", "know", "perceptive", "unaided_offline", "unaided_online")
    assert tuple(SETTINGS) == paper_order == reported.SETTINGS == import_results.SETTINGS
    assert ANSWER_ONLY_SETTINGS == ("vanilla", "vanilla_plus", "know")
    assert OFFICIAL_MODES == {"Direct Vision-needed": "vanilla", "Direct": "vanilla_plus", "Perfect": "know",
                              "self Search": "perceptive", "Offline": "unaided_offline",
                              "Online Vision-needed": "unaided_online"}
    assert demo.SETTINGS == ("know", "perceptive")
    assert baseline_settings.SETTINGS is SETTINGS and baseline_settings.Setting is type(SETTINGS["know"])


def test_the_authors_mode_names_are_read_both_ways():
    assert import_results.setting_name("self-search") == "perceptive"
    assert import_results.setting_name("Online Vision-needed") == "unaided_online"
    assert [import_results.infer_run(Path(f"gpt-4o_{s.official_mode}.json"))
            for s in SETTINGS.values()] == [(name, "gpt-4o") for name in SETTINGS]
