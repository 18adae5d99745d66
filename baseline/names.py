"""Finding which names a text mentions, at a cost that does not grow with the number of names.

Names are indexed once by their normalised form (``normalise_name``); a text is read word by
word and each run of up to as many words as the longest name is looked up. A name is mentioned
where its words appear as whole words of the text, case and punctuation ignored.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from mhmmkg.kg.graph import normalise_name


class Mention(NamedTuple):
    name: str        # as given (its length breaks ties: longer names first)
    value: Any       # what the name stands for
    order: int       # position of the name among the indexed ones


class NameIndex:
    def __init__(self, names: Iterable[tuple[str, Any]]):
        """``names``: (name, value) pairs, in an order that callers may use to break ties."""
        self._by_phrase: dict[str, list[Mention]] = {}
        self._longest = 0
        for order, (name, value) in enumerate(names):
            phrase = normalise_name(name)
            if phrase:
                self._by_phrase.setdefault(phrase, []).append(Mention(name, value, order))
                self._longest = max(self._longest, phrase.count(" ") + 1)

    def mentions(self, text: str) -> Iterator[list[Mention]]:
        """The names mentioned in ``text``, grouped by the word they start at, from the first word on."""
        words = normalise_name(text).split()
        for i in range(len(words)):
            found = []
            for k in range(1, min(self._longest, len(words) - i) + 1):
                found += self._by_phrase.get(" ".join(words[i:i + k]), ())
            if found:
                yield found

    def earliest(self, text: str) -> list[Mention]:
        """Every name mentioned at the first place in ``text`` where any name is; [] for none."""
        return next(self.mentions(text), [])
