"""Images of queries and KG entities, for the settings where the model looks at media.

From a built dataset folder or a Hub id the images and keyframes come from the Parquet files;
from a sources folder, from the image and keyframe files the sources name (a video without cut
keyframes needs a build first, which extracts them).
"""
from __future__ import annotations

import io
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.kg.model import Query

MAX_FRAMES = 10


def _is_sources(source: str | Path) -> bool:
    return Path(source).is_dir() and (Path(source) / "shared.json").is_file()


def _encoded(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=image.format or "PNG")
    return buffer.getvalue()


class MediaStore:
    """Encoded frames (images, then keyframes; at most ``MAX_FRAMES``) of a dataset's queries and entities."""

    def __init__(self, source: str | Path, queries: list[Query]):
        self.source = source
        self._queries: dict[str, tuple[bytes, ...]] = {}
        self._entities: dict[str, tuple[bytes, ...]] | None = None
        if _is_sources(source):
            from mhmmkg.curation.sources import load_sources

            sources = load_sources(source)
            self._sources = sources
            for q in queries:
                media = sources.query_media.get(q.id)
                self._queries[q.id] = self._read_files(media) if media else ()
        else:
            self._sources = None
            for q in queries:
                self._queries[q.id] = tuple(q.images[:MAX_FRAMES])

    def _read_files(self, media) -> tuple[bytes, ...]:
        root = Path(self.source)
        paths = list(media.images) + list(media.keyframe_images)
        return tuple((root / p).read_bytes() for p in paths[:MAX_FRAMES])

    def query_images(self, query_id: str) -> tuple[bytes, ...]:
        return self._queries.get(query_id, ())

    def entity_images(self, entity_id: str) -> tuple[bytes, ...]:
        if self._entities is None:
            self._entities = self._load_entities()
        return self._entities.get(entity_id, ())

    def entities_with_media(self) -> list[str]:
        if self._entities is None:
            self._entities = self._load_entities()
        return [k for k, v in self._entities.items() if v]

    def _load_entities(self) -> dict[str, tuple[bytes, ...]]:
        if self._sources is not None:
            return {eid: self._read_files(m) for eid, m in self._sources.entity_media.items()}
        import datasets

        try:
            table = datasets.load_dataset(str(self.source), "attributes", split="kg")
        except (FileNotFoundError, ValueError) as exc:
            raise UserError(f"{self.source}: cannot load the KG media: {exc}") from None
        table = table.filter(lambda flag: bool(flag), input_columns="has_media")
        out = {}
        for row in table:
            frames = list(row.get("images") or []) + list(row.get("keyframes") or [])
            out[row["id"]] = tuple(_encoded(im) for im in frames[:MAX_FRAMES])
        return out
