"""One tokeniser in named variants (mhmmkg.lexical.tokens): each variant gives exactly the tokens of
the function it replaced, on every text of the default dataset and on awkward ASCII strings. The old
functions are kept here, as they were, to compare with. Beyond ASCII the old functions dropped
letters ("Zör" -> "z r", a name in kana -> nothing); words are now letters and digits of any
script, Latin accents folded."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from mhmmkg import load_graph, load_queries
from mhmmkg.kg.graph import normalise_name
from mhmmkg.lexical.tokens import (JUDGE_CONTENT, JUDGE_STOP_WORDS, KEY, OFFLINE, OFFLINE_CONTENT, OFFLINE_STOP_WORDS,
                                   PLAIN, TOKENISERS)

DATA = Path(__file__).resolve().parents[1] / "data"
AWKWARD = ["", "   ", "It's Zinogre's TAIL!", "Glass'es  ss s", "a-b_c/d.e",
           "don't  won't isn't", "''' 's", "x" * 3 + "s", "Fire, Water; or THUNDER"]


def old_bm25_words(text: str) -> list[str]:                     # mhmmkg/lexical/bm25.py
    return re.compile(r"[a-z0-9]+").findall(text.lower())


def old_tfidf_char_ngrams(text: str, sizes=(3, 4, 5)) -> Counter:  # mhmmkg/lexical/tfidf.py
    joined = " ".join(old_bm25_words(text))
    grams: list[str] = []
    for n in sizes:
        grams += [joined[i:i + n] for i in range(len(joined) - n + 1)]
    return Counter(grams)


def old_offline_words(text: str) -> list[str]:                  # mhmmkg/baseline/offline.py
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", (text or "").lower())


def old_offline_content_words(text: str) -> list[str]:          # the stop-word step of offline.tokens
    return [w for w in old_offline_words(text) if w not in OLD_OFFLINE_STOP_WORDS]


def old_judge_words(text: str) -> list[str]:                    # mhmmkg/eval/judges.py _words
    return [w.removesuffix("s") for w in normalise_name(text).split() if w not in OLD_JUDGE_STOP_WORDS]


def old_key_words(text: str) -> list[str]:                      # mhmmkg/eval/key_judge.py
    return [w[:-1] if w[-1] == "s" and len(w) > 3 and w[-2] != "s" else w for w in normalise_name(text).split()]


OLD_OFFLINE_STOP_WORDS = frozenset("""
a an the and or but if of to in on at by for with from as into onto over under up down out off about
is are was were be been being am do does did doing done has have had having will would shall should can
could may might must it its it's this that these those there here their them they he him his she her hers
i me my we us our you your what which who whom whose when where why how whether than then so such very
just also only not no yes any some all each both more most other another same own too tell please
playing game world monster hunter hunt fighting fight i'm im is it's battle screen show shown showing
current currently now action actions attack attacks move moves name specific happen happens doing does
one like look looks seem seems something thing things kind
""".split())
OLD_JUDGE_STOP_WORDS = frozenset(
    "a an the and or but of to in on at by for with from into onto over under its it itself his her "
    "their them they he she this that these those is are was were be been being will would can could "
    "then than as so while when after before up down off out again once twice there here which who".split()
)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    graph = load_graph(DATA)
    found = list(AWKWARD)
    for e in graph.entities:
        found += [e.name, *e.aliases, e.caption or "", e.text or "", graph.render_entity(e.id)]
    for r in graph.relations:
        found += [r.label, r.condition or "", r.info or "", graph.render_relation(r)]
    for q in load_queries(DATA):
        found += [q.question, q.extra or "", q.answer or "", q.perception or "", graph.render_paths(q.paths)]
    return found


@pytest.mark.parametrize(("variant", "old"), [
    (PLAIN, old_bm25_words), (OFFLINE, old_offline_words), (OFFLINE_CONTENT, old_offline_content_words),
    (JUDGE_CONTENT, old_judge_words), (KEY, old_key_words)], ids=lambda v: getattr(v, "name", ""))
def test_each_variant_gives_the_tokens_of_the_function_it_replaced(variant, old, texts):
    assert len(texts) > 5000 and all(t.isascii() for t in texts)
    assert [variant.words(t) for t in texts] == [old(t) for t in texts]


def test_numbered_words_of_texts_split_with_64_bit_offsets_are_the_same(monkeypatch):
    from mhmmkg.lexical import tokens

    chosen = ["Zör  Tail, é ", "ガ ＲＯＡＲ½", "plain words", "x", "Straße e\u0301 ﬁre", " 火竜 尾 "]
    short = PLAIN.numbered_words_of(chosen)
    monkeypatch.setattr(tokens, "_SHORT_OFFSETS", 0)
    long = PLAIN.numbered_words_of(chosen)
    assert [long.words(i) for i in range(len(chosen))] == [short.words(i) for i in range(len(chosen))] \
        == [PLAIN.words(t) for t in chosen]


@pytest.mark.parametrize("variant", list(TOKENISERS.values()), ids=lambda v: v.name)
def test_words_of_many_texts_at_once_are_the_words_of_each(variant, texts):
    """Folded at once (ASCII texts joined, the others joined or by distinct pieces between spaces), the
    words are those of each text read alone, whatever marks, scripts or spaces sit at the edges."""
    import random

    rng = random.Random(7)
    pieces = ["Tail", "SLAM's", "𠀀", "\u0301", "e\u0301", "Zör", "か", "\u3099", "ガ", "ﬁ", "ß", "½", "_x_", " ", "  ",
              ", ", "\n", "１２", "ς", "Σ", "İ", "\ud800", "\u00a8", "glasses", "it's", "ＲＯＡＲ", "ℕ", "क्षि", "Ёж",
              "\u1100", "\u1161", "a\u0308\u0323"]
    mixed = ["".join(rng.choices(pieces, k=rng.randint(0, 8))) for _ in range(600)]
    for chosen in (mixed, [t for t in mixed if not t.isascii()], [t for t in mixed if "\ud800" not in t], texts[:2000], texts[:300] + mixed[:300],
                   mixed[:1], ["a\x00b", "Zör"], ["Zö\x00r b", "plain"], [], ["Zör  Tail, é ", "ガ ＲＯＡＲ", "x"],
                   ["か\u3099 Zör", "\u3099 か", "Zör か\u3099", " ℕ Zör ", "ＲＯＡＲ か", "Tail Zör"]):
        assert variant.word_tuples_of(chosen) == [tuple(variant.words(t)) for t in chosen]
        assert variant.word_tuples_of(chosen * 3) == [tuple(variant.words(t)) for t in chosen * 3]    # repeated
        numbered = variant.numbered_words_of(chosen)
        assert [numbered.words(i) for i in range(len(chosen))] == [variant.words(t) for t in chosen]
        assert len(set(numbered.vocabulary)) == len(numbered.vocabulary) and numbered.vocabulary[0] == "\x00"


def test_many_texts_are_read_whole_or_by_distinct_text_as_a_sample_of_them_repeats(monkeypatch):
    """Beyond the sampled count, nearly distinct texts are read whole and repeated ones (a KG of
    clones) once each; both ways give the words of each text, beyond ASCII too."""
    from mhmmkg.lexical import tokens

    read_counts = []
    reading = tokens._word_tuples_of
    monkeypatch.setattr(tokens, "_word_tuples_of", lambda variant, texts: read_counts.append(len(texts)) or
                        reading(variant, texts))
    distinct = [f"Zör Tails {i} ガルルガ" if i % 3 else f"Tail-Swipes {i}" for i in range(3 * tokens._SAMPLED)]
    clones = ["Zör Tails", "ガルルガ  ＲＯＡＲ", "Tail-Swipes", "Glasses"] * tokens._SAMPLED
    for chosen, read_count in ((distinct, len(distinct)), (clones, 4), (distinct[:500] * 6, 500)):
        read_counts.clear()
        assert KEY.word_tuples_of(chosen) == [tuple(KEY.words(t)) for t in chosen]
        assert read_counts == [read_count]


def test_runs_beyond_ascii_folded_apart_give_the_words_of_the_whole_text():
    """What folding the runs beyond ASCII apart from the ASCII around them rests on, for every
    character: a mark between two ASCII characters (of every kind), and any character that folding
    changes between two of each kind, give the words of the text folded whole; and no character
    beyond ASCII decomposes into one followed by an ASCII character (none recomposes across a run's end)."""
    import sys
    import unicodedata

    beyond = [chr(c) for c in range(0x80, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000]
    marks = [c for c in beyond if unicodedata.category(c).startswith("M")]
    folded_otherwise = [c for c in beyond if c.casefold() != c or unicodedata.normalize("NFKD", c) != c]
    assert len(marks) > 2000 and len(folded_otherwise) > 10000
    texts = [f"{a}{mark}{a}" for a in map(chr, range(1, 128)) for mark in marks]
    texts += [f"{a}{c}{a}" for a in "Ae s0-_\t\x01" for c in folded_otherwise]
    assert PLAIN.word_tuples_of(texts) == [tuple(PLAIN.words(t)) for t in texts]
    assert not [c for c in beyond if len(d := unicodedata.normalize("NFD", c)) > 1 and d[-1].isascii()]
    awkward = ["E\u0301-\u0301x", "-\u3099か", "Ａ_ｂ\u3000Zör", "ß\tSS", "x\ud800y", "İs ǅ ŉ", "aﾞｶﾞ"]
    assert KEY.word_tuples_of(awkward) == [tuple(KEY.words(t)) for t in awkward]


@pytest.mark.parametrize(("text", "words"), [
    ("Ünïcode Straße İstanbul ½ 3rd", ["unicode", "strasse", "istanbul", "1", "2", "3rd"]),
    ("Zör Magdaros’ DIVE", ["zor", "magdaros", "dive"]),
    ("ＮＥＲＧＩＧＡＮＴＥ", ["nergigante"]),
    ("リオレウス 火竜, crème_brûlée", ["リオレウス", "火竜", "creme", "brulee"]),
    ("ガ", ["ガ"]),
])
def test_words_beyond_ascii_are_letters_of_any_script_with_latin_accents_folded(text, words):
    assert PLAIN.words(text) == words
    assert normalise_name(text) == " ".join(words)
    assert normalise_name(text) == normalise_name(" ".join(words).upper())


def test_an_accent_or_a_full_width_form_does_not_change_a_name():
    assert normalise_name("Zör") == normalise_name("Zor") == normalise_name("ＺＯＲ")
    assert normalise_name("ガルルガ") and normalise_name("ガルルガ") != normalise_name("カルルカ")
    assert OFFLINE.words("Zör's tail") == ["zor's", "tail"] and KEY.words("Zörs Tails") == ["zor", "tail"]


def test_the_character_ngrams_are_those_tfidf_counted(texts):
    assert all(Counter(PLAIN.char_ngrams(t, (3, 4, 5))) == old_tfidf_char_ngrams(t) for t in texts)


def test_the_stop_words_and_names_are_those_of_before():
    assert OFFLINE_STOP_WORDS == OLD_OFFLINE_STOP_WORDS and JUDGE_STOP_WORDS == OLD_JUDGE_STOP_WORDS
    assert TOKENISERS["offline-content"] is OFFLINE_CONTENT and len(TOKENISERS) == 5


def test_the_callers_name_their_variant():
    from mhmmkg.baseline import offline
    from mhmmkg.eval import judges

    from mhmmkg.eval import key_judge
    from mhmmkg.lexical import bm25, tfidf

    assert offline.words("It's a Tail") == ["it's", "a", "tail"] and offline.tokens("It's a Tail") == ["tail"]
    assert judges._words("The tails of it") == ["tail"]
    assert bm25.words is PLAIN.words and key_judge.key_words is KEY.words
    assert tfidf.char_ngrams("Tail slam") == old_tfidf_char_ngrams("Tail slam")
