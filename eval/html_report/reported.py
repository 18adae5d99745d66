"""The published numbers, shown beside a report's runs as reference rows: reported, never re-run.

Source: the MH-MMKG paper, Table 3 (Acc. for Vanilla, Vanilla+ and Know.; Acc., Pre. and Rec.
for Perceptive, Unaided-Offline and Unaided-Online). The paper's model names are kept; where
the text extraction reads "o" as "0" the name is corrected: GPT-4o and GPT-4o mini (the paper
lists gpt-4o-2024-11-20), Step-1o and MiniCPM-o-2.6 (the models' published names). Human rows
give only Vanilla and Unaided-Online. Every number was checked against the paper's text.
"""
from __future__ import annotations

from typing import NamedTuple

from mhmmkg.benchmark.settings import SETTINGS as DECLARED

CITATION = "reported in the paper, Table 3"

#: the paper's column order: settings of this package (declared in that order)
SETTINGS = tuple(DECLARED)


class ReportedRow(NamedTuple):
    model: str
    setting: str
    acc: float
    precision: float | None = None
    recall: float | None = None


def _rows(model: str, vanilla, vanilla_plus, know, perceptive, offline, online) -> list[ReportedRow]:
    rows = []
    for setting, value in zip(SETTINGS, (vanilla, vanilla_plus, know, perceptive, offline, online)):
        if value is None:
            continue
        rows.append(ReportedRow(model, setting, *value) if isinstance(value, tuple) else ReportedRow(model, setting, value))
    return rows


TABLE_3: tuple[ReportedRow, ...] = tuple(row for rows in (
    _rows("GPT-4o", .3361, .4033, .9076, (.7353, .4545, .6667), (.4412, .2500, .4406), (.5420, .2715, .5881)),
    _rows("GPT-4o mini", .3193, .3697, .8361, (.6260, .2821, .4952), (.4243, .1643, .4434), (.3781, .1522, .2835)),
    _rows("Claude 3.7 Sonnet", .2941, .3403, .9245, (.7017, .5681, .6254), (.3950, .3002, .3591), (.4538, .3069, .4624)),
    _rows("Claude 3.5 Sonnet", .3151, .3571, .8823, (.7142, .5653, .6318), (.4160, .3335, .4252), (.4075, .2419, .3591)),
    _rows("Claude 3.5 Haiku", .2605, .3151, .8823, (.6344, .3334, .4463), (.3781, .1945, .2720), (.3907, .1669, .3161)),
    _rows("Gemini 2.0 Flash", .1890, .2689, .8361, (.6596, .3531, .6187), (.3823, .1838, .4070), (.4159, .1969, .4367)),
    _rows("Gemini 1.5 Pro", .2394, .2521, .8697, (.6932, .4939, .6149), (.2899, .1634, .2183), (.4075, .2156, .4406)),
    _rows("Step-1o", .2436, .2815, .8235, (.5747, .4372, .5095), (.3025, .1831, .2483), (.3403, .2204, .2987)),
    _rows("InternVL2.5-78B-MPO", .1596, .3487, .8949, (.6596, .4233, .5076), (.3781, .2027, .3007), (.3361, .1591, .3235)),
    _rows("Qwen2.5-VL-72B", .1512, .2731, .8613, (.5084, .3284, .3783), (.3025, .1622, .1724), (.2394, .1463, .1839)),
    _rows("Ovis2-16B", .1974, .3613, .8655, (.5966, .3286, .4406), (.2521, .1141, .2817), (.2863, .1086, .3122)),
    _rows("MiniCPM-o-2.6", .2058, .2857, .8025, (.4495, .1761, .2534), (.2058, .0590, .1609), (.2643, .0594, .2268)),
    _rows("DeepSeek-VL2-Small", .1344, .2226, .7100, (.3058, .0762, .0951), (.1890, .0603, .0484), (.1512, .0363, .0373)),
    _rows("Human (knowledgeable)", .5252, None, None, None, None, (.9033, .9207, .8535)),
    _rows("Human (random)", .0336, None, None, None, None, (.6092, .7113, .6457)),
) for row in rows)


def reported_for(settings: set[str]) -> list[ReportedRow]:
    """The paper's rows for the settings a report shows, in the paper's order."""
    return [row for row in TABLE_3 if row.setting in settings]
