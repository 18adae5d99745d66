"""A random sources folder about N times the size of ``data/``, sharing no text and no shape with it.

    .venv/bin/python bench/synthetic_random.py --scale 10 --out /tmp/mh-random-10x [--seed 0]

The second benchmark generator, written apart from ``synthetic.py`` (which clones the 22 monsters
of data/ N times, so that every copy has the same size, texts and replies). Here every monster is
drawn afresh from a seeded random generator:

- sizes are skewed: the number of attacks per monster follows a Pareto law (a few monsters with
  hundreds of attacks at 100x, many with five to ten), scaled so that the mean is data/'s;
  phases and owned effects grow with the number of attacks;
- names, aliases, texts, captions, conditions, questions and answers are made of words coined
  from syllables (mostly ASCII, some with accents, some in kana or CJK ideographs), drawn with
  Zipf frequencies from a vocabulary that grows with the scale, their lengths log-normal;
- relation types, the share of relations with a condition, sub-tasks, hop counts, answer-key
  kinds and paths per query follow the frequencies counted in data/ (the tables below);
  combos (``continues_with`` chains) have geometric lengths, so some are long;
- shared entities (elements, weapons, props, effects) are many more than data/'s 41 and grow
  with the scale, and a few relate to each other;
- queries' ground-truth paths are random walks in the generated graph; answers name the entity
  at the walk's end (or a neighbour of the monster for 0-hop queries); no query has media
  (data/ has none, and the perceptive setting reads the human perception text).

Scale 1 is about data/'s size (22 monsters, ~1,150 relations, 238 queries); scale N has N times
the monsters and queries. The same seed and scale give the same bytes; monster number 0 has the
same size and attacks at every scale (``first_monster`` gives its id, e.g. to draw it).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
from itertools import accumulate
from pathlib import Path

# ------------------------------------------------------------------------------------------
# Frequencies counted in data/ (22 monsters, 287 attacks, 39 phases, 47 owned effects,
# 1,131 relations, 238 queries; November 2026).

MONSTERS_PER_SCALE = 22
QUERIES_PER_SCALE = 238
ATTACKS_PER_MONSTER = 287 / 22
#: relations whose head is the monster, per monster: (type, tail type) -> count in data/
PER_MONSTER = {("mostly_weak_to", "element"): 25, ("weak_to", "element"): 32, ("resistant_to", "element"): 30,
               ("provides_materials_for", "weapon"): 24, ("can_be_stopped_by", "prop"): 60,
               ("causes", "attack_effect"): 17, ("generates", "attack_effect"): 6}
#: relations whose head is an attack, per attack (out of 287)
PER_ATTACK = {("continues_with", "attack_action"): 263, ("has_attack_variant", "attack_action"): 43,
              ("causes", "attack_effect"): 80, ("generates", "attack_effect"): 81,
              ("changes_phase_to", "attack_phase"): 7, ("can_be_stopped_by", "prop"): 1}
#: has_attack_action: 191 from the monster, 137 from a phase, over 287 attacks
FROM_MONSTER, FROM_PHASE = 191 / 287, 137 / 287
PHASES_PER_MONSTER = 39 / 22
#: relations whose head is a phase, per phase (out of 39); has_attack_phase is one per phase
PER_PHASE = {("changes_phase_to", "attack_phase"): 37, ("generates", "attack_effect"): 3}
EFFECTS_PER_ATTACK = 47 / 287
#: relations whose head is an owned effect, per effect (out of 47)
PER_EFFECT = {("causes", "attack_effect"): 32, ("turns_to", "attack_effect"): 11}
#: monster links per 22 monsters: 3 mated pairs (an edge each way), 3 subspecies (has_ and _of)
PAIRS_PER_MONSTER = 3 / 22
#: relations with a condition / all relations, per type
CONDITIONED = {"has_attack_action": (20, 328), "continues_with": (230, 263), "causes": (81, 129),
               "generates": (34, 90), "changes_phase_to": (42, 44), "has_attack_variant": (37, 43),
               "has_attack_phase": (2, 39), "can_be_stopped_by": (30, 61), "weak_to": (2, 32),
               "resistant_to": (3, 30), "mostly_weak_to": (2, 25), "provides_materials_for": (0, 24),
               "turns_to": (11, 11), "mated_pair_with": (0, 6), "has_subspecies": (0, 3), "subspecies_of": (0, 3)}
#: 494 conditions, 418 distinct: a few phrases recur ("when enraged" 17 times), most are unique
CONDITION_REUSE = 1 - 418 / 494
INFO_SHARE = 56 / 1131
#: queries per (sub-task, hops of the longest path)
SUBTASK_HOPS = {(1, 0): 24, (2, 1): 77, (2, 2): 30, (2, 3): 2, (3, 1): 1, (3, 2): 12, (3, 3): 11, (3, 4): 4,
                (4, 0): 1, (4, 1): 12, (4, 2): 13, (4, 3): 3, (5, 1): 3, (5, 2): 18, (5, 3): 11, (5, 4): 3,
                (6, 2): 5, (6, 3): 4, (6, 4): 3, (6, 5): 1}
KEY_KINDS = {1: {"entities": 1, "entity": 9, "text": 13, "yes_no": 1}, 2: {"entity": 108, "text": 1},
             3: {"entities": 8, "entity": 16, "text": 3, "yes_no": 1},
             4: {"entities": 2, "entity": 8, "text": 11, "yes_no": 8},
             5: {"entities": 5, "entity": 16, "text": 10, "yes_no": 4},
             6: {"entities": 1, "entity": 3, "text": 2, "yes_no": 7}}
PATHS_PER_QUERY = {1: {1: 24}, 2: {1: 109}, 3: {1: 22, 2: 4, 3: 2}, 4: {1: 26, 2: 1, 3: 2},
                   5: {1: 32, 2: 3}, 6: {1: 1, 2: 10, 3: 2}}
#: queries with auxiliary information (extra) / with a perception text, per sub-task (out of n)
EXTRA_SHARE = {1: 5 / 24, 2: 62 / 109, 3: 22 / 28, 4: 17 / 29, 5: 17 / 35, 6: 7 / 13}
PERCEPTION_SHARE = {1: 5 / 24, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}
RIVALS_SHARE = 14 / 61          # of the text and yes/no keys
#: words per text: (median, smallest) in data/; lengths are log-normal around the median
WORDS = {"monster_text": (187, 20), "attack_text": (27, 4), "caption": (25, 6), "phase_text": (40, 8),
         "effect_text": (26, 5), "shared_text": (30, 5), "condition": (7, 1), "info": (6, 2),
         "question": (8, 3), "extra": (6, 2), "perception": (27, 8), "answer": (6, 2)}

# ------------------------------------------------------------------------------------------
# Words

KANA_ROWS = {"": "アイウエオ", "k": "カキクケコ", "s": "サシスセソ", "t": "タチツテト", "n": "ナニヌネノ",
             "h": "ハヒフヘホ", "m": "マミムメモ", "r": "ラリルレロ", "g": "ガギグゲゴ", "z": "ザジズゼゾ",
             "d": "ダヂヅデド", "b": "バビブベボ", "p": "パピプペポ"}
KANA_VOWELS = "aiueo"
ONSETS = ["", "b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p",
          "qu", "r", "s", "sh", "st", "t", "th", "tr", "v", "w", "z"]
NUCLEI = ["a", "e", "i", "o", "u", "ae", "ei", "ou", "ia", "y"]
CODAS = ["", "", "", "", "", "n", "r", "s", "th", "l", "x", "nd", "rk"]
ACCENTED = {"a": "áàâä", "e": "éèêë", "i": "íï", "o": "óôö", "u": "úü", "n": "ñ", "c": "ç"}
#: English words a coined word must not be, so that no text says yes, no or or by accident
RESERVED = {"yes", "no", "not", "nor", "or", "and", "but", "none", "never", "both", "either", "neither",
            "tail", "swipe"}


def coin_word(rng: random.Random) -> tuple[str, str]:
    """A made-up word: (how it is written, its ASCII slug). Mostly Latin letters, one in eight
    with accents, one in twelve in katakana, hiragana or CJK ideographs (its slug the romaji)."""
    while True:
        roll = rng.random()
        if roll < 1 / 12:
            word = _japanese_word(rng)
        else:
            slug = "".join(rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS)
                           for _ in range(rng.choice((1, 1, 2, 2, 2, 3, 4))))
            word = (_accented(rng, slug) if roll < 1 / 12 + 1 / 8 else slug, slug)
        if len(word[1]) >= 3 and word[1] not in RESERVED:
            return word


def _japanese_word(rng: random.Random) -> tuple[str, str]:
    syllables = [(rng.choice(list(KANA_ROWS)), rng.randrange(5)) for _ in range(rng.randint(2, 4))]
    slug = "".join(c + KANA_VOWELS[v] for c, v in syllables)
    script = rng.random()
    if script < 0.5:
        return "".join(KANA_ROWS[c][v] for c, v in syllables), slug
    if script < 0.8:      # hiragana sits 0x60 code points below katakana
        return "".join(chr(ord(KANA_ROWS[c][v]) - 0x60) for c, v in syllables), slug
    return "".join(chr(rng.randrange(0x4E00, 0x9FA0)) for _ in range(max(1, len(syllables) // 2 + 1))), slug


def _accented(rng: random.Random, slug: str) -> str:
    places = [i for i, ch in enumerate(slug) if ch in ACCENTED]
    if not places:
        return slug
    i = rng.choice(places)
    return slug[:i] + rng.choice(ACCENTED[slug[i]]) + slug[i + 1:]


class Vocabulary:
    """Coined words drawn with Zipf frequencies (a few very common, most rare); as in a natural
    language, the most common words are the shortest."""

    def __init__(self, rng: random.Random, size: int):
        self.words = sorted((coin_word(rng) for _ in range(size)), key=lambda word: len(word[1]))
        self.written = [w for w, _ in self.words]
        self.cumulative = list(accumulate(1 / (rank + 1) ** 1.05 for rank in range(size)))

    def common(self, rng: random.Random, n: int) -> list[str]:
        return rng.choices(self.written, cum_weights=self.cumulative, k=n)

    def any(self, rng: random.Random) -> tuple[str, str]:
        return rng.choice(self.words)


def length(rng: random.Random, kind: str) -> int:
    median, least = WORDS[kind]
    return max(least, min(round(median * math.exp(rng.gauss(0, 0.7))), 10 * median))


def sentences(rng: random.Random, vocab: Vocabulary, n_words: int) -> str:
    """``n_words`` common words cut into sentences of 4 to 20 words, capitalised, with commas."""
    words = vocab.common(rng, n_words)
    out, start = [], 0
    while start < len(words):
        end = min(len(words), start + rng.randint(4, 20))
        chunk = words[start:end]
        chunk[0] = chunk[0][:1].upper() + chunk[0][1:]
        if len(chunk) > 6 and rng.random() < 0.4:
            cut = rng.randrange(2, len(chunk) - 2)
            chunk[cut] += ","
        out.append(" ".join(chunk) + ".")
        start = end
    return " ".join(out)


def phrase(rng: random.Random, vocab: Vocabulary, kind: str) -> str:
    return " ".join(vocab.common(rng, length(rng, kind)))


def title(words: list[tuple[str, str]]) -> tuple[str, str]:
    """(display name, slug) of a name made of coined words."""
    return " ".join(w[:1].upper() + w[1:] for w, _ in words), "-".join(s for _, s in words)


def poisson(rng: random.Random, mean: float) -> int:
    if mean <= 0:
        return 0
    if mean > 30:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, product = math.exp(-mean), 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k


# ------------------------------------------------------------------------------------------
# Entities and relations


class Names:
    """Names and ids unique within one owner (a monster, or the shared entities)."""

    def __init__(self):
        self.names: set[str] = set()
        self.ids: set[str] = set()

    def take(self, name: str, slug: str, prefix: str) -> tuple[str, str] | None:
        if name.casefold() in self.names:
            return None
        eid, n = f"{prefix}{slug}", 2
        while eid in self.ids:
            eid, n = f"{prefix}{slug}-{n}", n + 1
        self.names.add(name.casefold())
        self.ids.add(eid)
        return eid, name


class Provenance:
    """Source strings of the three kinds the project knows (game table, authors' list row, page)."""

    def __init__(self, rng: random.Random, vocab: Vocabulary, scale: int):
        self.tables = [f"mhworlddata:{vocab.any(rng)[1]}_{vocab.any(rng)[1]}.csv" for _ in range(12)]
        self.hosts = [f"{vocab.any(rng)[1]}.example.org" for _ in range(8 + scale)]

    def sources(self, rng: random.Random, vocab: Vocabulary) -> list[str]:
        out = []
        for _ in range(rng.choice((1, 1, 2, 2, 3, 4))):
            roll = rng.random()
            if roll < 0.25:
                out.append(rng.choice(self.tables))
            elif roll < 0.5:
                out.append(f"authors-list:{vocab.any(rng)[1].title()}_{vocab.any(rng)[1]}#"
                           + rng.choice(("route", "answer")))
            else:
                out.append(f"https://{rng.choice(self.hosts)}/wiki/{vocab.any(rng)[1].title()}")
        return list(dict.fromkeys(out))

    def mark(self, rng: random.Random, vocab: Vocabulary, obj: dict, sourced: float) -> dict:
        """Sources with probability ``sourced``, else (and now and then as well) unverified."""
        roll = rng.random()
        if roll < sourced:
            obj["sources"] = self.sources(rng, vocab)
        if roll >= sourced or rng.random() < 0.02:
            obj["unverified"] = True
        return obj


class Conditions:
    """Condition texts: a share of them reused from a pool of common phrases, the rest fresh."""

    def __init__(self, rng: random.Random, vocab: Vocabulary, scale: int):
        self.pool = [phrase(rng, vocab, "condition") for _ in range(12 * scale)]
        self.cumulative = list(accumulate(1 / (rank + 1) for rank in range(len(self.pool))))

    def draw(self, rng: random.Random, vocab: Vocabulary, type_: str) -> str | None:
        with_condition, total = CONDITIONED[type_]
        if rng.random() >= with_condition / total:
            return None
        if rng.random() < CONDITION_REUSE:
            return rng.choices(self.pool, cum_weights=self.cumulative)[0]
        return phrase(rng, vocab, "condition")


class Context:
    """What every part of the generation shares: the seed's vocabulary, provenance and conditions,
    the shared entities by type, and the tables of every entity made so far."""

    def __init__(self, seed: int, scale: int):
        rng = random.Random(f"{seed}:vocabulary")
        self.seed, self.scale = seed, scale
        self.vocab = Vocabulary(rng, round(2500 * math.sqrt(scale)))
        self.provenance = Provenance(rng, self.vocab, scale)
        self.conditions = Conditions(rng, self.vocab, scale)
        self.shared_by_type: dict[str, list[str]] = {}
        self.type_of: dict[str, str] = {}
        self.name_of: dict[str, str] = {}

    def entity(self, rng: random.Random, eid: str, name: str, type_: str, text_kind: str, *,
               caption: bool = False, origin: bool = False, sourced: float = 0.8) -> dict:
        obj = {"id": eid, "name": name, "type": type_}
        if origin:
            obj["name_origin"] = "game" if rng.random() < 0.1 else "descriptive"
        aliases = list(dict.fromkeys(title([self.vocab.any(rng) for _ in range(rng.randint(1, 3))])[0]
                                     for _ in range(poisson(rng, 0.65))))
        if aliases:
            obj["aliases"] = aliases
        obj["text"] = sentences(rng, self.vocab, length(rng, text_kind))
        if caption:
            obj["caption"] = sentences(rng, self.vocab, length(rng, "caption"))
        self.type_of[eid], self.name_of[eid] = type_, name
        return self.provenance.mark(rng, self.vocab, obj, sourced)

    def relation(self, rng: random.Random, head: str, type_: str, tail: str) -> dict:
        obj = {"head": head, "type": type_, "tail": tail}
        condition = self.conditions.draw(rng, self.vocab, type_)
        if condition:
            obj["condition"] = condition
        if rng.random() < INFO_SHARE:
            obj["info"] = phrase(rng, self.vocab, "info")
        return self.provenance.mark(rng, self.vocab, obj, 0.6)

    def shared_pick(self, rng: random.Random, type_: str) -> str:
        """A shared entity of ``type_``, the first ones far more often (a few hubs, a long tail)."""
        pool = self.shared_by_type[type_]
        return pool[min(len(pool) - 1, int(len(pool) * rng.random() ** 2.5))]


def shared_entities(ctx: Context) -> dict:
    """The shared file: elements, weapons, props and effects, ~60 at 1x growing as scale^0.75."""
    rng = random.Random(f"{ctx.seed}:shared")
    total = round(60 * ctx.scale ** 0.75)
    names, entities = Names(), []
    prefixes = {"element": "element.", "weapon": "weapon.", "prop": "prop.", "attack_effect": "effect."}
    for type_, share in (("element", 0.15), ("weapon", 0.35), ("prop", 0.2), ("attack_effect", 0.3)):
        ids = ctx.shared_by_type.setdefault(type_, [])
        while len(ids) < max(3, round(total * share)):
            taken = names.take(*title([ctx.vocab.any(rng) for _ in range(rng.choice((1, 1, 2, 2, 3)))]),
                               prefixes[type_])
            if taken:
                ids.append(taken[0])
                entities.append(ctx.entity(rng, taken[0], taken[1], type_, "shared_text",
                                           origin=type_ == "attack_effect", sourced=0.95))
    relations, seen = [], set()
    effects = ctx.shared_by_type["attack_effect"]
    for head in effects:
        for _ in range(poisson(rng, 0.3)):
            tail = rng.choice(effects)
            add(relations, seen, ctx.relation(rng, head, rng.choice(("causes", "turns_to")), tail))
    return {"entities": entities, "relations": relations}


def add(relations: list[dict], seen: set, obj: dict) -> bool:
    """Append ``obj`` unless it is a self-loop or repeats a head, type, tail and condition."""
    key = (obj["head"], obj["type"], obj["tail"], obj.get("condition"))
    if obj["head"] == obj["tail"] or key in seen:
        return False
    seen.add(key)
    relations.append(obj)
    return True


def attack_counts(seed: int, monsters: int) -> list[int]:
    """Attacks per monster: stratified quantiles of a Pareto law (shape 1.5), rescaled to data/'s
    mean, at most 600, shuffled; monster 0 gets the mean (so it is the same at every scale)."""
    raw = [(1 - (k + 0.5) / monsters) ** (-1 / 1.5) for k in range(monsters)]
    factor = ATTACKS_PER_MONSTER * monsters / sum(raw)
    counts = [min(600, max(3, round(r * factor))) for r in raw]
    random.Random(f"{seed}:sizes").shuffle(counts)
    return [round(ATTACKS_PER_MONSTER), *counts[1:]]


def monster_name(seed: int, index: int) -> tuple[random.Random, tuple[str, str]]:
    """The generator of monster ``index`` and its (name, slug): coined from its own seed alone."""
    rng = random.Random(f"{seed}:monster:{index}")
    return rng, title([coin_word(rng) for _ in range(rng.choice((1, 1, 2)))])


def first_monster(seed: int = 0) -> str:
    """The id of monster 0, the same at every scale for a seed."""
    return monster_name(seed, 0)[1][1]


class MonsterBuilder:
    """One monster file: its entities and the relations whose head it owns."""

    def __init__(self, ctx: Context, index: int, attacks: int, monster_ids: Names):
        self.ctx = ctx
        self.rng, (name, slug) = monster_name(ctx.seed, index)
        taken = monster_ids.take(name, slug, "")
        while taken is None:            # the same coined name twice: the later monster gets one more word
            name, slug = title([(name, slug), coin_word(self.rng)])
            taken = monster_ids.take(name, slug, "")
        self.id, self.name = taken
        self.names, self.entities, self.relations, self.seen = Names(), [], [], set()
        self.names.ids.add(self.id)
        self.entities.append(ctx.entity(self.rng, self.id, self.name, "monster", "monster_text", sourced=1.0))
        self.attacks = self.owned(attacks, "attack_action", "attack_text", caption=0.97)
        phases = poisson(self.rng, min(PHASES_PER_MONSTER * (attacks / ATTACKS_PER_MONSTER) ** 0.5, 12))
        self.phases = self.owned(phases, "attack_phase", "phase_text")
        self.effects = self.owned(poisson(self.rng, EFFECTS_PER_ATTACK * attacks), "attack_effect", "effect_text")

    def owned(self, n: int, type_: str, text_kind: str, caption: float = 0.0) -> list[str]:
        ids = []
        while len(ids) < n:
            words = [self.ctx.vocab.any(self.rng) for _ in range(self.rng.choice((1, 2, 2, 2, 3, 3, 4, 5)))]
            taken = self.names.take(*title(words), self.id + ".")
            if taken:
                ids.append(taken[0])
                self.entities.append(self.ctx.entity(self.rng, taken[0], taken[1], type_, text_kind,
                                                     caption=self.rng.random() < caption, origin=True,
                                                     sourced=0.75))
        return ids

    def link(self, head: str, type_: str, tail: str) -> None:
        add(self.relations, self.seen, self.ctx.relation(self.rng, head, type_, tail))

    def build(self) -> dict:
        self.monster_relations()
        self.phase_relations()
        self.attack_relations()
        self.combos()
        self.effect_relations()
        return {"monster": self.id, "entities": self.entities, "relations": self.relations}

    def monster_relations(self) -> None:
        rng = self.rng
        elements = list(self.ctx.shared_by_type["element"])
        rng.shuffle(elements)
        for (type_, tail_type), count in PER_MONSTER.items():
            for _ in range(poisson(rng, count / MONSTERS_PER_SCALE)):
                if tail_type == "element":      # an element is weak or resisted, never both
                    if elements:
                        self.link(self.id, type_, elements.pop())
                else:
                    self.link(self.id, type_, self.effect(tail_type) if tail_type == "attack_effect"
                              else self.ctx.shared_pick(rng, tail_type))

    def phase_relations(self) -> None:
        rng = self.rng
        for phase in self.phases:
            self.link(self.id, "has_attack_phase", phase)
        for a, b in zip(self.phases, self.phases[1:]):
            self.link(a, "changes_phase_to", b)
        if len(self.phases) > 1:        # back and side links up to data/'s share per phase
            share = PER_PHASE[("changes_phase_to", "attack_phase")] / 39
            for _ in range(poisson(rng, max(0.3, share * len(self.phases) - (len(self.phases) - 1)))):
                self.link(rng.choice(self.phases), "changes_phase_to", rng.choice(self.phases))
        for phase in self.phases:
            if rng.random() < PER_PHASE[("generates", "attack_effect")] / 39:
                self.link(phase, "generates", self.effect("attack_effect"))

    def attack_relations(self) -> None:
        rng = self.rng
        for attack in self.attacks:
            under_monster = not self.phases or rng.random() < FROM_MONSTER / (FROM_MONSTER + FROM_PHASE)
            if under_monster:
                self.link(self.id, "has_attack_action", attack)
            if self.phases and (not under_monster or rng.random() < 0.15):
                for phase in rng.sample(self.phases, min(len(self.phases), 1 + poisson(rng, 0.2))):
                    self.link(phase, "has_attack_action", attack)
            for (type_, tail_type), count in PER_ATTACK.items():
                if type_ == "continues_with" or (tail_type == "attack_phase" and not self.phases):
                    continue
                for _ in range(poisson(rng, count / 287)):
                    tail = (rng.choice(self.attacks) if tail_type == "attack_action"
                            else rng.choice(self.phases) if tail_type == "attack_phase"
                            else self.effect(tail_type) if tail_type == "attack_effect"
                            else self.ctx.shared_pick(rng, tail_type))
                    self.link(attack, type_, tail)

    def combos(self) -> None:
        """continues_with chains of geometric length (mean 2.5 links, some ten or more) until the
        monster has data/'s share of them; a chain may come back to an attack it passed."""
        rng = self.rng
        target = round(len(self.attacks) * PER_ATTACK[("continues_with", "attack_action")] / 287)
        made, tries = 0, 0
        while made < target and len(self.attacks) > 1 and tries < 4 * target:
            tries += 1
            links = 1
            while rng.random() < 0.6 and links < 14:
                links += 1
            here = rng.choice(self.attacks)
            for _ in range(min(links, target - made)):
                there = rng.choice(self.attacks)
                before = len(self.relations)
                self.link(here, "continues_with", there)
                made += len(self.relations) - before
                here = there

    def effect_relations(self) -> None:
        rng = self.rng
        for effect in self.effects:
            for (type_, tail_type), count in PER_EFFECT.items():
                for _ in range(poisson(rng, count / 47)):
                    self.link(effect, type_, self.effect(tail_type))

    def effect(self, type_: str) -> str:
        """An effect the monster owns (half the time, when it has one) or a shared one."""
        if self.effects and self.rng.random() < 0.5:
            return self.rng.choice(self.effects)
        return self.ctx.shared_pick(self.rng, type_)


def link_monsters(ctx: Context, docs: list[dict]) -> None:
    """Mated pairs (an edge each way) and subspecies (has_subspecies and subspecies_of) between
    monsters drawn anywhere in the KG."""
    rng = random.Random(f"{ctx.seed}:links")
    seen = {d["monster"]: set() for d in docs}
    by_id = {d["monster"]: d for d in docs}
    ids = sorted(by_id)
    for forth, back in (("mated_pair_with", "mated_pair_with"), ("has_subspecies", "subspecies_of")):
        for _ in range(round(PAIRS_PER_MONSTER * len(docs))):
            a, b = rng.sample(ids, 2)
            for head, type_, tail in ((a, forth, b), (b, back, a)):
                add(by_id[head]["relations"], seen[head], ctx.relation(rng, head, type_, tail))


# ------------------------------------------------------------------------------------------
# Queries


class Graph:
    """Out-edges of every entity, for walks."""

    def __init__(self, docs: list[dict]):
        self.out: dict[str, list[tuple[str, str, bool]]] = {}
        for doc in docs:
            for r in doc.get("relations", ()):
                self.out.setdefault(r["head"], []).append((r["type"], r["tail"], "condition" in r))


#: what the last step of a walk must reach, per sub-task: (entity types, relation types or None)
GOALS = {1: ({"element", "weapon", "prop", "attack_phase", "attack_effect"}, None),
         2: ({"attack_action"}, None),
         3: ({"attack_action"}, {"continues_with"}),
         4: ({"attack_action", "attack_phase", "attack_effect"}, None),
         5: ({"attack_effect"}, None),
         6: ({"attack_action", "attack_effect", "attack_phase"}, None)}


class QueryMaker:
    def __init__(self, ctx: Context, graph: Graph, monsters: list[str], attacks: list[int]):
        self.ctx, self.graph = ctx, graph
        self.rng = random.Random(f"{ctx.seed}:queries")
        self.monsters = monsters
        self.weights = list(accumulate(a ** 0.7 for a in attacks))
        self.linked = [m for m in monsters if any(self.ctx.type_of[t] == "monster" for _, t, _ in graph.out.get(m, ()))]

    def walk(self, start: str, hops: int, subtask: int, through_monster: bool = False,
             strict: bool = True) -> list[str] | None:
        """A random simple walk of exactly ``hops`` edges from ``start`` that ends as the sub-task
        wants (search of at most 400 steps; None if it finds none). Not ``strict``: any relation
        may lead to the end (a 1-hop combo question ends on the attack itself, as one in data/)."""
        types, relations = GOALS[subtask]
        relations = relations if strict else None
        type_of, out, rng = self.ctx.type_of, self.graph.out, self.rng
        budget = [400]

        def extend(path: list[str], last_type: str | None, conditioned: bool) -> list[str] | None:
            if len(path) == hops + 1:
                ok = type_of[path[-1]] in types and (relations is None or last_type in relations)
                if subtask == 4 and hops > 1 and strict:
                    ok = ok and (conditioned or any(type_of[e] == "attack_phase" for e in path))
                return path if ok else None
            edges = out.get(path[-1], ())
            for type_, tail, has_condition in rng.sample(edges, len(edges)):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                into_monster = type_of[tail] == "monster"
                if tail in path or into_monster != (through_monster and len(path) == 1):
                    continue
                found = extend(path + [tail], type_, conditioned or has_condition)
                if found:
                    return found
            return None

        return extend([start], None, False) if hops else [start]

    def paths(self, monster: str, subtask: int, hops: int, count: int, strict: bool) -> list[list[str]] | None:
        if subtask == 6:
            first = self.walk(monster, hops, 6, through_monster=True)
            if first is None:
                return None
            found = [first]
            for _ in range(count - 1):
                other = self.walk(monster, self.rng.randint(1, hops), 6)
                if other and other not in found:
                    found.append(other)
            return found if len(found) > 1 or count == 1 else None
        first = self.walk(monster, hops, subtask, strict=strict)
        if first is None:
            return None
        found = [first]
        for _ in range(4 * (count - 1)):
            if len(found) == count:
                break
            other = self.walk(monster, self.rng.randint(1, hops), subtask, strict=strict) if hops else None
            if other and other not in found and other[-1] not in {p[-1] for p in found}:
                found.append(other)
        return found

    def make(self, subtask: int, hops: int, number: int) -> dict | None:
        rng = self.rng
        kinds = KEY_KINDS[subtask]
        kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
        counts = PATHS_PER_QUERY[subtask]
        count = rng.choices(list(counts), weights=list(counts.values()))[0]
        if kind == "entities":
            count = max(2, count)
        for attempt in range(40):
            pool = self.linked if subtask == 6 and self.linked else self.monsters
            weights = None if pool is self.linked else self.weights
            monster = rng.choices(pool, cum_weights=weights)[0]
            found = self.paths(monster, subtask, hops, count, strict=attempt < 30)
            if found and (kind != "entities" or len({p[-1] for p in found}) > 1):
                return self.query(monster, subtask, kind, found, number)
            if found and kind == "entities":
                kind = "entity"
        return None

    def query(self, monster: str, subtask: int, kind: str, paths: list[list[str]], number: int) -> dict:
        rng, ctx = self.rng, self.ctx
        ends = list(dict.fromkeys(p[-1] for p in paths))
        if len(paths[0]) == 1:          # 0 hops: the answer is one of the monster's neighbours
            neighbours = [t for _, t, _ in self.graph.out.get(monster, ()) if ctx.type_of[t] in GOALS[subtask][0]]
            ends = [rng.choice(neighbours)] if neighbours else ends
        named = {}
        for end in ends:                # one entity per name, so that an answer names each once
            named.setdefault(ctx.name_of[end].casefold(), end)
        ends = list(named.values())
        if kind == "entities" and len(ends) < 2:
            kind = "entity"
        obj = {"id": f"{monster}-q{number}", "subtask": subtask, "monster": monster,
               "question": self.question()}
        if rng.random() < EXTRA_SHARE[subtask]:
            obj["extra"] = self.sentence("extra", placeholder=0.4)
        if rng.random() < PERCEPTION_SHARE[subtask]:
            obj["perception"] = sentences(rng, ctx.vocab, length(rng, "perception"))
        obj["answer"], obj["key"] = self.answer(kind, ends)
        obj["paths"] = paths
        return obj

    def question(self) -> str:
        words = self.ctx.vocab.common(self.rng, length(self.rng, "question"))
        if self.rng.random() < 0.9:
            words.insert(self.rng.randrange(len(words) + 1), self.rng.choice(("{monster}", "{monster}'s")))
        words[0] = words[0][:1].upper() + words[0][1:]
        return " ".join(words) + "?"

    def sentence(self, kind: str, placeholder: float = 0.0) -> str:
        words = self.ctx.vocab.common(self.rng, length(self.rng, kind))
        if self.rng.random() < placeholder:
            words.insert(self.rng.randrange(len(words) + 1), "{monster}")
        words[0] = words[0][:1].upper() + words[0][1:]
        return " ".join(words) + "."

    def answer(self, kind: str, ends: list[str]) -> tuple[str, dict]:
        rng, names = self.rng, self.ctx.name_of
        if kind == "entity":
            return names[ends[0]], {"kind": "entity", "entities": [ends[0]]}
        if kind == "entities":
            return (", ".join(names[e] for e in ends[:-1]) + " and " + names[ends[-1]],
                    {"kind": "entities", "entities": ends})
        text = self.sentence("answer")
        key: dict = {"kind": kind}
        if kind == "yes_no":
            key["polarity"] = rng.choice(("yes", "no"))
            text = f"{key['polarity'].capitalize()}, {text[0].lower()}{text[1:]}"
        if rng.random() < (0.05 if kind == "yes_no" else 0.25):
            key["entities"] = [ends[0]]
            text = f"{text[:-1]}: {names[ends[0]]}."
        if kind == "text" or rng.random() < 0.2:
            key["nuggets"] = self.nuggets(text)
        if rng.random() < RIVALS_SHARE:
            rivals = [w for w in self.ctx.vocab.common(rng, 3) if w.casefold() not in text.casefold()]
            if rivals:
                key["rivals"] = list(dict.fromkeys(rivals))
        return text, key

    def nuggets(self, text: str) -> list[list[str]]:
        """One or two required points, each a word of the answer and a few other accepted wordings."""
        words = [w.strip(",.:").casefold() for w in text.split()[1:]]
        words = [w for w in words if len(w) > 2 and w not in ("yes", "no")] or [text.split()[0].strip(",.:").casefold()]
        points = []
        for word in self.rng.sample(words, min(len(words), self.rng.choice((1, 1, 2)))):
            points.append(list(dict.fromkeys([word, *(self.ctx.vocab.any(self.rng)[0] for _ in range(poisson(self.rng, 1.5)))])))
        return points


def query_jobs(rng: random.Random, scale: int) -> list[tuple[int, int]]:
    """(sub-task, hops) of every query: data/'s counts times the scale, in random order."""
    jobs = [cell for cell, count in SUBTASK_HOPS.items() for _ in range(count * scale)]
    rng.shuffle(jobs)
    return jobs


# ------------------------------------------------------------------------------------------
# The folder


def generate(out: Path, scale: int, seed: int = 0) -> dict[str, int]:
    """Write a random sources folder of ``scale`` x 22 monsters into ``out``; return the counts of
    monsters, relations and queries written (and of entities)."""
    if scale < 1:
        raise ValueError(f"scale must be at least 1, not {scale}")
    out = Path(out)
    stray = sorted(p.name for p in out.iterdir() if p.name not in ("monsters", "queries", "shared.json")) if out.is_dir() else []
    if stray:
        raise ValueError(f"{out} holds files this generator did not write ({', '.join(stray[:3])}); give an empty folder")
    ctx = Context(seed, scale)
    shared = shared_entities(ctx)
    monster_ids, docs = Names(), []
    attacks = attack_counts(seed, MONSTERS_PER_SCALE * scale)
    for index, count in enumerate(attacks):
        docs.append(MonsterBuilder(ctx, index, count, monster_ids).build())
    link_monsters(ctx, docs)
    maker = QueryMaker(ctx, Graph([shared, *docs]), [d["monster"] for d in docs], attacks)
    per_monster: dict[str, list[dict]] = {}
    for number, (subtask, hops) in enumerate(query_jobs(random.Random(f"{seed}:jobs"), scale)):
        query = maker.make(subtask, hops, number)
        if query:
            per_monster.setdefault(query["monster"], []).append(query)
    write(out, shared, docs, per_monster)
    return {"monsters": len(docs), "relations": sum(len(d["relations"]) for d in [shared, *docs]),
            "queries": sum(map(len, per_monster.values())),
            "entities": sum(len(d["entities"]) for d in [shared, *docs])}


def write(out: Path, shared: dict, docs: list[dict], per_monster: dict[str, list[dict]]) -> None:
    for folder in ("monsters", "queries"):
        shutil.rmtree(out / folder, ignore_errors=True)
        (out / folder).mkdir(parents=True)
    dump(out / "shared.json", shared)
    for doc in docs:
        dump(out / "monsters" / f"{doc['monster']}.json", doc)
    for monster, queries in per_monster.items():
        dump(out / "queries" / f"{monster}.json", {"queries": queries})


def dump(path: Path, doc: dict) -> None:
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=1, metavar="N",
                        help="N x 22 monsters and N x 238 queries (default 1, about data/'s size)")
    parser.add_argument("--out", type=Path, required=True,
                        help="folder to write (made if missing; must be empty or hold an earlier output)")
    parser.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same bytes (default 0)")
    args = parser.parse_args(argv)
    try:
        counts = generate(args.out, args.scale, args.seed)
    except ValueError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    print(f"{args.out}: {counts['monsters']} monsters, {counts['entities']} entities, "
          f"{counts['relations']} relations, {counts['queries']} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
