"""The deterministic offline model: a chat backend that performs each agent's task without a network.

It reads the same prompts an LLM gets (it recognises the agent by the system text and reads the
inputs back from the ``## Section`` blocks) and answers in the format the prompt asks for, so a
run with ``--model offline`` goes through exactly the code path of a real model. Its skill is
lexical: stemmed word overlap weighted by rarity among the candidates, a few concept cues
(what comes next, weaknesses, items, effects, related monsters), entity names mentioned in the
question, and an extractive summarizer. That makes its scores a meaningful floor, not a joke.
Images are described by their size and dominant colours: it cannot see.
"""
from __future__ import annotations

import io
import math
import re
import time
from dataclasses import dataclass
from functools import lru_cache

from mhmmkg.lexical.tokens import OFFLINE, OFFLINE_CONTENT, OFFLINE_STOP_WORDS
from mhmmkg.llm.chat import ChatRequest, ChatResponse
from mhmmkg.llm.prompt_text import (Block, KnowledgePath, parse_candidates, parse_entity, parse_knowledge,
                                    parse_monster_menu, parse_path_names, relation_condition, relation_type_of)
from mhmmkg.kg.graph import normalise_name

from .names import NameIndex
from .prompts import agent_of, sections

VERSION = 1

STOPWORDS = OFFLINE_STOP_WORDS     # its old name

#: words that point at what a question needs; the key is a concept tag added to the tokens
CONCEPTS: dict[str, tuple[str, ...]] = {
    "@next": ("next", "follow", "followup", "afterward", "afterwards", "continu", "combo", "subsequ", "chain"),
    "@weak": ("weak", "weakness", "weakest", "vulnerabl", "effectiv"),
    "@resist": ("resist", "resistant", "resistanc", "immun"),
    "@stop": ("stop", "interrupt", "prevent", "cancel", "flinch", "stun", "trap"),
    "@mate": ("mate", "pair", "partner", "coupl", "spous"),
    "@sub": ("subspeci", "speci", "variant", "origin", "cousin", "relat"),
    "@leave": ("leav", "left", "behind", "remain", "linger", "trail", "generat", "creat", "produc", "spawn"),
    "@cause": ("caus", "inflict", "status", "blight", "ailment", "effect", "poison", "paralys", "sleep"),
    "@phase": ("phase", "mode", "stage", "form"),
    "@air": ("air", "fly", "flie", "flight", "airborn", "aerial", "sky", "hover", "midair"),
    "@rage": ("enrag", "angry", "anger", "rage", "furious", "mad"),
    "@craft": ("material", "craft", "forg", "weapon", "armor"),
}
_CONCEPT_OF = {stem: tag for tag, stems in CONCEPTS.items() for stem in stems}

#: relation phrases and the concept that makes them relevant
RELATION_CONCEPT = {
    "continues_with": "@next", "mostly_weak_to": "@weak", "weak_to": "@weak", "resistant_to": "@resist",
    "can_be_stopped_by": "@stop", "mated_pair_with": "@mate", "has_subspecies": "@sub",
    "subspecies_of": "@sub", "generates": "@leave", "causes": "@cause", "has_attack_phase": "@phase",
    "changes_phase_to": "@phase", "provides_materials_for": "@craft", "has_attack_variant": "@rage",
}
_YES_NO_START = ("is", "are", "can", "does", "do", "will", "has", "have", "could", "should", "was", "did", "would")
_NEGATIONS = frozenset({"not", "no", "never", "cannot", "can't", "won't", "doesn't", "isn't", "without", "unable"})


def stem(word: str) -> str:
    """A light suffix stripper: 'slams', 'slammed', 'slamming' -> 'slam'; 'charges', 'charged' -> 'charg'."""
    for suffix in ("ings", "ing", "edly", "ed", "ies", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                suffix = "s"
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "ls":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


words = OFFLINE.words


def tokens(text: str) -> list[str]:
    """Stemmed content words of ``text`` plus the concept tags they evoke."""
    out = []
    for word in OFFLINE_CONTENT.words(text):
        stemmed = stem(word)
        out.append(stemmed)
        tag = _CONCEPT_OF.get(stemmed) or _CONCEPT_OF.get(word)
        if tag:
            out.append(tag)
    return out


def mentions(name: str, text: str) -> bool:
    """True when the whole name appears in the text as words (case and punctuation ignored)."""
    name = normalise_name(name)
    return bool(name) and f" {name} " in f" {normalise_name(text)} "


def _without(text: str, name: str) -> str:
    """``text`` (normalised) with every mention of ``name`` taken out."""
    text, name = f" {normalise_name(text)} ", normalise_name(name)
    return text.replace(f" {name} ", " ") if name else text


@dataclass
class Need:
    """What a question asks for, read from its words."""

    next_move: bool = False
    effect: bool = False
    weakness: bool = False
    item: bool = False
    yes_no: bool = False
    how_many: bool = False
    when: bool = False
    status: bool = False

    @classmethod
    def of(cls, question: str) -> Need:
        q = question.lower()
        ask = _last_sentence(q)
        toks = set(tokens(ask))
        within = any(p in q for p in ("this attack", "within", "current attack", "same attack"))
        past = any(p in q for p in ("just released", "has released", "just now", "released just", "just used"))
        next_move = ("@next" in toks or "will happen" in ask or "will do" in ask or "going to" in ask) and not past
        if within and "@next" not in toks:
            next_move = False
        first = (words(ask) or [""])[0]
        return cls(
            next_move=next_move,
            effect=bool({"@leave", "@cause"} & toks),
            weakness=bool({"@weak", "@resist"} & toks),
            item="@stop" in toks,
            yes_no=first in _YES_NO_START,
            how_many="how many" in ask or "how much" in ask,
            when=first == "when" or "under what condition" in ask or "in what situation" in ask,
            status=bool({"status", "ailment", "blight"} & {stem(w) for w in words(ask)}),
        )


def _last_sentence(text: str) -> str:
    """The asking sentence of a question that may open with context ("I am playing ... .")."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p]
    asking = [p for p in parts if p.endswith("?")]
    return (asking or parts or [""])[-1]


@lru_cache(maxsize=8)
def _monster_menu(section: str) -> tuple[list[str], NameIndex]:
    """The monsters of a topic prompt's list and an index of their names and aliases. Every query
    of a run shows the same list, so it is read once, not once per query."""
    menu = parse_monster_menu(section)
    return [name for name, _ in menu], NameIndex((n, name) for name, aliases in menu for n in [name, *aliases])


class Scorer:
    """Rarity-weighted overlap of documents with a query, among a set of documents."""

    def __init__(self, query: str, documents: list[str]):
        self.query = set(tokens(query))
        self.docs = [set(tokens(d)) for d in documents]
        n = len(self.docs)
        df: dict[str, int] = {}
        for doc in self.docs:
            for t in doc:
                df[t] = df.get(t, 0) + 1
        self.idf = {t: math.log(1 + n / c) for t, c in df.items()}

    def score(self, i: int) -> float:
        shared = self.query & self.docs[i]
        return math.fsum(self.idf[t] for t in shared) / math.sqrt(len(self.docs[i]) + 4)  # exact: set order varies by process


class OfflineChat:
    """A ChatBackend that answers the baseline's prompts deterministically, with no network."""

    fingerprint = f"offline|v{VERSION}"
    max_choices = 3

    def complete(self, request: ChatRequest) -> ChatResponse:
        started = time.perf_counter()
        system = next((m.text for m in request.messages if m.role == "system"), "")
        user = [m for m in request.messages if m.role == "user"]
        text = user[-1].text if user else ""
        images = user[-1].images if user else ()
        agent = agent_of(system)
        handler = getattr(self, f"_{agent}", None) if agent else None
        reply = handler(sections(text), images) if handler else self._unknown(text)
        prompt_tokens = sum(len(m.text.split()) for m in request.messages)
        return ChatResponse(text=reply, model="offline", prompt_tokens=prompt_tokens,
                            completion_tokens=len(reply.split()), latency=time.perf_counter() - started)

    @staticmethod
    def _unknown(text: str) -> str:
        return "Answer: unknown"

    # ---- vision: it cannot see, it can only measure
    def _perceiver(self, s: dict, images: tuple[bytes, ...]) -> str:
        return describe_images(images)

    def _captioner(self, s: dict, images: tuple[bytes, ...]) -> str:
        return describe_images(images)

    # ---- topic selection: the monster named earliest in the question, extra and scene
    def _topic(self, s: dict, images) -> str:
        listed, names = _monster_menu(s.get("Monsters", ""))
        text = " ".join(s.get(k, "") for k in ("Question", "Auxiliary information", "Scene description"))
        found = names.earliest(text)
        if found:
            return min(found, key=lambda m: (-len(m.name), m.order)).value
        return listed[0] if listed else ""

    # ---- expansion: candidates ranked by overlap with the question, scene and concept cues
    def _expansion(self, s: dict, images) -> str:
        candidates = parse_candidates(s.get("Candidates", ""))
        if not candidates:
            return "NONE"
        question = s.get("Question", "")
        extra = s.get("Auxiliary information", "")
        scene = s.get("Scene description", "")
        need = Need.of(question)
        asked = set(tokens(_last_sentence(question.lower()) + " " + extra))
        topic = parse_path_names(s.get("Path so far", ""))[0]
        named = _without(question + " " + extra, topic)
        scorer = Scorer(" ".join([question, extra, scene]), [b.text() for _, b in candidates])
        scored = []
        for i, (number, block) in enumerate(candidates):
            score = scorer.score(i)
            relations = {relation_type_of(link) for link in block.links}
            concepts = {RELATION_CONCEPT.get(r) for r in relations}
            if concepts & asked:
                score += 2.0
            if any(c in asked for c in concepts if c in ("@weak", "@resist", "@stop", "@mate", "@sub")) \
                    and block.type in ("element", "prop", "monster"):
                score += 2.0
            if mentions(block.name, named):
                score += 4.0
            if need.next_move and "continues_with" in relations:
                score += 1.0
            scored.append((score, number, block))
        scored.sort(key=lambda x: (-x[0], x[1]))
        best = scored[0][0]
        if best <= 0:
            return "NONE"
        chosen, phase = [], False
        for score, number, block in scored:
            if score < 0.6 * best or len(chosen) >= self.max_choices:
                break
            if block.type == "attack_phase":
                if phase:
                    continue
                phase = True
            chosen.append(number)
        return ", ".join(str(n) for n in chosen)

    # ---- validation: is the last entity the kind of thing the question needs?
    def _validation(self, s: dict, images) -> str:
        return "SUFFICIENT" if self._complete(s) else "CONTINUE"

    def _validation_online(self, s: dict, images: tuple[bytes, ...]) -> str:
        verdict = "SUFFICIENT" if self._complete(s) else "CONTINUE"
        return f"Description: {describe_images(images)}\nVerdict: {verdict}"

    def _complete(self, s: dict) -> bool:
        entity = parse_entity(s.get("Entity to check", "").splitlines())
        if entity is None:
            return False
        question = s.get("Question", "")
        scene = s.get("Scene description", "")
        step = s.get("Reached by", "")
        need = Need.of(question)
        relation = relation_type_of(step) if step else None
        if entity.type == "attack_phase":
            return False
        if entity.type == "monster":
            return not scene and not need.next_move and _coverage(question, entity.text()) >= 0.4
        if entity.type == "attack_action":
            if need.next_move:
                return relation == "continues_with"
            return not (need.effect or need.weakness or need.item)
        if entity.type == "attack_effect" and need.status:
            return _is_status(entity)
        return True

    # ---- answers
    def _summarizer(self, s: dict, images) -> str:
        return "Answer: " + summarise(s)

    def _direct(self, s: dict, images) -> str:
        need = Need.of(s.get("Question", ""))
        return "Answer: " + ("Yes" if need.yes_no else "unknown")


def _is_status(entity: Block) -> bool:
    """A status the hunter suffers, as its name or knowledge says."""
    return bool({"status", "blight"} & {stem(w) for w in words(entity.name + " " + entity.knowledge)}) \
        or entity.name.lower().endswith("blight")


def _coverage(question: str, text: str) -> float:
    """Share of the asking sentence's content words found in ``text``."""
    asked = {t for t in tokens(_last_sentence(question.lower())) if not t.startswith("@")}
    if not asked:
        return 0.0
    return len(asked & set(tokens(text))) / len(asked)


def summarise(s: dict) -> str:
    """The extractive answer from the retrieved knowledge, shaped by what the question asks."""
    question = s.get("Question", "")
    extra = s.get("Auxiliary information", "")
    scene = s.get("Scene description", "")
    paths = parse_knowledge(s.get("Retrieved knowledge", ""))
    need = Need.of(question)
    if not paths:
        return "Yes" if need.yes_no else "unknown"
    sentences = [sent for p in paths for sent in p.sentences]
    sentences += [b.knowledge for p in paths for b in p.entities.values() if b.knowledge]
    ask = " ".join([_last_sentence(question.lower()), extra])
    if need.yes_no:
        best = _best_sentence(ask, sentences)
        return "No" if best and _NEGATIONS & set(words(best)) else "Yes"
    if need.how_many:
        best = _best_sentence(ask + " " + scene, [t for t in sentences if re.search(r"\d|\b(one|two|three|four|five|once|twice)\b", t.lower())])
        if best:
            return best
    if need.when:
        conditions = [c for sent in sentences if (c := relation_condition(sent)) is not None]
        best = _best_sentence(ask, conditions)
        if best:
            return best[0].upper() + best[1:]
    if all(len(p.names) == 1 for p in paths):
        return _from_text(paths, ask)
    return _best_leaf(paths, need, ask, scene)


ELEMENT_WORDS = ("fire", "water", "thunder", "ice", "dragon")


def _from_text(paths: list[KnowledgePath], ask: str) -> str:
    """For knowledge that is only the topic entity: its best-matching sentence, or for a
    question asking which element, the element that sentence names."""
    text = " ".join(b.knowledge for p in paths for b in p.entities.values() if b.knowledge)
    sentences = [t for t in re.split(r"(?<=[.!?;])\s+", text) if t.strip()]
    best = _best_sentence(ask, sentences)
    if not best:
        return paths[0].names[0]
    if "element" in ask.lower():
        named = [w for w in words(best) if w in ELEMENT_WORDS]
        if named:
            return named[0].title()
    return best.rstrip(".;")


def _condition(sentence: str) -> str:
    return relation_condition(sentence) or ""


def _best_sentence(query: str, candidates: list[str]) -> str | None:
    if not candidates:
        return None
    scorer = Scorer(query, candidates)
    ranked = sorted(range(len(candidates)), key=lambda i: (-scorer.score(i), i))
    return candidates[ranked[0]]


def _best_leaf(paths: list[KnowledgePath], need: Need, ask: str, scene: str) -> str:
    """The name of the entity, at the end of a path, that best fits the question and the scene."""
    leaves = []
    for p in paths:
        leaf = p.entities.get(p.names[-1]) or Block(p.names[-1], "", [])
        last_step = p.sentences[-1] if p.sentences and len(p.names) > 1 else ""
        leaves.append((p, leaf, last_step))
    query = " ".join([ask, scene]) if not need.next_move else ask
    scorer = Scorer(query, [leaf.text() + " " + step for _, leaf, step in leaves])
    conditions = Scorer(" ".join([ask, scene]), [_condition(step) for _, _, step in leaves])

    def rank(i: int):
        p, leaf, step = leaves[i]
        bonus = 0.0
        if need.next_move and relation_type_of(step) == "continues_with":
            bonus += 2.0 + 3.0 * conditions.score(i)
        if need.weakness and relation_type_of(step) == "mostly_weak_to":
            bonus += 1.0
        if need.status and leaf.type == "attack_effect" and _is_status(leaf):
            bonus += 2.0
        return -(scorer.score(i) + bonus), len(p.names), i

    order = sorted(range(len(leaves)), key=rank)
    if need.weakness:
        weak = [leaves[i][1].name for i in order if relation_type_of(leaves[i][2]) in ("mostly_weak_to", "weak_to")]
        if weak:
            return weak[0]
    return leaves[order[0]][1].name


_COLOURS = {
    "black": (20, 20, 20), "white": (235, 235, 235), "grey": (128, 128, 128), "red": (200, 40, 40),
    "orange": (230, 130, 30), "yellow": (230, 210, 40), "green": (50, 160, 60), "blue": (40, 80, 200),
    "purple": (130, 60, 170), "brown": (120, 80, 40),
}


def describe_images(images: tuple[bytes, ...]) -> str:
    """What a model that cannot see can say about frames: how many, their size, their main colour."""
    if not images:
        return "No frames were given."
    from PIL import Image, ImageStat, UnidentifiedImageError

    parts = []
    for i, data in enumerate(images, 1):
        try:
            with Image.open(io.BytesIO(data)) as image:
                mean = ImageStat.Stat(image.convert("RGB")).mean
                size = image.size
        except (UnidentifiedImageError, OSError):
            parts.append(f"frame {i} cannot be decoded")
            continue
        colour = min(_COLOURS, key=lambda k: sum((a - b) ** 2 for a, b in zip(_COLOURS[k], mean)))
        parts.append(f"frame {i} is {size[0]}x{size[1]} and mostly {colour}")
    return f"{len(images)} frame(s): " + "; ".join(parts) + "."
