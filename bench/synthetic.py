"""A synthetic sources folder N times the size of ``data/``: every monster cloned N times.

    .venv/bin/python bench/synthetic.py --scale 10 --out /tmp/mh-10x [--src data]

Copy 0 is the sources as they are; copy k (1..N-1) renames every monster ``m`` to ``m-vk``
(its entities ``m.x`` to ``m-vk.x``, its queries ``q`` to ``vk-q``, its file to ``m-vk.json``)
and every monster name or alias ``Name`` to ``Name Vk``, in names, aliases, texts, captions,
questions, answers, conditions and notes alike. References between monsters (subspecies, mated
pairs) point into the same copy; shared entities (elements, weapons, props, effects) stay
shared. The result is a valid sources folder that ``mhmmkg build`` accepts: N x 22 monsters,
N times the relations and queries. Media files are copied once and shared by all copies.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXT_FIELDS = ("name", "text", "caption", "question", "answer", "extra", "perception", "condition", "info")


class Renamer:
    """Renames the ids and names of one copy of the monsters."""

    def __init__(self, monsters: dict[str, list[str]], copy: int):
        self.monsters = set(monsters)
        self.copy = copy
        names = sorted({n for ns in monsters.values() for n in ns}, key=len, reverse=True)
        self._names = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")

    def id(self, entity_id: str) -> str:
        owner, dot, rest = entity_id.partition(".")
        if self.copy == 0 or owner not in self.monsters:
            return entity_id
        return f"{owner}-v{self.copy}{dot}{rest}"

    def text(self, text):
        if self.copy == 0 or not isinstance(text, str):
            return text
        return self._names.sub(lambda m: f"{m.group(0)} V{self.copy}", text)

    def query_id(self, query_id: str) -> str:
        return query_id if self.copy == 0 else f"v{self.copy}-{query_id}"

    def _texts(self, obj: dict) -> dict:
        out = dict(obj)
        for key in TEXT_FIELDS:
            if key in out:
                out[key] = self.text(out[key])
        if "aliases" in out:
            out["aliases"] = [self.text(a) for a in out["aliases"]]
        return out

    def kg_item(self, obj: dict) -> dict:
        """An entity or a relation."""
        out = self._texts(obj)
        for key in ("id", "head", "tail"):
            if key in out:
                out[key] = self.id(out[key])
        return out

    def query(self, obj: dict) -> dict:
        out = self._texts(obj)
        out["id"] = self.query_id(obj["id"])
        out["monster"] = self.id(obj["monster"])
        out["paths"] = [[self.id(e) for e in path] for path in obj["paths"]]
        return out

    def monster_file(self, doc: dict) -> dict:
        return {**doc, "monster": self.id(doc["monster"]),
                "entities": [self.kg_item(e) for e in doc["entities"]],
                "relations": [self.kg_item(r) for r in doc["relations"]]}

    def query_file(self, doc: dict) -> dict:
        return {**doc, "queries": [self.query(q) for q in doc["queries"]]}


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def generate(src: Path, out: Path, scale: int) -> dict[str, int]:
    """Write the scaled sources folder; return counts of monsters, relations and queries."""
    if scale < 1:
        raise ValueError("scale must be at least 1")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(src, out, ignore=lambda d, names: [n for n in names if n.endswith(".json")])
    shutil.copy2(src / "shared.json", out / "shared.json")
    monster_docs = {p.stem: _read(p) for p in sorted((src / "monsters").glob("*.json"))}
    query_docs = {p.stem: _read(p) for p in sorted((src / "queries").glob("*.json"))}
    monsters = {doc["monster"]: [n for e in doc["entities"] if e["id"] == doc["monster"]
                                 for n in (e["name"], *e.get("aliases", ()))]
                for doc in monster_docs.values()}
    counts = {"monsters": 0, "relations": 0, "queries": 0}
    for copy in range(scale):
        rename = Renamer(monsters, copy)
        for doc in monster_docs.values():
            cloned = rename.monster_file(doc)
            _write(out / "monsters" / f"{cloned['monster']}.json", cloned)
            counts["monsters"] += 1
            counts["relations"] += len(cloned["relations"])
        for stem, doc in query_docs.items():
            cloned = rename.query_file(doc)
            name = stem if copy == 0 else f"{stem}-v{copy}"
            _write(out / "queries" / f"{name}.json", cloned)
            counts["queries"] += len(cloned["queries"])
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, required=True, metavar="N", help="copies of the monsters (1 = data/ as is)")
    parser.add_argument("--out", type=Path, required=True, help="sources folder to write (replaced if it exists)")
    parser.add_argument("--src", type=Path, default=ROOT / "data", help="sources to clone (default: data/)")
    args = parser.parse_args()
    counts = generate(args.src, args.out, args.scale)
    print(f"{args.out}: {counts['monsters']} monsters, {counts['relations']} relations, {counts['queries']} queries")


if __name__ == "__main__":
    main()
