"""Where the content of a sources folder comes from, so that the dataset card built from it tells
the truth about authorship and license.

A sources folder written by ``mhmmkg import-official`` holds ``origin.json`` naming what was
imported from the authors' release; a folder without it is content curated for this project.
"""
from __future__ import annotations

import os
from pathlib import Path

from mhmmkg.errors import InvalidInput, Problem
from mhmmkg.curation.provenance import AUTHORS_REPOSITORY
from mhmmkg.files.jsontext import read_json_file

ORIGIN_FILE = "origin.json"

CURATED = "curated"
AUTHORS_RELEASE = "authors-release"      # the authors' KG and their questions
AUTHORS_QUESTIONS = "authors-questions"  # the authors' questions on a KG of this project
ORIGINS = (CURATED, AUTHORS_RELEASE, AUTHORS_QUESTIONS)


def read_origin(src: Path) -> str:
    path = Path(src) / ORIGIN_FILE
    if not os.path.lexists(path):       # anything else there (a FIFO, a folder) is refused by the reader
        return CURATED
    doc = read_json_file(path, "origin file")
    if not isinstance(doc, dict):
        raise InvalidInput([Problem(str(path), "", "not a JSON object")], "sources")
    origin = doc.get("content")
    if origin not in ORIGINS:
        raise InvalidInput([Problem(str(path), "/content", f"{origin!r} is not one of {', '.join(ORIGINS)}")],
                           "sources")
    return origin


def origin_document(origin: str) -> dict:
    """The content of ``origin.json`` for an imported folder."""
    return {"content": origin, "source": AUTHORS_REPOSITORY}
