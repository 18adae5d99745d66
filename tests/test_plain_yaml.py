"""The card's front matter read without PyYAML agrees with PyYAML, or leaves the text to it."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
import yaml

from mhmmkg.dataset.loading import _card_configs
from mhmmkg.dataset.plain_yaml import read_plain
from mhmmkg.errors import UserError


def _yaml(text: str):
    """As the loader reads a header PyYAML reads."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _header(card: Path) -> str:
    text = card.read_text(encoding="utf-8")
    return text[4:text.find("\n---", 4)]


def _dump(value) -> str:
    """As the builder writes its card's header."""
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=1000).removesuffix("\n")


def test_the_builders_card_is_read_as_pyyaml_reads_it(tiny_dataset):
    header = _header(tiny_dataset / "README.md")
    assert read_plain(header) is not None
    assert read_plain(header) == _yaml(header)


PLAIN_WORDS = ["queries", "data/graph/kg-0b5cd7d82f17.parquet", "cc-by-4.0", "100K<n<1M", "n<1K", "1M<n<10M",
               0, 12958811, True, False, None, "y", "n", "inf", "nan", "e5", "_x", "int32", "a+b", "x>y"]
OTHER_WORDS = ["007", "1_000", "0x1f", "1e5", "1.5", ".5", ".inf", "2020-01-01", "1:20", "~", "", " ", "<<", "=",
               "with space", "it's", 'say "hi"', "#not a comment", "a #b", "a: b", "- x", "[x]", "{x}", "&a", "*a",
               "!tag", "|", ">", "%x", "@x", "`x", "?", "Rathalos Ⅱ", "Ünïcödé", "雷狼竜", "tab\there",
               "line\nbreak", "-", "---", "...", 12, 1.5, None, True, [], {}]


@pytest.mark.parametrize("word", ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "false", "False", "FALSE",
                                  "no", "No", "NO", "off", "Off", "OFF", "null", "Null", "NULL", "y", "Y", "n", "N",
                                  "nUll", "tRue", "0", "10", "100K<n<1M", "a.b", "x_1"])
def test_a_word_as_written_by_hand_is_read_as_pyyaml_reads_it(word):
    text = f"key: {word}\nlist:\n- {word}"
    assert read_plain(text) is not None
    assert read_plain(text) == _yaml(text)
    assert type(read_plain(text)["key"]) is type(_yaml(text)["key"])


@pytest.mark.parametrize("word", [w for w in OTHER_WORDS if isinstance(w, str)])
def test_any_other_word_as_written_is_read_as_pyyaml_reads_it_or_left_to_it(word):
    text = f"key: {word}\nlist:\n- {word}"
    try:
        expected = _yaml(text)
    except yaml.YAMLError:
        expected = None
    plain = read_plain(text)
    assert plain is None or (plain == expected and type(plain["key"]) is type(expected["key"])), text


def _value(rng: random.Random, words: list, depth: int):
    kind = rng.random()
    if depth >= 3 or kind < 0.4:
        return rng.choice(words)
    if kind < 0.7:
        return [_value(rng, words, depth + 1) for _ in range(rng.randint(1, 3))]
    return {f"k{i}_{rng.choice('abc')}": _value(rng, words, depth + 1) for i in range(rng.randint(1, 3))}


def _front(rng: random.Random, words: list) -> dict:
    return {key: _value(rng, words, 0) for key in ("pretty_name", "license", "configs", "dataset_info")}


def test_a_header_of_plain_words_is_read_as_pyyaml_reads_it():
    for seed in range(300):
        text = _dump(_front(random.Random(seed), PLAIN_WORDS))
        assert read_plain(text) is not None, text
        assert read_plain(text) == _yaml(text), text


def test_any_other_header_is_read_as_pyyaml_reads_it_or_left_to_it():
    read = 0
    for seed in range(300):
        text = _dump(_front(random.Random(seed), PLAIN_WORDS * 30 + OTHER_WORDS))
        plain = read_plain(text)
        assert plain is None or plain == _yaml(text), text
        read += plain is not None
    assert 0 < read < 300


CONFIGS = "configs:\n- config_name: graph\n  data_files:\n  - split: kg\n    path: {path}\n"
HAND_EDITED = {
    "quoted": CONFIGS.replace("path: {path}", "path: '{path}'"),
    "double quoted": CONFIGS.replace("path: {path}", 'path: "{path}"'),
    "flow list": "configs: [{{config_name: graph, data_files: [{{split: kg, path: {path}}}]}}]\n",
    "comment": CONFIGS.replace("path: {path}", "path: {path}  # the edges"),
    "comment line": "# the configs\n" + CONFIGS,
    "anchor": "configs:\n- config_name: graph\n  data_files: &files\n  - split: kg\n    path: {path}\n"
              "extra: *files\n",
    "duplicate key": "configs:\n- config_name: nothing\n" + CONFIGS,
    "duplicate inner key": CONFIGS.replace("path: {path}", "path: data/none.parquet\n    path: {path}"),
    "CRLF": CONFIGS.replace("\n", "\r\n"),
    "blank line": "license: unknown\n\n" + CONFIGS,
    "deeper list": "configs:\n  - config_name: graph\n    data_files:\n      - split: kg\n        path: {path}\n",
    "indented more": CONFIGS.replace("- config_name", "-   config_name").replace("  data_files", "    data_files")
                            .replace("  - split", "    - split").replace("    path", "      path"),
    "tag": CONFIGS.replace("path: {path}", "path: !!str {path}"),
    "non-ASCII": "pretty_name: Rathalos Ⅱ 雷狼竜\n" + CONFIGS,
    "folded word": CONFIGS.replace("path: {path}", "path:\n      {path}"),
    "null value": "license:\n" + CONFIGS,
}

READ_PLAIN = {"deeper list"}


@pytest.mark.parametrize("name", HAND_EDITED)
def test_a_hand_edited_card_is_read_by_pyyaml(tiny_dataset, tmp_path, name):
    folder = Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))
    card = folder / "README.md"
    (file,) = (folder / "data" / "graph").glob("*.parquet")
    header = HAND_EDITED[name].format(path=f"data/graph/{file.name}").removesuffix("\r\n").removesuffix("\n")
    body = card.read_text(encoding="utf-8").split("\n---", 1)[1]
    card.write_bytes(f"---\n{header}\n---{body}".encode())
    assert read_plain(header) == (_yaml(header) if name in READ_PLAIN else None)
    assert _card_configs(folder) == _yaml(header)["configs"]


@pytest.mark.parametrize("broken", [
    "configs:\n- config_name: graph\n   data_files: []\n",
    "configs:\n- config_name: graph\ndataset_info:\n  - a\n  b: c\n",
    "configs: [\n",
])
def test_a_broken_header_gets_pyyamls_message(tiny_dataset, tmp_path, broken):
    folder = Path(shutil.copytree(tiny_dataset, tmp_path / "ds"))
    card = folder / "README.md"
    body = card.read_text(encoding="utf-8").split("\n---", 1)[1]
    card.write_text(f"---\n{broken}---{body}", encoding="utf-8")
    with pytest.raises(yaml.YAMLError) as parsed:
        _yaml(broken.removesuffix("\n"))
    mark = parsed.value.problem_mark
    with pytest.raises(UserError) as read:
        _card_configs(folder)
    assert str(read.value) == (f"{card}: the dataset card's YAML header is broken at line {mark.line + 2} "
                               f"column {mark.column + 1}: {parsed.value.problem}")


def test_a_deeply_nested_header_is_left_to_pyyaml():
    """Nesting deeper than the builder writes is left to PyYAML (the reading here makes a call
    per level); shallower nesting is read here."""
    def nested(levels: int) -> str:
        return "configs:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(levels)) + "  " * (levels + 1) + "k: v"

    assert read_plain(nested(40)) == _yaml(nested(40))
    assert read_plain(nested(600)) is None       # (PyYAML 6.0.4 refuses 1,000 levels and more)
    assert _yaml(nested(600))["configs"]["k0"]["k1"]["k2"] is not None
