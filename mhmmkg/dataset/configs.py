"""The configs of the built dataset and the split each one holds (no ``datasets`` import needed)."""
from __future__ import annotations

CONFIGS: dict[str, str] = {"queries": "test", "graph": "kg", "attributes": "kg"}
DEFAULT_CONFIG = "queries"
