"""Curated sources and their checks: reading a sources folder, the JSON Schemas, provenance."""
