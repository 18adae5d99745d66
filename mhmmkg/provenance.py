"""Where a fact comes from, by kind of source.

A source (an entry of an entity's or relation's ``sources``) is one of three kinds: a game table
(``mhworlddata:<table>.csv``, the MHWorldData tables copied in the sources), a row of the authors'
question list (``authors-list:<File>#route`` or ``#answer``), or a public page (its URL). The
authors' repository itself is none of them: it holds code and the question list, not a knowledge
graph. A fact is *independently sourced* when it has a table or a page.
"""
from __future__ import annotations

import re

TABLE, AUTHORS_LIST, PAGE = "table", "authors_list", "page"
SOURCE_KINDS = (TABLE, AUTHORS_LIST, PAGE)
INDEPENDENT = (TABLE, PAGE)

TABLE_PREFIX = "mhworlddata:"
AUTHORS_LIST_PREFIX = "authors-list:"
AUTHORS_REPOSITORY = "https://github.com/wbw520/MH-MMKG"
_URL = re.compile(r"https?://[^\s/]+\.[^\s/]+(/\S*)?$")


def source_kind(source: str) -> str | None:
    """``table``, ``authors_list`` or ``page``; None for anything else (the bare authors'
    repository included). A table or row citation's own form is checked elsewhere."""
    if source.startswith(TABLE_PREFIX):
        return TABLE
    if source.startswith(AUTHORS_LIST_PREFIX):
        return AUTHORS_LIST
    if _URL.match(source) and source.rstrip("/") != AUTHORS_REPOSITORY:
        return PAGE
    return None


def source_kinds(sources) -> set[str]:
    return {k for k in map(source_kind, sources) if k}


def independently_sourced(fact) -> bool:
    return bool(source_kinds(fact.sources) & set(INDEPENDENT))
