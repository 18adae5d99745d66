"""One tokeniser for every word-level measure, in named variants.

A word is a run of letters and digits of any script, in the text as :func:`folded` gives it
(case-folded, Latin accents dropped: "Zör" reads as "zor"); for ASCII text simply ``[a-z0-9]+``
of the lower-cased text. They are the words of ``normalise_name``. A variant adds what its
measure needs: its own stop words, a rule that folds a plural (:data:`FOLDS`), an apostrophe
kept inside a word ("it's"), and character n-grams over the words joined by spaces. Each caller names its variant:

- ``PLAIN``: every word (BM25, the character n-grams of TF-IDF and the recognition shortcut);
- ``KEY``: every word, a plural ``s`` dropped from words of four letters or more (the key judge);
- ``JUDGE_CONTENT``: content words, crudely singularised (the exact judge's caption overlap);
- ``OFFLINE`` and ``OFFLINE_CONTENT``: words with their apostrophe, all or the content words
  only (the offline model, which then stems them and adds its concept tags).

``tests/test_tokens.py`` compares each variant with the function it replaced, on every text of
the default dataset.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

WORD = r"[^\W_]+"
#: a word with an apostrophe and the letters after it ("it's", "monster's")
WORD_WITH_APOSTROPHE = r"[^\W_]+(?:'[^\W\d_]+)?"
_LATIN_ACCENTS = re.compile("[\u0300-\u036f]+")


def folded(text: str) -> str:
    """``text`` case-folded ("Straße" -> "strasse"), Latin letters without their accents ("Zör" ->
    "zor") and compatibility forms made plain (full-width "Ｎ" -> "n"); other scripts are kept as
    they are (kana keep their voicing marks). ASCII text is only lower-cased."""
    if text.isascii():
        return text.lower()
    text = text.casefold()
    return unicodedata.normalize("NFC", _LATIN_ACCENTS.sub("", unicodedata.normalize("NFKD", text)))

#: the offline model's: function words, and the words every question about the game holds
OFFLINE_STOP_WORDS = frozenset("""
a an the and or but if of to in on at by for with from as into onto over under up down out off about
is are was were be been being am do does did doing done has have had having will would shall should can
could may might must it its it's this that these those there here their them they he him his she her hers
i me my we us our you your what which who whom whose when where why how whether than then so such very
just also only not no yes any some all each both more most other another same own too tell please
playing game world monster hunter hunt fighting fight i'm im is it's battle screen show shown showing
current currently now action actions attack attacks move moves name specific happen happens doing does
one like look looks seem seems something thing things kind
""".split())

#: the exact judge's: function words a caption or answer shares with any other
JUDGE_STOP_WORDS = frozenset(
    "a an the and or but of to in on at by for with from into onto over under its it itself his her "
    "their them they he she this that these those is are was were be been being will would can could "
    "then than as so while when after before up down off out again once twice there here which who".split()
)


#: how a kept word is folded: "" (as it is), "s" (a trailing s dropped, whatever the word:
#: "glass" -> "glas", crude on purpose) or "plural-s" (a plural s dropped from a word of four
#: letters or more that does not end in "ss")
FOLDS = ("", "s", "plural-s")


@dataclass(frozen=True)
class Tokeniser:
    """One variant: what a word is, whether the text is lower-cased first, the stop words left
    out and how each word kept is folded (:data:`FOLDS`), in that order. ``words`` is made once
    per variant, with the choices fixed (it runs for every text a measure reads)."""

    name: str
    word: str = WORD
    lower: bool = True
    stop_words: frozenset[str] = frozenset()
    fold: str = ""
    words: Callable[[str | None], list[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.fold not in FOLDS:
            raise ValueError(f"fold {self.fold!r}: expected one of {FOLDS}")
        object.__setattr__(self, "words", _words_function(self))

    def char_ngrams(self, text: str | None, sizes: Sequence[int]) -> list[str]:
        """The character n-grams of each size in ``sizes`` over the words joined by single spaces
        (so they run across word boundaries: "tail sl")."""
        joined = " ".join(self.words(text))
        return [joined[i:i + n] for n in sizes for i in range(len(joined) - n + 1)]


def _words_function(tokeniser: Tokeniser) -> Callable[[str | None], list[str]]:
    findall = re.compile(tokeniser.word).findall
    lower, stop, fold = tokeniser.lower, tokeniser.stop_words, tokeniser.fold

    def words(text: str | None) -> list[str]:
        """The words of ``text`` as this variant reads them."""
        found = findall(folded(text or "") if lower else (text or ""))
        if stop:
            found = [w for w in found if w not in stop]
        if fold == "s":
            return [w.removesuffix("s") for w in found]
        if fold == "plural-s":
            return [w[:-1] if w[-1] == "s" and len(w) > 3 and w[-2] != "s" else w for w in found]
        return found
    return words


PLAIN = Tokeniser("plain")
KEY = Tokeniser("key", fold="plural-s")
JUDGE_CONTENT = Tokeniser("judge-content", stop_words=JUDGE_STOP_WORDS, fold="s")
OFFLINE = Tokeniser("offline", word=WORD_WITH_APOSTROPHE)
OFFLINE_CONTENT = Tokeniser("offline-content", word=WORD_WITH_APOSTROPHE, stop_words=OFFLINE_STOP_WORDS)

#: every variant by name
TOKENISERS: dict[str, Tokeniser] = {t.name: t for t in (PLAIN, KEY, JUDGE_CONTENT, OFFLINE, OFFLINE_CONTENT)}
