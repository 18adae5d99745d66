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
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress, count, repeat
from operator import contains, not_
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

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

    def word_tuples_of(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """``[tuple(self.words(t)) for t in texts]``, for many short texts such as the 62,000 names of
        the random bench KG at 100x: each distinct text read once when they repeat much (a KG of
        clones repeats its names), the ASCII ones lower-cased and split apart in one call, the
        others folded by distinct run of characters beyond ASCII, a plural ``s`` dropped in one call.
        Whether they repeat much is judged on an evenly spread sample (:data:`_SAMPLED`): finding
        the distinct texts of all is a tenth of the time of reading them when nearly all are
        distinct (random names), and a KG of clones repeats each name once per clone, as its
        sample does."""
        sample = texts[::max(len(texts) // _SAMPLED, 1)]
        if len(set(sample)) > 0.8 * len(sample):
            return _word_tuples_of(self, texts)
        distinct = list(dict.fromkeys(texts))
        return list(map(dict(zip(distinct, _word_tuples_of(self, distinct))).__getitem__, texts))

    def numbered_words_of(self, texts: Sequence[str]) -> NumberedWords:
        """The words of ``texts`` (``[self.words(t) for t in texts]``) with every distinct word
        numbered once, for measures that compare words by number: the texts' words as one array
        of numbers, built by array operations from the words of each distinct piece between
        spaces (captions and scenes repeat their words: the 1.2 million pieces of the random bench
        KG at 100x are 71,000 distinct ones), with no list per text."""
        return _numbered_words_of(self, texts)

    def char_ngrams(self, text: str | None, sizes: Sequence[int]) -> list[str]:
        """The character n-grams of each size in ``sizes`` over the words joined by single spaces
        (so they run across word boundaries: "tail sl")."""
        joined = " ".join(self.words(text))
        return [joined[i:i + n] for n in sizes for i in range(len(joined) - n + 1)]


def _words_function(tokeniser: Tokeniser) -> Callable[[str | None], list[str]]:
    findall = re.compile(tokeniser.word).findall
    lower, kept = tokeniser.lower, _keeping(tokeniser)

    def words(text: str | None) -> list[str]:
        """The words of ``text`` as this variant reads them."""
        return kept(findall(folded(text or "") if lower else (text or "")))
    return words


def _keeping(tokeniser: Tokeniser) -> Callable[[list[str]], list[str]]:
    """What the variant keeps of the words found, and how it folds each."""
    stop, fold = tokeniser.stop_words, tokeniser.fold

    def kept(found: list[str]) -> list[str]:
        if stop:
            found = [w for w in found if w not in stop]
        if fold == "s":
            return [w.removesuffix("s") for w in found]
        if fold == "plural-s":
            return [w[:-1] if w[-1] == "s" and len(w) > 3 and w[-2] != "s" else w for w in found]
        return found
    return kept


#: about how many texts ``word_tuples_of`` samples to judge whether they repeat much
_SAMPLED = 1000


#: joins texts folded in one call: no word holds it, no fold makes or changes it, and no character
#: composes with it or is reordered across it, so each text folds as it would alone
_APART = "\x00"


#: every ASCII character but a letter, a digit and ``_APART``, to a space: lower-cased ASCII text so
#: made holds its ``WORD`` words between spaces
_ASCII_NON_WORDS = {c: " " for c in range(128) if not chr(c).isalnum() and chr(c) != _APART}
#: the plural ``s`` the fold "plural-s" drops (of a word of four letters or more, not after another
#: "s"), in words between spaces and ``_APART``
_PLURAL_S = re.compile(f"s(?=[ {_APART}]|\\Z)(?<=[^ {_APART}]{{2}}[^ {_APART}s]s)")


def _word_tuples_of(tokeniser: Tokeniser, texts: Sequence[str]) -> list[tuple[str, ...]]:
    if tokeniser.word != WORD or not tokeniser.lower or tokeniser.stop_words or tokeniser.fold == "s":
        return [tuple(tokeniser.words(t)) for t in texts]
    is_ascii = list(map(str.isascii, texts))
    plain, others = list(compress(texts, is_ascii)), list(compress(texts, map(not_, is_ascii)))
    plain_joined, others_joined = _joined(plain), _joined(others)
    if plain_joined is None or others_joined is None:
        return [tuple(tokeniser.words(t)) for t in texts]
    plural = _PLURAL_S.sub if tokeniser.fold == "plural-s" else lambda _, words: words
    plain_words = plural("", plain_joined.lower().translate(_ASCII_NON_WORDS)).split(_APART)
    other_words = plural("", _folded_words_by_run(others_joined)).split(_APART) if others else []
    sides = [iter(other_words), iter(plain_words)]      # by is_ascii
    in_order = map(next, map(sides.__getitem__, is_ascii))     # each text's words, from its side
    return list(map(tuple, map(str.split, in_order)))


def _joined(texts: list[str]) -> str | None:
    """``texts`` joined by ``_APART``; None when a text holds ``_APART``."""
    joined = _APART.join(texts)
    return joined if joined.count(_APART) == max(len(texts) - 1, 0) else None


#: in UTF-8, each ASCII letter to its lower case and every other ASCII byte but a digit and
#: ``_APART`` to a space, the bytes of other characters (all beyond ASCII) as they are
_ASCII_WORD_BYTES = bytes(c if c >= 128 or chr(c).isdigit() or chr(c) == _APART else
                          ord(chr(c).lower()) if chr(c).isalpha() else ord(" ") for c in range(256))
_BEYOND_ASCII = re.compile("([^\\x00-\\x7f]+)")
#: a run of characters that are no part of a word, ``_APART`` left out
_NON_WORDS = re.compile(f"(?:[^\\w{_APART}]|_)+")


def _folded_words_by_run(text: str) -> str:
    """The ``WORD`` words of ``folded(text)``, and each ``_APART`` of it, between spaces: its ASCII
    letters lower-cased and its other ASCII characters but digits made spaces in one call (on its
    UTF-8 bytes), then each distinct run of characters beyond ASCII folded once, all of them in one
    call, what is no part of a word in them made spaces. The whole text folds so: case folding and
    compatibility decomposition map each character alone, no mark is reordered across an ASCII
    character, and the only marks that compose with an ASCII letter are the Latin accents, which
    folding drops (``tests/test_tokens.py`` checks every character). Names beyond ASCII share
    their runs: the 27,140 of the random bench KG at 100x, 570,000 characters, have 33,000 runs
    of 2,500 distinct ones."""
    spaced = text.encode("utf-8", "surrogatepass").translate(_ASCII_WORD_BYTES).decode("utf-8", "surrogatepass")
    parts = _BEYOND_ASCII.split(spaced)         # ASCII, a run beyond it, ASCII, ...
    runs = parts[1::2]
    distinct = list(dict.fromkeys(runs))
    words_of = dict(zip(distinct, _NON_WORDS.sub(" ", folded(_APART.join(distinct))).split(_APART)))
    parts[1::2] = map(words_of.__getitem__, runs)
    return "".join(parts)


@dataclass(frozen=True)
class NumberedWords:
    """The words of some texts, numbered: text ``i``'s words are the ``vocabulary`` entries of
    ``codes[starts[i]:starts[i] + lengths[i]]``. Number 0 is no word (``_APART``)."""

    vocabulary: list[str]
    codes: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray

    def words(self, i: int) -> list[str]:
        start = int(self.starts[i])
        return list(map(self.vocabulary.__getitem__, self.codes[start:start + int(self.lengths[i])].tolist()))


def _numbered_words_of(tokeniser: Tokeniser, texts: Sequence[str]) -> NumberedWords:
    numbered = _numbered_at_once(tokeniser, texts) if tokeniser.lower and texts else None
    return numbered if numbered is not None else _numbered_one_by_one(tokeniser, texts)


def _vocabulary():
    """A new vocabulary, _APART numbered 0, and what numbers a word (a new one gets the next number)."""
    vocabulary: defaultdict[str, int] = defaultdict(count().__next__)
    vocabulary[_APART]
    return vocabulary, vocabulary.__getitem__


def _numbered_one_by_one(tokeniser: Tokeniser, texts: Sequence[str]) -> NumberedWords:
    import numpy as np

    vocabulary, number = _vocabulary()
    ended = [word for text in texts for word in (*tokeniser.words(text), _APART)]
    codes = np.fromiter(map(number, ended), dtype=np.int64, count=len(ended))
    starts, lengths = _spans(codes)
    return NumberedWords(list(vocabulary), codes, starts, lengths)


def _numbered_at_once(tokeniser: Tokeniser, texts: Sequence[str]) -> NumberedWords | None:
    """The ASCII texts lower-cased and read in one call, the others by piece; None when a text
    holds ``_APART``."""
    import numpy as np

    vocabulary, number = _vocabulary()
    is_ascii = list(map(str.isascii, texts))
    plain = list(compress(range(len(texts)), is_ascii))
    others = list(compress(range(len(texts)), map(not_, is_ascii)))
    kept = _keeping(tokeniser)
    found = re.compile(f"{tokeniser.word}|{_APART}").findall
    joined = _APART.join([texts[i] for i in plain]).lower() + _APART
    if joined.count(_APART) != len(plain) + (not plain):
        return None
    ended = kept(found(joined)) if plain else []
    del joined
    plain_codes = np.fromiter(map(number, ended), dtype=np.int64, count=len(ended))
    plain_starts, plain_lengths = _spans(plain_codes)        # each text's numbers end with a 0
    by_piece = _numbered_by_piece([texts[i] for i in others], number, kept, found)
    if by_piece is None:
        return None
    other_codes, other_lengths = by_piece
    other_starts = np.cumsum(other_lengths) - other_lengths + len(plain_codes)
    in_order = np.empty(len(texts), dtype=np.int64)
    in_order[plain + others] = np.arange(len(texts))
    return NumberedWords(list(vocabulary), np.concatenate([plain_codes, other_codes]),
                         np.concatenate([plain_starts, other_starts])[in_order],
                         np.concatenate([plain_lengths, other_lengths])[in_order])


def _numbered_by_piece(texts: list[str], number, kept, found):
    """The numbers of the words of ``texts`` side by side, and how many each text has (None when
    a text holds ``_APART``): each distinct piece between spaces is folded and read once, all of
    them in one call (joined by ``_APART``, which folds apart), and the texts' numbers are their
    pieces' numbers put side by side. A space is a word of no text and a character folding
    keeps: it composes with no neighbour, no mark is reordered across it, and case folding maps
    each character alone; so a folded text is its folded pieces joined by spaces."""
    import numpy as np

    if not texts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    piece_of, distinct, counts = _pieces(texts)
    if any(map(contains, distinct, repeat(_APART))):
        return None
    ended = kept(found(folded(_APART.join(distinct) + _APART)))
    words = np.fromiter(map(number, ended), dtype=np.int64, count=len(ended))
    ends = np.flatnonzero(words == 0)              # the 0 that ends each distinct piece's words
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = (ends - starts)[piece_of]
    if int(lengths.max(initial=0)) <= 1:            # no piece of two words or more: its word, if any
        codes = words[starts[piece_of[lengths > 0]]]
    else:
        codes = gathered(words, starts[piece_of], lengths)
    text_starts = np.cumsum(counts) - counts
    return codes, np.add.reduceat(lengths, text_starts) if len(lengths) else counts


#: texts of fewer characters than this in all go to Arrow with 32-bit offsets (enough for 4 bytes
#: of UTF-8 a character), more with 64-bit ones
_SHORT_OFFSETS = 1 << 29


def _pieces(texts: list[str]):
    """The pieces between spaces of all texts (``str.split(" ")``): each one's number (numbered
    0, 1, ... in order of first appearance), the distinct pieces, and how many each text has.
    Split and numbered by Arrow (no string object per piece), or by Python for a text that
    UTF-8 cannot hold (a lone surrogate)."""
    import numpy as np

    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        pool = pa.system_memory_pool()    # memory given back when freed, not kept for Arrow
        kind = pa.string() if sum(map(len, texts)) < _SHORT_OFFSETS else pa.large_string()
        split = pc.split_pattern(pa.array(texts, kind, memory_pool=pool), " ", memory_pool=pool)
    except UnicodeEncodeError:
        each = [text.split(" ") for text in texts]
        numbered: defaultdict[str, int] = defaultdict(count().__next__)
        pieces = [piece for pieces in each for piece in pieces]
        piece_of = np.fromiter(map(numbered.__getitem__, pieces), dtype=np.int32, count=len(pieces))
        return piece_of, list(numbered), np.fromiter(map(len, each), dtype=np.int64, count=len(each))
    encoded = pc.dictionary_encode(split.flatten(), memory_pool=pool)
    counts = np.diff(split.offsets.to_numpy()).astype(np.int64)
    return encoded.indices.to_numpy(), encoded.dictionary.to_pylist(), counts


def gathered(values, starts, lengths):
    """``values[starts[i]:starts[i] + lengths[i]]`` for every i, side by side."""
    import numpy as np

    ends = np.cumsum(lengths)
    at = np.arange(int(ends[-1]) if len(ends) else 0)
    at += np.repeat(starts - (ends - lengths), lengths)
    return values[at]


def _spans(codes):
    """Where each text's numbers start in ``codes``, and how many there are (each text's end with a 0)."""
    import numpy as np

    ends = np.flatnonzero(codes == 0)
    starts = np.concatenate([[0], ends[:-1] + 1]) if len(ends) else ends
    return starts, ends - starts


PLAIN = Tokeniser("plain")
KEY = Tokeniser("key", fold="plural-s")
JUDGE_CONTENT = Tokeniser("judge-content", stop_words=JUDGE_STOP_WORDS, fold="s")
OFFLINE = Tokeniser("offline", word=WORD_WITH_APOSTROPHE)
OFFLINE_CONTENT = Tokeniser("offline-content", word=WORD_WITH_APOSTROPHE, stop_words=OFFLINE_STOP_WORDS)

#: every variant by name
TOKENISERS: dict[str, Tokeniser] = {t.name: t for t in (PLAIN, KEY, JUDGE_CONTENT, OFFLINE, OFFLINE_CONTENT)}
