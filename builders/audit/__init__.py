"""Curation audits of a sources folder: the KG against the game's tables, near-copy captions, and
the recognition shortcut. ``mhmmkg audit`` runs them all."""
