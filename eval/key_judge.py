"""The exact judge's rules for a query with an answer key (``mhmmkg.model.AnswerKey``).

A reply is read as normalised words (lower case, punctuation dropped, a plural ``s`` dropped
from words of four letters or more) in which KG entities are found by name or alias, longest
name first, so "Heavy Tail Slam" is never read as "Tail Slam". A mention right after a negation
("not", "never", "isn't", "rather than", "instead of", ...; up to two words in between, as in
"not the Tail Slam") is *negated*: it neither names the key nor counts as a rival.

*Rivals* of a key entity are the entities that compete with it as an answer: those of the same
type that belong to the same monster, to the topic monster, or to no monster (shared effects,
elements, props), and for a monster every other monster. *Context* is never a rival: a name the
question, its auxiliary information, the scene description or the reference answer uses (as
words: an ambiguous name stands only for itself), and the entities on the ground-truth paths
before their last one (the knowledge that leads to the answer). A shorter name inside the key's
own name that comes after it with no "or"/"maybe" between ("the Enraged Roar ... it roars")
names the key again, not a rival. A mention right after "subspecies of", "mate of", "variant
of", "same as", "similar to" or "like" relates the answer to something else: it is no rival
(and no claim), but it still names the key. ``rivals`` of the key are wordings of competing
answers outside the KG (other classes, counts, locales).

- ``entity``: right when the reply names the key entity and no rival (a hedge or a list is wrong).
- ``entities``: right when the reply names every key entity and no rival of any of them.
- ``yes_no``: the reply's first word gives its polarity (yes, yeah, yep, correct, true / no,
  nope, false); a reply that does not start with one has none and is wrong, even "It is not
  safe" for "Is it safe?": a statement's polarity depends on how the question was put, which a
  program cannot read reliably. A hedge (a clause that is only the opposite word, as in
  "No/Yes", "No (yes)", "yes or no", "Yes No") is wrong. Then every required point (key entities and
  nuggets) must be present and no rival of a key entity or key rival wording named. The
  reason may name no entity beyond the key and the context (every entity on the ground-truth
  paths counts here): "No, because it is weak only to fire" for a reference about Thunder makes
  a claim the reference does not (``key-claim``).
- ``text``: every nugget (any of its wordings) and every key entity present, no rival named.

For every kind a reply naming more than ``MAX_OTHER_ENTITIES`` entities that are neither in
the key nor context is a flood, and wrong: listing the KG cannot be the answer.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.lexical.tokens import KEY
from mhmmkg.kg.model import AnswerKey

MAX_NAME_WORDS = 8
#: more distinct entities than this outside the key and the context make a reply a flood
MAX_OTHER_ENTITIES = 6
_NEGATIONS = frozenset("not never isn t aren wasn doesn don didn won cannot nor without unlike".split())
_NEGATION_PHRASES = (("rather", "than"), ("instead", "of"), ("other", "than"), ("as", "opposed", "to"))
_NEGATION_PHRASE_TEXTS = tuple(" ".join(p) for p in _NEGATION_PHRASES)
#: finds any negation phrase as a part of a text (``phrase in text`` for each, in one search)
_ANY_NEGATION_PHRASE = re.compile("|".join(map(re.escape, _NEGATION_PHRASE_TEXTS)))
#: " " and the second word of each negation phrase (``_may_hold_negation_phrase`` tests them by hand)
_NEGATION_PHRASE_SECOND_WORDS = (" than", " of", " opposed")
_NEGATION_GAP = 2
_COMPARISONS = (("subspecie", "of"), ("mate", "of"), ("counterpart", "of"), ("variant", "of"), ("similar", "to"),
                ("like",), ("as", "with"))
#: the last word of every comparison marker ("same ... as" too): a mention after any other word is no comparison
_COMPARISON_ENDS = frozenset([marker[-1] for marker in _COMPARISONS] + ["as"])
_NEGATION_OR_COMPARISON_ENDS = _NEGATIONS | _COMPARISON_ENDS
_ARTICLES = frozenset("the a an its her his their".split())
_YES = frozenset("yes yeah yep yup correct true affirmative".split())
_NO = frozenset("no nope false negative".split())
_CLAUSE = re.compile(r"[.,;:!?/()\[\]]|\bor\b|\band\b|\bbut\b", re.IGNORECASE)
_HEDGE_FILLERS = frozenset("maybe perhaps possibly either probably".split())
_HEDGE_WORDS = _HEDGE_FILLERS | {"or"}
_IGNORED_NAMES = frozenset("a an the it and or of to in on at is no yes".split())

# rules: the accepted ones first
ACCEPTED_RULES = ("key-entity", "key-entities", "key-polarity", "key-text")
#: the rule that accepts a reply, by kind of key (any other kind: "key-text")
_ACCEPTED = {"entity": "key-entity", "entities": "key-entities", "yes_no": "key-polarity"}
REJECTED_RULES = ("key-missing", "key-rival", "key-claim", "key-flood", "key-polarity-missing", "key-polarity-wrong",
                  "key-hedge", "key-point-missing", "key-nugget-missing")


#: normalised words, a plural ``s`` dropped from words of four letters or more
key_words = KEY.words
#: ``[tuple(key_words(t)) for t in texts]``, faster for many short texts (the names of a KG)
key_word_tuples_of = KEY.word_tuples_of


_new_tuple = tuple.__new__      # a Mention of its five values, without the Python-level Mention.__new__


class Mention(NamedTuple):
    """A name found in a text (a tuple: many are made for every reply read)."""

    start: int
    words: tuple[str, ...]
    ids: frozenset[str]
    negated: bool
    compared: bool = False    # right after "subspecies of", "mate of", "same as", "like": a comparison


class Context(NamedTuple):
    """What a reply may name without naming a rival: the names the question, scene and reference
    use (as words, so an ambiguous name stands only for itself) and entities given by id."""

    words: Container[tuple[str, ...]]
    ids: set[str]

    def holds(self, mention: Mention) -> bool:
        return bool(mention.ids & self.ids) or mention.words in self.words


class _PathContext:
    """``Context`` of a reply: ``words``, and as ids the entities on the ground-truth paths (before
    the last one of each, or every one with ``whole``) and the topic, gathered on first use (most
    replies naming more than the key name nothing that a rival test or a flood count looks up)."""

    __slots__ = ("words", "_paths", "_topic", "_whole", "_ids")

    def __init__(self, words: Container[tuple[str, ...]], paths: Sequence[Sequence[str]], topic: str | None,
                 whole: bool):
        self.words, self._paths, self._topic, self._whole, self._ids = words, paths, topic, whole, None

    @property
    def ids(self) -> set[str]:
        if self._ids is None:
            self._ids = {e for p in self._paths for e in (p if self._whole else p[:-1])}
            if self._topic:
                self._ids.add(self._topic)
        return self._ids

    def holds(self, mention: Mention) -> bool:
        return not mention.ids.isdisjoint(self.ids) or mention.words in self.words


class _NamesIn:
    """The words of every mention in some texts, found on first use: many replies are decided
    (a key entity missing, the wrong polarity) before any name is looked up in the context. The
    texts are read one at a time, from the last (the reference answer, which a reply names most),
    until one names the words asked for; a text may be given as a function that writes it."""

    def __init__(self, index: EntityIndex, texts: Sequence[str | Callable[[], str]] | Callable[[], Sequence[str]]):
        self._index, self._texts = index, texts
        self._unread: list[str | Callable[[], str]] | None = None
        self._names: set[tuple[str, ...]] = set()       # of the texts read so far

    def __contains__(self, words: object) -> bool:
        if words in self._names:
            return True
        if self._unread is None:
            self._unread = list(self._texts() if callable(self._texts) else self._texts)
        while self._unread:
            text = self._unread.pop()
            names = self._index.mentioned_names(text() if callable(text) else text)
            self._names |= names
            if words in names:
                return True
        return False


class _IdSets(dict):
    """Name words -> the frozenset of the ids of the entities of that name, each made when a
    mention of the name is first found (the random bench KG at 100x has 62,000 names; a
    submission's replies and the texts around them name a few thousand)."""

    __slots__ = ("_owners_of",)

    def __init__(self, owners_of: dict[tuple[str, ...], str | list[str]]):
        super().__init__()
        self._owners_of = owners_of

    def __missing__(self, words: tuple[str, ...]) -> frozenset[str]:
        owners = self._owners_of[words]
        ids = self[words] = frozenset((owners,) if type(owners) is str else owners)
        return ids


class EntityIndex:
    """Every name and alias of every KG entity, as key words, for finding mentions in a text."""

    def __init__(self, graph: KnowledgeGraph):
        self.graph = graph
        #: (type, owning monster or None) -> ids, so that rivals are found without a scan of the KG
        self._by_type_and_owner: dict[tuple[str, str | None], list[str]] = {}
        entity_names = graph.entity_names()
        groups = self._by_type_and_owner
        for entity_id, type_, monster, _ in entity_names:
            group = groups.get((type_, monster))
            if group is None:
                groups[type_, monster] = [entity_id]
            else:
                group.append(entity_id)
        names = [name for _, _, _, entity_names_ in entity_names for name in entity_names_]
        owners = [entity_id for entity_id, _, _, entity_names_ in entity_names for _ in entity_names_]
        self._groups = {group: frozenset(ids) for group, ids in self._by_type_and_owner.items()}
        self._rivals: dict[tuple[str, str | None], frozenset[str]] = {}
        self._rival_groups: dict[tuple[str, str | None], list[frozenset[str]]] = {}
        self._monsters = frozenset().union(*(ids for (type_, _), ids in groups.items() if type_ == "monster"))
        #: first word of a name -> the tree of the names (of at most MAX_NAME_WORDS words) starting
        #: with it: a node maps each next word to its node, and None to the name that ends there, so
        #: the longest name at a place is found word by word (a large KG has names of many lengths
        #: starting with the same word, and most of them are not there). The only name below a
        #: node is the node itself (a leaf: its words tuple, which may go on past the words that
        #: lead to it: no dict of one key for each of its further words)
        self._names_from: dict[str, dict | tuple[str, ...]] = {}
        names_from = self._names_from
        #: name words -> the id of the entity of that name, or their list when there are several
        #: (many entities share a name: "Roar", "Tail Swipe")
        owners_of: dict[tuple[str, ...], str | list[str]] = {}
        for entity_id, words in zip(owners, key_word_tuples_of(names)):
            ids = owners_of.get(words)
            if ids is not None:
                if type(ids) is str:
                    owners_of[words] = [ids, entity_id]
                else:
                    ids.append(entity_id)
                continue
            owners_of[words] = entity_id
            end = len(words)
            if end > MAX_NAME_WORDS or end == 1 and words[0] in _IGNORED_NAMES:
                continue
            node, depth = names_from, 1         # the node reached by words[:depth - 1]
            while depth <= end:                 # (a name of no word is in no tree)
                word = words[depth - 1]
                below = node.get(word)
                if below is None:
                    node[word] = words          # the only name below
                    break
                if type(below) is tuple:        # a leaf, the words of which lead on to this name too
                    below = node[word] = {None: below} if len(below) == depth else {below[depth]: below}
                if depth == end:
                    below[None] = words
                    break
                node, depth = below, depth + 1
        for never_looked_for in [(), *((word,) for word in _IGNORED_NAMES)]:      # a name of no word, "it", "the"
            owners_of.pop(never_looked_for, None)
        self._owners_of = owners_of
        #: name words -> the ids of the entities of that name (a set shared by every mention of it)
        self._ids = _IdSets(owners_of)

    def names(self) -> dict[tuple[str, ...], frozenset[str]]:
        """Every name looked for in a text, as its key words, and the ids of the entities of that name."""
        return {words: self._ids[words] for words in self._owners_of}

    def mentions(self, text: str) -> list[Mention]:
        """Entity mentions in reading order, longest name first at each place."""
        return self.mentions_in_words(key_words(text))

    def mentions_in_words(self, words: list[str]) -> list[Mention]:
        """``mentions`` of a text given as its ``key_words``."""
        found = self._names_in(words)
        if not found:
            return []
        ids = self._ids
        if len(found) == 1 and found[0][0] == 0:    # one name, first: no word before it negates or compares
            return [_new_tuple(Mention, (0, found[0][1], ids[found[0][1]], False, False))]
        if _NEGATION_OR_COMPARISON_ENDS.isdisjoint(words) and not _may_hold_negation_phrase(words):  # (most replies)
            return [_new_tuple(Mention, (i, name, ids[name], False, False)) for i, name in found]
        return [Mention(i, name, ids[name], i > 0 and _negated(words, i), i > 0 and _compared(words, i))
                for i, name in found]

    def mentioned_names(self, text: str) -> set[tuple[str, ...]]:
        """The words of every mention in a text: ``{m.words for m in mentions(text)}``, without
        building the mentions."""
        return {name for _, name in self._names_in(key_words(text))}

    def _names_in(self, words: list[str]) -> list[tuple[int, tuple[str, ...]]]:
        """(place, words) of each name found in ``words``, in reading order, longest first at each place."""
        end = len(words)
        if end <= MAX_NAME_WORDS:
            whole = tuple(words)
            if whole in self._owners_of:    # words that are a name (many a reply): no longer one can start there
                return [(0, whole)]
        found, i = [], 0
        names_from = self._names_from
        while i < end:
            node = names_from.get(words[i])
            if node is None:            # no name starts here (most words)
                i += 1
                continue
            if type(node) is tuple:     # the only name starting with this word
                n = len(node)
                if n == 1 or tuple(words[i:i + n]) == node:
                    found.append((i, node))
                    i += n
                else:
                    i += 1
                continue
            name, j = node.get(None), i + 1
            while j < end:
                node = node.get(words[j])
                if node is None:
                    break
                j += 1
                if type(node) is tuple:     # the only name below: there when the words go on as it does
                    if len(node) == j - i or tuple(words[i:i + len(node)]) == node:
                        name = node
                    break
                name = node.get(None, name)
            if name is None:
                i += 1
            else:
                found.append((i, name))
                i += len(name)
        return found

    def named(self, text: str) -> set[str]:
        """Ids of every entity a text names (negated or not)."""
        return {i for m in self.mentions(text) for i in m.ids}

    def rivals(self, entity_id: str, topic: str | None) -> frozenset[str]:
        """The entities that compete with ``entity_id`` as an answer (see the module docstring)."""
        cached = self._rivals.get((entity_id, topic))
        if cached is None:
            cached = self._rivals[entity_id, topic] = frozenset(self._competitors(entity_id, topic))
        return cached

    def rival_groups(self, entity_id: str, topic: str | None) -> list[frozenset[str]]:
        """Sets whose union, without ``entity_id``, is ``rivals(entity_id, topic)``: whether a mention
        names a rival is found by intersecting its ids with them, without making the rivals (every
        other monster, for a monster)."""
        cached = self._rival_groups.get((entity_id, topic))
        if cached is None:
            _, type_, monster, _ = self.graph.naming(entity_id)
            if type_ == "monster":
                cached = [self._monsters]
            else:
                groups = self._groups
                cached = [groups[type_, owner] for owner in {monster, topic, None} if (type_, owner) in groups]
            self._rival_groups[entity_id, topic] = cached
        return cached

    def _competitors(self, entity_id: str, topic: str | None) -> set[str]:
        _, type_, monster, _ = self.graph.naming(entity_id)
        if type_ == "monster":
            return self._monsters - {entity_id}
        owners = {monster, topic, None}
        return {i for owner in owners for i in self._by_type_and_owner.get((type_, owner), ())} - {entity_id}


def _compared(words: list[str], start: int) -> bool:
    """True when the words before ``start`` relate the mention to the answer instead of giving it
    ("the subspecies of Rathian", "the same class as Nargacuga", "like Rathalos")."""
    if start and words[start - 1] not in _COMPARISON_ENDS and words[start - 1] not in _ARTICLES:
        return False            # the word before is kept and ends no comparison (most mentions)
    before = [w for w in words[max(0, start - 4):start] if w not in _ARTICLES]
    if not before or before[-1] not in _COMPARISON_ENDS:
        return False
    if before[-1:] == ["as"] and "same" in before[-3:]:      # "the same (class) as"
        return True
    return any(tuple(before[-len(marker):]) == marker for marker in _COMPARISONS)


def _may_hold_negation_phrase(words: list[str]) -> bool:
    """True when the text of ``words`` holds a negation phrase (when it holds none, and ``words``
    no negation word, ``_negated`` is False at every place: the text of a window of them is part
    of their text). Each phrase holds a space and its second word (``_NEGATION_PHRASE_SECOND_WORDS``),
    which most texts lack: those are told apart by substring tests, faster than the search."""
    text = " ".join(words)
    return (" than" in text or " of" in text or " opposed" in text) and _ANY_NEGATION_PHRASE.search(text) is not None


def _negated(words: list[str], start: int) -> bool:
    before = words[max(0, start - _NEGATION_GAP - 3):start]
    if not _NEGATIONS.isdisjoint(before[-(_NEGATION_GAP + 1):]):
        return True
    text = " ".join(before)
    return any(phrase in text for phrase in _NEGATION_PHRASE_TEXTS)


def contains_wording(text_words: list[str], wording: str) -> bool:
    """True when the key words of ``wording`` occur in ``text_words`` as consecutive words."""
    return _holds_wording(_padded(text_words), wording)


def _padded(words: list[str]) -> str:
    """Key words joined by spaces, with a space at each end: a run of words occurs in a text
    exactly when its padded form is a substring of the text's (no key word holds a space, nor any
    other white space: ``_padded(words).split() == words``)."""
    return f" {' '.join(words)} "


@lru_cache(maxsize=4096)
def _padded_wording(wording: str) -> str | None:
    """``_padded`` of a wording's key words; None when it has none (it then occurs nowhere)."""
    words = key_words(wording)
    return _padded(words) if words else None


def _holds_wording(padded_text: str, wording: str) -> bool:
    """``contains_wording`` of a text given as ``_padded`` of its key words."""
    wanted = _padded_wording(wording)
    return wanted is not None and wanted in padded_text


def polarity(reply: str) -> str | None:
    """"yes" or "no" from the reply's first word, or None."""
    first = normalise_name(reply).split()[:1]
    if not first:
        return None
    return "yes" if first[0] in _YES else "no" if first[0] in _NO else None


def is_hedged(reply: str, said: str) -> bool:
    """True when a clause of the reply is only the opposite of ``said`` ("No/Yes", "No (yes)", "yes or no"),
    or pairs the two words ("Yes No")."""
    same, opposite = (_YES, _NO) if said == "yes" else (_NO, _YES)
    for clause in _CLAUSE.split(reply):
        words = [w for w in normalise_name(clause).split() if w not in _HEDGE_FILLERS]
        if words[:1] and words[0] in opposite and (len(words) == 1 or words[1] in same):
            return True
        if len(words) >= 2 and words[0] in same and words[1] in opposite:
            return True
    return False


class KeyJudge:
    """Decides a reply by the query's answer key; ``decide`` returns (accepted, rule)."""

    #: replies whose words and mentions are kept (a submission repeats short replies: "Yes", "Roar")
    READ_REPLIES_KEPT = 1 << 16

    def __init__(self, graph: KnowledgeGraph):
        self.graph = graph
        self.index = EntityIndex(graph)
        self._read: dict[str, tuple[str, list[Mention]]] = {}

    def _read_reply(self, reply: str) -> tuple[str, list[Mention]]:
        """The reply's key words (``_padded``: one string, not a list of words, kept for every reply
        read: that is what a nugget or a rival wording is looked for in) and its mentions, kept for
        the next reply of the same text (neither is changed by the caller)."""
        read = self._read.get(reply)
        if read is None:
            if len(self._read) >= self.READ_REPLIES_KEPT:
                self._read.clear()
            words = key_words(reply)
            read = self._read[reply] = (_padded(words), self.index.mentions_in_words(words))
        return read

    def decide(self, key: AnswerKey, reply: str, *, topic: str | None = None,
               context: Iterable[str] | Callable[[], Sequence[str]] = (),
               paths: Iterable[Sequence[str]] = ()) -> tuple[bool, str]:
        """``context``: texts whose names are context (question, scene, reference answer), or a
        function giving them, called only when the reply names more than the key (a text may be a
        function that writes it, called only when the text must be read); ``paths``: the
        ground-truth paths. The entities on a path before its last one lead to the answer and are
        context; for the reasons of a yes/no answer every entity on them is."""
        if key.kind == "yes_no":
            said = polarity(reply)
            if said is None:
                return False, "key-polarity-missing"
            if said != key.polarity:
                return False, "key-polarity-wrong"
            if is_hedged(reply, said):
                return False, "key-hedge"
        padded, mentions = self._read_reply(reply)
        if not _all_named(key.entities, mentions):
            return False, "key-point-missing" if key.kind in ("yes_no", "text") else "key-missing"
        if key.nuggets:
            if any(not any(_holds_wording(padded, w) for w in point) for point in key.nuggets):
                return False, "key-nugget-missing"
        others = _naming_no_key_entity(mentions, key.entities)
        if not others and not key.rivals:
            return True, _ACCEPTED.get(key.kind, "key-text")      # nothing named beyond the key: no rival, claim or flood
        rival_mentions = self._rival_mentions(key, others, topic)
        if not rival_mentions and not key.rivals and key.kind != "yes_no" and len(others) <= MAX_OTHER_ENTITIES:
            return True, _ACCEPTED.get(key.kind, "key-text")      # no rival, claim or flood, whatever the context
        texts = context() if callable(context) else tuple(context)
        if reply in texts:      # it repeats a context text: every name in it is context (no rival, claim or flood)
            if _names_rival_wording(key, padded):
                return False, "key-rival"
            return True, _ACCEPTED.get(key.kind, "key-text")
        if not isinstance(paths, (list, tuple)):
            paths = list(paths)                 # (read twice: for the known ids and the support)
        words = _NamesIn(self.index, texts)
        known = _PathContext(words, paths, topic, whole=False)
        if self._names_rival(key, mentions, rival_mentions, known, padded):
            return False, "key-rival"
        if key.kind == "yes_no":
            support = _PathContext(words, paths, topic, whole=True)
            if self._claims_beyond(others, support):
                return False, "key-claim"
        if self._floods(others, known):
            return False, "key-flood"
        return True, _ACCEPTED.get(key.kind, "key-text")

    def _rival_mentions(self, key: AnswerKey, others: list[Mention], topic: str | None) -> list[Mention]:
        """The mentions among ``others`` (those that name no key entity) that name a rival of a key
        entity, not negated and no comparison: rivals unless the context holds them."""
        groups = [group for e in key.entities for group in self.index.rival_groups(e, topic)]
        if not groups:
            return []
        return [m for m in others if not m.negated and not m.compared and any(not m.ids.isdisjoint(g) for g in groups)]

    @staticmethod
    def _names_rival(key: AnswerKey, mentions: list[Mention], rival_mentions: list[Mention],
                     context: Context | _PathContext, padded: str) -> bool:
        """True when the reply (``padded``: ``_padded`` of its key words) names a rival of a key entity
        (``rival_mentions``: ``_rival_mentions``) outside the context, not the key named again shorter,
        or a rival wording of the key."""
        key_mentions = None
        for m in rival_mentions:
            if context.holds(m):
                continue            # (a mention whose ids the context holds is context, rival or not)
            if key_mentions is None:
                wanted = set(key.entities)
                key_mentions = [k for k in mentions if k.ids & wanted and not k.negated]
                reply_words = padded.split()
            if any(_refers_back(m, k, reply_words) for k in key_mentions):
                continue
            return True
        return _names_rival_wording(key, padded)

    @staticmethod
    def _claims_beyond(others: list[Mention], context: Context | _PathContext) -> bool:
        """True when a yes/no reply's reason names an entity that neither the key (``others`` name
        none) nor the context (the question, the scene, the reference answer, the way to the
        answer) names."""
        return any(not m.negated and not m.compared and not context.holds(m) for m in others)

    @staticmethod
    def _floods(others: list[Mention], context: Context | _PathContext) -> bool:
        """True when the reply names more than MAX_OTHER_ENTITIES names outside the key (``others``)
        and the context. The mentions of one name have its ids, so the context holds all or none
        of them: one is asked per name, until too few are left to flood (each may read a text)."""
        by_name = {m.words: m for m in others}
        outside = len(by_name)
        if outside <= MAX_OTHER_ENTITIES:
            return False        # too few names to flood, whatever the context holds
        for mention in by_name.values():
            if context.holds(mention):
                outside -= 1
                if outside <= MAX_OTHER_ENTITIES:
                    return False
        return True


def _all_named(entities: Iterable[str], mentions: list[Mention]) -> bool:
    """True when every entity is among the ids of some mention not negated."""
    for entity in entities:
        for mention in mentions:
            if entity in mention.ids and not mention.negated:
                break
        else:
            return False
    return True


def _naming_no_key_entity(mentions: list[Mention], entities: tuple[str, ...]) -> list[Mention]:
    """The mentions naming none of ``entities``, each of which a mention not negated names
    (``_all_named``): all of them when there is no entity, none when there is one mention (it names
    them: most replies), else found by a scan."""
    if not entities:
        return mentions
    if len(mentions) == 1:
        return []
    return [m for m in mentions if m.ids.isdisjoint(entities)]


def _names_rival_wording(key: AnswerKey, padded: str) -> bool:
    """True when a reply (``padded``: ``_padded`` of its key words) holds a rival wording of the key
    that is not negated."""
    return any(_holds_wording(padded, r) and not _wording_negated(padded.split(), r) for r in key.rivals)


def _refers_back(mention: Mention, key_mention: Mention, reply_words: list[str]) -> bool:
    """True when ``mention`` names the key entity again, shorter ("the Enraged Roar ... it roars"):
    its words lie inside the key's name, it comes after it, and no hedge word ("or", "maybe") is
    between them ("Double Bite, or maybe a Bite" hedges)."""
    part, whole = mention.words, key_mention.words
    n = len(part)
    inside = n < len(whole) and any(whole[i:i + n] == part for i in range(len(whole) - n + 1))
    between = reply_words[key_mention.start + len(whole):mention.start]
    return inside and mention.start > key_mention.start and not _HEDGE_WORDS & set(between)


def _wording_negated(reply_words: list[str], wording: str) -> bool:
    """True when every occurrence of ``wording`` in the reply follows a negation."""
    wanted = key_words(wording)
    n = len(wanted)
    starts = [i for i in range(len(reply_words) - n + 1) if reply_words[i:i + n] == wanted]
    return bool(starts) and all(_negated(reply_words, i) for i in starts)


#: the rules in a few lines with examples, for ``mhmmkg evaluate --help`` and ``judge-agreement --help``
RULES_HELP = f"""\
How the exact judge decides (--judge exact):
  A query with an answer key ("key" in the queries config) is decided by the key. Entities are
  found in the reply by name or alias (case, punctuation and a plural s ignored, longest name
  first). Rivals of a key entity: the other entities of its type of the same monster or of the
  topic monster, the shared ones of that type, and for a monster every other monster. Names used
  in the question, auxiliary information, scene or reference answer, and the entities on the
  ground-truth paths before the answer, are context, not rivals. A mention right after "not",
  "never", "rather than", "instead of" names nothing; one right after "subspecies of", "mate of",
  "same as", "like" is a comparison, not a rival. The rule that decided is the
  verdict's "rule" (in --json).
  entity    right: names the key entity and no rival               rules key-entity / key-missing, key-rival
            key Double Slam: "It slams twice (Double Slam)" right; "Zinogre's Double Slam" right;
            "Double Slam or Tail Slam" wrong (hedge); "the Double Slam, not the Tail Slam" right
  entities  right: names every key entity and no rival            rules key-entities / key-missing, key-rival
            key Shock Trap + Pitfall Trap: "Pitfall Trap and Shock Trap" right; "Shock Trap" wrong
  yes_no    right: the first word has the key's polarity (yes, yeah, yep, correct / no, nope),
            no hedge, every required point present, no rival
                          rules key-polarity / key-polarity-wrong, key-polarity-missing, key-hedge,
                                key-point-missing, key-nugget-missing, key-rival, key-claim
            key Yes: "Yes, the slime explodes" right; "Yes/No", "Yes (no)", "Yes No" wrong;
            "It is safe." wrong (no leading yes/no: a statement's polarity is not read);
            a reason naming an entity the reference, question, scene and paths do not: wrong (key-claim)
  text      right: every nugget (any of its wordings) and key entity present, no rival wording
                                                                   rules key-text / key-nugget-missing, key-rival
            nugget "fanged wyvern", rival "flying wyvern": "Tigrex is a Fanged Wyvern" right;
            "Fanged or Flying Wyvern" wrong
  Any kind: more than {MAX_OTHER_ENTITIES} entities outside the key and the context is a flood (key-flood), wrong.
  Without a key (and with --judge exact-nokey, the rules before keys): equal after normalisation
  (a leading monster name, "the answer is", "it will use", articles dropped), another name of
  the entity the reference names (alias), the reference's yes/no with no hedge and the same
  entities (yes_no), or the same alternatives in any order (list).
"""
