"""Judges: decide whether a predicted answer (or a generated caption) matches the reference.

Two judges share one small interface (``judge(Judgement) -> Verdict``):

``ExactJudge`` (offline, deterministic, the default) decides a query that has an answer key
by the key (rules in ``key_judge``: the reply must name the key entity and no rival, give the
key's polarity without a hedge, hold every required point). A query without a key falls back
to the text rules below: it accepts an answer when one of these holds, tried in this order,
and rejects it otherwise:

1. ``normalised``: the texts are equal after lower-casing, dropping punctuation and extra
   spaces, and removing a leading monster name (``"Zinogre Back Slam"`` = ``"Back Slam"``,
   also ``"Zinogre's"``), the leading words that only announce the answer (``"is releasing"``,
   ``"will use"``, ``"it could be"``, ...) and a leading article. Nothing is removed when it
   would leave the text empty.
2. ``alias``: the reference names a KG entity (the topic monster's own entities first) and the
   prediction is another of that entity's names. Not for the topic monster itself: for "What
   is the nickname of Wolf?" (reference "Thunder Wolf", an alias of Wolf) "Wolf" is wrong.
3. ``yes_no``: the reference starts with "yes" or "no". The prediction must start with the
   same word and no clause of it may start with the other one ("Yes or no", "No/Yes" and
   "No (yes)" hedge); every KG entity the reference names after it (other than the topic monster) must also be named in
   the prediction, and the prediction may name no entity the reference does not (its claims):
   "No" followed by every name in the KG is rejected. The reason is otherwise not checked: a
   bare "Yes" is accepted for "Yes, there will be an explosion", but not for "No, Rathian only
   has the Fireball" unless it names the Fireball. This is deliberately strict; use the LLM
   judge for free-text reasons.
4. ``list``: both sides list alternatives ("A, B or C", "A and B"); accepted when the two
   lists hold the same items in any order, each item compared by rules 1-2. Naming one of
   several alternatives is rejected. A side that as a whole is an entity name ("Catch and
   Throw Attack") is never split.

Long descriptive answers are thus only accepted when equal after normalisation; that is
conservative by design. For captions the exact judge uses word overlap (F1 of content words
at least ``caption_threshold``), a crude offline stand-in for the LLM judge.

``LLMJudge`` asks a chat model (``mhmmkg.chat``) for a one-word Yes/No verdict, with a few
examples, at temperature 0; its prompts are data, the prompt set ``prompt_sets/judge.json``
(``--judge-prompts`` gives another). A reply whose first word is not yes or no is *unparseable*: its
verdict is ``None``, the evaluator counts it as not accepted and reports it apart, and the raw
reply is kept. Wrap the backend in ``CachedChat`` to cache verdicts: the cache key covers the
judge model, the prompt (which carries ``PROMPT_VERSION``), the question, the reference and
the prediction.
"""
from __future__ import annotations

import functools
import json
import pkgutil
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.kg.model import AnswerKey
from mhmmkg.lexical.tokens import JUDGE_CONTENT, JUDGE_STOP_WORDS

from .key_judge import KeyJudge

if TYPE_CHECKING:
    from mhmmkg.llm.chat import ChatBackend
    from mhmmkg.llm.prompt_sets import PromptSet

ANSWER = "answer"
CAPTION = "caption"
#: the tag that opens the system texts of the judge's prompt set (``prompt_sets/judge.json``)
PROMPT_VERSION = "mhmmkg-judge-v3"


@dataclass(frozen=True)
class Judgement:
    """One prediction to judge against its reference."""

    kind: str               # ANSWER or CAPTION
    question: str           # the question shown to the model, or for captions the entity's name
    reference: str          # ground-truth answer, or the human caption
    prediction: str
    monster: str | None = None  # topic entity id (answers) or owning monster (captions)
    key: AnswerKey | None = None  # the query's answer key (answers), read by the exact judge
    key_text: str | None = None   # the key in words (``mhmmkg.render.render_key``), given to the LLM judge
    scene: str | None = None      # the scene description the model was given: context, not an answer
    #: the ground-truth paths: the knowledge leading to the answer is context (see ``key_judge``)
    paths: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Verdict:
    accepted: bool | None   # None: the judge's reply could not be read as Yes or No
    rule: str               # which rule decided (exact judge) or the judge model (LLM judge)
    raw: str = ""           # the LLM's reply, verbatim


class Judge(Protocol):
    name: str

    def judge(self, item: Judgement) -> Verdict: ...


def judge_all(judge: Judge, items: Sequence[Judgement], *, workers: int = 1,
              progress: Callable[[int], None] | None = None) -> list[Verdict]:
    """Verdicts for ``items`` in order; with ``workers`` > 1 judged on a thread pool."""
    def one(item: Judgement) -> Verdict:
        verdict = judge.judge(item)
        if progress:
            progress(1)
        return verdict

    if workers <= 1 or len(items) <= 1:
        return [one(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor     # here: the offline judges need no threads

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, items))


# ---------------------------------------------------------------------------------------------
# Exact judge

_LEAD_IN_PHRASES = ("the answer is", "the attack action is", "the attack is", "the monster")
_LEAD_IN_WORDS = frozenset(
    "it this he she they is are was will would may might could can has have had just be going to "
    "probably likely maybe release releases released releasing use uses used using perform performs "
    "performed performing unleash unleashes unleashed unleashing".split()
)
_ARTICLES = ("the", "a", "an")
_SEPARATORS = re.compile(r"\s*(?:[,;/]|\bor\b|\band\b)\s*", re.IGNORECASE)
_POLARITY = ("yes", "no")
_CLAUSES = re.compile(r"[.,;:!?/()\[\]]|\bor\b")
_MAX_NAME_WORDS = 8
_STOPWORDS = JUDGE_STOP_WORDS


class _Prefixes:
    """Strips the first of ``prefixes`` (in their order) that a text starts with as whole words.

    The prefixes are indexed by their first word: a text can only start with ``prefix + " "``
    when its first word is the prefix's first word, so only those few are tried, in the same
    order, and the result is the same as trying every prefix.
    """

    def __init__(self, prefixes: Sequence[str]):
        self._by_first_word: dict[str, list[str]] = {}
        for prefix in prefixes:
            self._by_first_word.setdefault(prefix.partition(" ")[0], []).append(prefix)

    def strip(self, text: str) -> str:
        """``text`` without the first prefix it starts with (whole words), if anything is left."""
        for prefix in self._by_first_word.get(text.partition(" ")[0], ()):
            if text.startswith(prefix + " "):
                return text[len(prefix) + 1:]
        return text


_LEAD_IN = _Prefixes(_LEAD_IN_PHRASES)
_ARTICLE = _Prefixes(_ARTICLES)


_words = JUDGE_CONTENT.words


def word_f1(reference: str, prediction: str) -> float:
    """F1 of content words (crudely singularised) shared by two texts."""
    ref, pred = _words(reference), _words(prediction)
    if not ref or not pred:
        return 0.0
    common = sum((Counter(ref) & Counter(pred)).values())
    if not common:
        return 0.0
    p, r = common / len(pred), common / len(ref)
    return 2 * p * r / (p + r)


#: a generated caption is a copy of the human one when at least COPY_PRECISION of its distinct
#: content words are the human caption's and it repeats at least COPY_RECALL of the human's: a
#: word added, words shuffled, the first word dropped or half of it kept all stay copies, while a
#: description in the model's own words shares few content words (it sees the same scene, so some)
COPY_PRECISION = 0.75
COPY_RECALL = 0.4


def copy_overlap(caption: str, human: str) -> tuple[float, float]:
    """(share of the caption's distinct content words found in the human caption, share of the
    human caption's distinct content words found in the caption)."""
    mine, theirs = set(_words(caption)), set(_words(human))
    if not mine or not theirs:
        return (0.0, 0.0)
    shared = len(mine & theirs)
    return shared / len(mine), shared / len(theirs)


def is_copy(caption: str, human: str) -> bool:
    """True when ``caption`` is the human caption, reworded too little to count as the model's own."""
    if normalise_name(caption) == normalise_name(human):
        return True
    precision, recall = copy_overlap(caption, human)
    return precision >= COPY_PRECISION and recall >= COPY_RECALL


class ExactJudge:
    """The offline deterministic judge (see the module docstring for its rules).

    With ``use_keys`` (default) a query with an answer key is decided by the key
    (``key_judge``); ``use_keys=False`` (name "exact-nokey") applies the text rules to every
    query, as before keys existed, so the two can be compared.
    """

    def __init__(self, graph: KnowledgeGraph, *, caption_threshold: float = 0.5, use_keys: bool = True):
        self.graph = graph
        self.caption_threshold = caption_threshold
        self.use_keys = use_keys
        self.name = "exact" if use_keys else "exact-nokey"
        self._key_judge = KeyJudge(graph) if use_keys else None
        #: (accepted, rule) -> its Verdict, made once (a verdict is immutable; the key judge has few rules)
        self._key_verdicts: dict[tuple[bool, str], Verdict] = {}

    @functools.cached_property
    def _monster_names(self) -> list[str]:
        """The monsters' normalised names, longest first (made when the text rules first need them:
        a benchmark whose queries all have answer keys never does)."""
        names = {normalise_name(n) for _, type_, _, monster_names in self.graph.entity_names() if type_ == "monster"
                 for n in monster_names}
        return sorted((n for n in names if n), key=len, reverse=True)

    @functools.cached_property
    def _monster_prefixes(self) -> _Prefixes:
        return _Prefixes([p for n in self._monster_names for p in (n + " s", n)])

    def judge(self, item: Judgement) -> Verdict:
        if item.kind == CAPTION and item.prediction.strip():
            score = word_f1(item.reference, item.prediction)
            return Verdict(score >= self.caption_threshold, f"word_f1={score:.2f}")
        return self.judge_answer(item.prediction, item.reference, item.monster, item.key,
                                 lambda: (item.question, item.scene or "", item.reference), item.paths)

    def judge_answer(self, prediction: str, reference: str, monster: str | None, key: AnswerKey | None,
                     context: Callable[[], Sequence[str | Callable[[], str]]],
                     paths: Sequence[Sequence[str]] = ()) -> Verdict:
        """``judge`` of an answer given by the parts of its ``Judgement``; ``context()`` gives the
        question (or a function writing it, called only when the key judge reads the question),
        the scene ("" without one) and the reference, and is called only when the key judge reads
        them (so a caller need not write the question of every query)."""
        if not prediction.strip():
            return Verdict(False, "empty")
        if key is not None and self._key_judge is not None:
            decided = self._key_judge.decide(key, prediction, topic=monster, context=context, paths=paths)
            verdict = self._key_verdicts.get(decided)
            if verdict is None:
                verdict = self._key_verdicts[decided] = Verdict(*decided)
            return verdict
        rule = self.answer_rule(prediction, reference, monster)
        return Verdict(rule is not None, rule or "no_match")

    def answer_rule(self, prediction: str, reference: str, monster: str | None = None) -> str | None:
        """The rule that accepts ``prediction`` for ``reference``, or None."""
        rule = self._item_rule(prediction, reference, monster)
        if rule:
            return rule
        if self._same_polarity_and_entities(prediction, reference, monster):
            return "yes_no"
        if self._same_alternatives(prediction, reference, monster):
            return "list"
        return None

    def forms(self, text: str) -> list[str]:
        """Normalised forms of a text, from the full text to the bare answer."""
        forms = [normalise_name(text)]
        changed = True
        while changed:
            changed = False
            for strip in (self._strip_monster, self._strip_lead_in, self._strip_article):
                stripped = strip(forms[-1])
                if stripped != forms[-1]:
                    forms.append(stripped)
                    changed = True
        return [f for f in forms if f]

    def _strip_monster(self, text: str) -> str:
        return self._monster_prefixes.strip(text)

    @staticmethod
    def _strip_lead_in(text: str) -> str:
        text = _LEAD_IN.strip(text)
        first, _, rest = text.partition(" ")
        return rest if rest and first in _LEAD_IN_WORDS else text

    @staticmethod
    def _strip_article(text: str) -> str:
        return _ARTICLE.strip(text)

    def entity_names(self, forms: Sequence[str], monster: str | None) -> set[str]:
        """Normalised names of the KG entities the forms name (the topic monster's own ones if any).

        The topic monster itself is left out: a reference that is one of its names answers a
        question about its names ("nickname?", "species?"), so its other names are not answers.
        """
        if monster is not None:
            own = {normalise_name(n) for form in forms for e in self.graph.find_owned(form, monster)
                   if e.id != monster for n in e.names}
            if own:
                return own
        return {n for form in forms for n in self.graph.names_called(form, excluding=monster)}

    def _item_rule(self, prediction: str, reference: str, monster: str | None) -> str | None:
        predicted, wanted = self.forms(prediction), self.forms(reference)
        if set(predicted) & set(wanted):
            return "normalised"
        if set(predicted) & self.entity_names(wanted, monster):
            return "alias"
        return None

    def _same_polarity_and_entities(self, prediction: str, reference: str, monster: str | None) -> bool:
        ref_words = normalise_name(reference).split()
        pred = normalise_name(prediction)
        if not ref_words or ref_words[0] not in _POLARITY or pred.split()[:1] != ref_words[:1]:
            return False
        opposite = _POLARITY[1 - _POLARITY.index(ref_words[0])]
        if any(clause.split()[:1] == [opposite] for clause in _CLAUSES.split(prediction.lower())):
            return False
        padded = f" {pred} "
        wanted = self._mentions(ref_words[1:], monster)
        for names in wanted:
            if not any(f" {n} " in padded for n in names):
                return False
        claimed = self._mentions(pred.split()[1:], monster)
        return all(any(names & w for w in wanted) for names in claimed)

    def _mentions(self, words: list[str], monster: str | None) -> list[set[str]]:
        """Entities named in a run of words (longest names first), except the topic monster."""
        topic = {normalise_name(n) for n in self.graph.entity(monster).names} if monster in self.graph else set()
        mentions, i = [], 0
        while i < len(words):
            for n in range(min(_MAX_NAME_WORDS, len(words) - i), 0, -1):
                phrase = " ".join(words[i:i + n])
                names = self.graph.names_called(phrase)
                if names and phrase not in topic and phrase not in _STOPWORDS:
                    mentions.append(set(names))
                    i += n
                    break
            else:
                i += 1
        return mentions

    def _alternatives(self, text: str, monster: str | None) -> list[str]:
        if self.entity_names(self.forms(text), monster):
            return [text]
        return [part for part in _SEPARATORS.split(text) if normalise_name(part)]

    def _same_alternatives(self, prediction: str, reference: str, monster: str | None) -> bool:
        wanted, offered = self._alternatives(reference, monster), self._alternatives(prediction, monster)
        if len(wanted) < 2 or len(wanted) != len(offered):
            return False
        unused = list(offered)
        for item in wanted:
            match = next((o for o in unused if self._item_rule(o, item, monster)), None)
            if match is None:
                return False
            unused.remove(match)
        return True


# ---------------------------------------------------------------------------------------------
# LLM judge

@functools.cache
def default_judge_prompts() -> PromptSet:
    """The LLM judge's own prompts (``prompt_sets/judge.json``: ``judge`` for answers,
    ``caption_judge`` for captions, each a system text, worked examples and the call)."""
    from mhmmkg.llm.prompt_sets import prompt_set_from_dict

    text = pkgutil.get_data(__package__, "prompt_sets/judge.json").decode("utf-8")
    return prompt_set_from_dict(json.loads(text), "mhmmkg/eval/prompt_sets/judge.json")


def _quoted(text: str) -> str:
    """A text as one JSON string literal: its quotes and line breaks escaped, so an answer cannot
    end its own field and forge lines of the prompt."""
    return json.dumps(text, ensure_ascii=False)


def with_quoted(fields: Mapping[str, str]) -> dict[str, str]:
    """The fields and each as a JSON string literal (``<name>_json``)."""
    return {**fields, **{f"{name}_json": _quoted(value) for name, value in fields.items()}}


def parse_verdict(reply: str) -> bool | None:
    """True for a reply whose first word is yes, False for no, None for anything else."""
    match = re.match(r"[\W_]*([A-Za-z]+)", reply)
    word = match.group(1).lower() if match else ""
    return {"yes": True, "no": False}.get(word)


def parse_verdict_exact_yes(reply: str) -> bool | None:
    """The authors' evaluation.py: only the reply "Yes", character for character, is accepted.
    "No" is False; anything else ("Yes.", "yes", " Yes") is None: not accepted, reported apart."""
    return {"Yes": True, "No": False}.get(reply)


#: how an LLM judge's reply becomes a verdict (``evaluate --judge-verdict``)
VERDICT_PARSERS: dict[str, Callable[[str], bool | None]] = {
    "first-word": parse_verdict, "exact-yes": parse_verdict_exact_yes}


class LLMJudge:
    """A chat model as judge: few-shot, one-word Yes/No verdicts at temperature 0.

    With ``prompts`` (a prompt set holding ``judge`` and, for captions, ``caption_judge``
    templates, e.g. the authors' judge imported by ``mhmmkg import-official-prompts``), the
    model gets that set's single prompt instead of ours (ours stays for a kind the set lacks).
    """

    def __init__(self, backend: ChatBackend, *, max_tokens: int | None = 16, prompts: PromptSet | None = None,
                 verdict: str = "first-word"):
        self.backend = backend
        self.max_tokens = max_tokens
        self.prompts = prompts
        #: "exact-yes" (the authors' script) also asks about an empty answer, as their script does
        self.verdict = verdict
        self.parse = VERDICT_PARSERS[verdict]
        self.name = f"llm:{backend.fingerprint}" + (f"|prompts:{prompts.name}:{prompts.sha256[:12]}" if prompts else "")
        if verdict != "first-word":
            self.name += f"|verdict:{verdict}"

    def request(self, item: Judgement):
        from mhmmkg.llm.chat import ChatRequest, Message

        agent = "caption_judge" if item.kind == CAPTION else "judge"
        fields = {"question" if agent == "judge" else "entity": item.question, "reference": item.reference,
                  "prediction": item.prediction}
        if agent == "judge":
            fields["key"] = item.key_text or ""
        prompts = self.prompts if self.prompts is not None and self.prompts.has(agent) else default_judge_prompts()
        messages = prompts.conversation(agent, fields, prepare=with_quoted)
        return ChatRequest(messages=tuple(Message(role, text) for role, text in messages), temperature=0.0,
                           max_tokens=self.max_tokens)

    def close(self) -> None:
        getattr(self.backend, "close", lambda: None)()

    def judge(self, item: Judgement) -> Verdict:
        if not item.prediction.strip() and self.verdict == "first-word":
            return Verdict(False, "empty")
        response = self.backend.complete(self.request(item))
        return Verdict(self.parse(response.text), response.model, response.text)
