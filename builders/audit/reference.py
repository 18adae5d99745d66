"""The KG's game facts checked against the game's own tables (MHWorldData, ``data/reference/``).

The rules that turn table values into KG facts, written down once and applied to every monster:

- **Elements** (fire, water, thunder, ice, dragon), per form: the element(s) with the most stars
  (when that is at least 1) -> ``mostly_weak_to``; every other element with 2 or more stars ->
  ``weak_to``; 0 stars -> ``resistant_to``; 1 star that is not the most -> no relation (neutral).
  The ``normal`` form's relations carry no condition. An ``alt`` form (a state such as Barroth's
  mud coat or a glowing Stygian Zinogre) gives the same relations with a ``condition`` that
  contains the table's ``alt_description``.
- **Statuses** (poison, sleep, paralysis, blast) are optional in the KG; one that is there says
  ``weak_to`` only at 3 stars and ``resistant_to`` only at 0 stars, never ``mostly_weak_to``, and
  has no condition.
- **Ailments**: the shared effects reached by ``causes`` from the monster or its own entities are
  exactly the table's (columns mud, effluvia and regional are not modelled).
- **Traps**: ``can_be_stopped_by`` a pitfall or shock trap only where the table says it works.
- **Class**: the monster's text names its class (``ecology_en``), and a sub-task I query about the
  class answers it.
- Each of these facts cites its table in ``sources`` (``mhworlddata:<table>.csv``).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from mhmmkg.errors import Problem, UserError
from mhmmkg.kg.graph import KnowledgeGraph, normalise_name
from mhmmkg.files.jsontext import CsvRow, read_csv_file
from mhmmkg.kg.model import Query, Relation

TABLES = ("monster_base.csv", "monster_weaknesses.csv", "monster_ailments.csv")
ELEMENTS = ("fire", "water", "thunder", "ice", "dragon")
STATUSES = ("poison", "sleep", "paralysis", "blast")
WEAKNESS_TYPES = ("mostly_weak_to", "weak_to", "resistant_to")
AILMENT_EFFECTS = {
    "roar": "effect.roar", "wind": "effect.wind-pressure", "tremor": "effect.tremor",
    "fireblight": "effect.fireblight", "waterblight": "effect.waterblight",
    "thunderblight": "effect.thunderblight", "iceblight": "effect.iceblight",
    "dragonblight": "effect.dragonblight", "blastblight": "effect.blastblight",
    "poison": "effect.poison", "sleep": "effect.sleep", "paralysis": "effect.paralysis",
    "bleed": "effect.bleeding", "stun": "effect.stun", "defense_down": "effect.defense-down",
}
TRAPS = {"pitfall_trap": "prop.pitfall-trap", "shock_trap": "prop.shock-trap"}
NORMAL = "normal"


def citation(table: str) -> str:
    return f"mhworlddata:{table}"


@dataclass(frozen=True)
class Form:
    """One row of the weakness table: the normal form, or a state named by its alt_description."""

    state: str
    stars: dict[str, int | None]


@dataclass(frozen=True)
class GameFacts:
    """What the tables say about one monster."""

    name: str
    ecology: str
    traps: dict[str, bool]
    forms: tuple[Form, ...]
    ailments: frozenset[str]


@dataclass(frozen=True, order=True)
class Disagreement:
    monster: str
    fact: str
    reason: str

    def __str__(self) -> str:
        return f"{self.monster}: {self.fact}: {self.reason}"


def read_tables(folder: str | Path) -> dict[str, GameFacts]:
    """The three tables of ``folder``, by monster name; a missing or malformed table is a user error."""
    folder = Path(folder)
    rows = {table: _read_csv(folder / table) for table in TABLES}
    forms: dict[str, list[Form]] = {}
    for row in rows["monster_weaknesses.csv"]:
        state = NORMAL if row["form"] == NORMAL else row["alt_description"]
        stars = {k: _stars(row, k, folder / "monster_weaknesses.csv") for k in (*ELEMENTS, *STATUSES)}
        forms.setdefault(row["name_en"], []).append(Form(state, stars))
    ailments = {row["base_name_en"]: frozenset(effect for column, effect in AILMENT_EFFECTS.items() if row.get(column))
                for row in rows["monster_ailments.csv"]}
    return {
        row["name_en"]: GameFacts(
            name=row["name_en"], ecology=row["ecology_en"],
            traps={prop: row[column] == "TRUE" for column, prop in TRAPS.items()},
            forms=tuple(forms.get(row["name_en"], ())), ailments=ailments.get(row["name_en"], frozenset()),
        )
        for row in rows["monster_base.csv"]
    }


#: the columns each table must have
COLUMNS = {
    "monster_weaknesses.csv": ("name_en", "form", "alt_description", *ELEMENTS, *STATUSES),
    "monster_ailments.csv": ("base_name_en",),
    "monster_base.csv": ("name_en", "ecology_en", *TRAPS),
}


def _read_csv(path: Path) -> list[dict[str, str]]:
    return read_csv_file(path, "reference table", COLUMNS.get(path.name, ()))


def _stars(row: CsvRow, column: str, path: Path) -> int | None:
    value = row[column]
    if not value:
        return None
    if not value.isdigit() or len(value) > 2:
        raise UserError(str(Problem(str(path), f"line {row.line} column {column}",
                                    f"expected a star count (0-9) or nothing, not {value[:40]!r}")))
    return int(value)


def element_relations(form: Form) -> set[tuple[str, str]]:
    """(relation type, element id) the element rule gives for one form."""
    stars = {e: form.stars[e] for e in ELEMENTS if form.stars[e] is not None}
    most = max(stars.values(), default=0)
    relations = set()
    for element, n in stars.items():
        if n == most and most >= 1:
            relations.add(("mostly_weak_to", f"element.{element}"))
        elif n >= 2:
            relations.add(("weak_to", f"element.{element}"))
        elif n == 0:
            relations.add(("resistant_to", f"element.{element}"))
    return relations


class _MonsterCheck:
    """The disagreements of one monster of the KG with its table rows."""

    def __init__(self, kg: KnowledgeGraph, monster: str, facts: GameFacts, relations: list[Relation],
                 queries: list[Query]):
        self.kg, self.monster, self.facts, self.relations, self.queries = kg, monster, facts, relations, queries
        self.found: list[Disagreement] = []

    def disagree(self, fact: str, reason: str) -> None:
        self.found.append(Disagreement(self.monster, fact, reason))

    def cites(self, fact, table: str, what: str) -> None:
        if citation(table) not in fact.sources:
            self.disagree(what, f"does not cite {citation(table)}")

    def run(self) -> list[Disagreement]:
        self.weaknesses()
        self.ailments()
        self.traps()
        self.ecology()
        return self.found

    def form_of(self, condition: str | None) -> Form | None:
        if condition is None:
            return next(f for f in self.facts.forms if f.state == NORMAL)
        matches = [f for f in self.facts.forms if f.state != NORMAL and f.state.lower() in condition.lower()]
        return matches[0] if len(matches) == 1 else None

    def weaknesses(self) -> None:
        element_ids = {f"element.{e}" for e in ELEMENTS}
        status_ids = {f"element.{s}": s for s in STATUSES}
        present: dict[str, set[tuple[str, str]]] = {f.state: set() for f in self.facts.forms}
        for r in self.relations:
            if r.head != self.monster or r.type not in WEAKNESS_TYPES:
                continue
            what = f"{r.type} {r.tail}" + (f" ({r.condition})" if r.condition else "")
            self.cites(r, "monster_weaknesses.csv", what)
            if r.tail in status_ids:
                self.status(r, what, status_ids[r.tail])
                continue
            if r.tail not in element_ids:
                continue
            form = self.form_of(r.condition)
            if form is None:
                states = [f.state for f in self.facts.forms if f.state != NORMAL]
                self.disagree(what, f"the condition names no state of the weakness table (states: {states or 'none'})")
                continue
            present[form.state].add((r.type, r.tail))
        for form in self.facts.forms:
            where = "" if form.state == NORMAL else f" ({form.state})"
            expected = element_relations(form)
            for type_, element in sorted(expected - present[form.state]):
                stars = form.stars[element.split(".")[1]]
                self.disagree(f"{type_} {element}{where}", f"missing: the table gives {stars} star(s)")
            for type_, element in sorted(present[form.state] - expected):
                stars = form.stars[element.split(".")[1]]
                self.disagree(f"{type_} {element}{where}", f"wrong: the table gives {stars} star(s)")

    def status(self, r, what: str, status: str) -> None:
        stars = self.form_of(None).stars[status]
        if r.condition:
            self.disagree(what, "status weaknesses come from the normal form only: no condition")
        elif (r.type, stars) not in (("weak_to", 3), ("resistant_to", 0)):
            self.disagree(what, f"wrong: the table gives {stars} star(s) (weak_to needs 3, resistant_to 0)")

    def ailments(self) -> None:
        mapped = set(AILMENT_EFFECTS.values())
        causes = [r for r in self.relations if r.type == "causes" and r.tail in mapped]
        for r in causes:
            self.cites(r, "monster_ailments.csv", f"{r.head} causes {r.tail}")
        present = {r.tail for r in causes}
        for effect in sorted(self.facts.ailments - present):
            self.disagree(f"causes {effect}", "missing: the table lists it, but no move of the monster causes it")
        for effect in sorted(present - self.facts.ailments):
            heads = sorted(r.head for r in causes if r.tail == effect)
            self.disagree(f"causes {effect}", f"wrong: the table does not list it (caused by {', '.join(heads)})")

    def traps(self) -> None:
        for r in self.relations:
            if r.type == "can_be_stopped_by" and r.tail in self.facts.traps:
                what = f"{r.head} can_be_stopped_by {r.tail}"
                self.cites(r, "monster_base.csv", what)
                if not self.facts.traps[r.tail]:
                    self.disagree(what, "wrong: the table says this trap does not work on it")

    def ecology(self) -> None:
        entity = self.kg.entity(self.monster)
        self.cites(entity, "monster_base.csv", "class")
        if self.facts.ecology.lower() not in (entity.text or "").lower():
            self.disagree("class", f"the monster's text does not name its class {self.facts.ecology!r}")
        for q in self.queries:
            if q.monster == self.monster and q.subtask == 1 and "class" in q.question.lower() \
                    and normalise_name(q.answer) != normalise_name(self.facts.ecology):
                self.disagree(f"query {q.id}", f"answers {q.answer!r}, the table's class is {self.facts.ecology!r}")


def check_against_tables(kg: KnowledgeGraph, queries: list[Query], tables: dict[str, GameFacts],
                         monster: str | None = None) -> list[Disagreement]:
    """Every disagreement of the KG's weakness, ailment, trap and class facts with the tables."""
    owned_relations: dict[str, list[Relation]] = defaultdict(list)
    for r in kg.relations:
        head = kg.entity(r.head)
        owned_relations[head.id if head.type == "monster" else head.monster].append(r)
    found = []
    for m in kg.monsters():
        if monster and m.id != monster:
            continue
        facts = tables.get(m.name)
        if facts is None or not facts.forms:
            found.append(Disagreement(m.id, "monster", f"{m.name!r} is not in the game tables"))
            continue
        found += _MonsterCheck(kg, m.id, facts, owned_relations[m.id], queries).run()
    return sorted(found)
