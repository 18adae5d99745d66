"""The KG inside other RAG frameworks: one module per framework, each imported only when used.

- ``mhmmkg.integrations.llamaindex``: ``documents``, ``text_nodes`` (one per entity, ``id_`` = entity
  id, metadata kept out of the embedding text by default) and ``property_graph`` (a
  ``SimplePropertyGraphStore`` of the entities and relations with their types, phrases and
  conditions); needs ``pip install 'mhmmkg[llamaindex]'``.
- ``mhmmkg.integrations.langchain``: ``documents`` (LangChain ``Document`` per entity, ``id`` = entity
  id); needs ``pip install 'mhmmkg[langchain]'``.

The text of each entity is the ``jsonl-docs`` export's (``mhmmkg.exports.entity_document``).
"""
from __future__ import annotations

import importlib

from ..errors import UserError


#: The settings the Inspect AI task runs (no media needed), with what the model is given in each:
#: read by the task (``inspect_eval``) and by the ``eval.yaml`` of a built dataset.
INSPECT_SETTINGS = {
    "know": "the scene description and the ground-truth knowledge paths",
    "vanilla_plus": "the scene description, no knowledge",
    "perceptive": "the scene description and three graph tools the model calls itself",
}


def require(module: str, extra: str):
    """Import ``module`` of an optional framework, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"this needs {module.split('.')[0]}: pip install 'mhmmkg[{extra}]'") from None
