"""The import paths of the flat layout: ``mhmmkg.graph`` and the rest, now in stage sub-packages.

Every module that moved keeps its old path: ``import mhmmkg.graph`` (or ``from mhmmkg.graph import
...``) gives the module ``mhmmkg.kg.graph`` itself, the same object, imported when first asked for
(so importing ``mhmmkg`` still imports nothing heavy). New code names the new paths.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys

#: old module name under mhmmkg -> its path now
MOVED = {
    "atomic": "files.atomic",
    "beir": "interop.beir",
    "bm25": "lexical.bm25",
    "chat": "llm.chat",
    "completion": "interop.completion",
    "draw": "kg.draw",
    "efficiency": "benchmark.efficiency",
    "exports": "interop.exports",
    "features": "dataset.features",
    "graph": "kg.graph",
    "graphml": "interop.graphml",
    "hub": "dataset.hub",
    "jsontext": "files.jsontext",
    "layout": "kg.layout",
    "loading": "dataset.loading",
    "manifest": "dataset.manifest",
    "model": "kg.model",
    "monster_layout": "kg.monster_layout",
    "official_protocol": "official.protocol",
    "outputs": "files.outputs",
    "prompt_sets": "llm.prompt_sets",
    "protocols": "benchmark.protocols",
    "provenance": "curation.provenance",
    "rdf": "interop.rdf",
    "render": "benchmark.render",
    "schemas": "curation.schemas",
    "scoring": "benchmark.scoring",
    "settings": "benchmark.settings",
    "shortcut": "lexical.shortcut",
    "sources": "curation.sources",
    "stats": "kg.stats",
    "submission_file": "files.submission_file",
    "tfidf": "lexical.tfidf",
}


#: old dotted path of a module inside a sub-package of mhmmkg -> its path now: the authors'
#: protocol, gathered in ``mhmmkg.official`` (the top-level folder ``official/``)
MOVED_SUBMODULES: dict[str, str] = {
    "benchmark.official_protocol": "official.protocol",
    "builders.official": "official.release",
    "builders.official.compat": "official.release.compat",
    "builders.official.import_release": "official.release.import_release",
    "builders.official.kg": "official.release.kg",
    "builders.official.media": "official.release.media",
    "builders.official.queries": "official.release.queries",
    "builders.official.routes": "official.release.routes",
    "builders.official.sources_writer": "official.release.sources_writer",
    "builders.official.workbooks": "official.release.workbooks",
    "baseline.official_prompts": "official.prompts",
    "baseline.import_prompts": "official.import_prompts",
    "baseline.search.official": "official.search",
    "eval.authors_files": "official.results.authors_files",
    "eval.import_results": "official.results.import_results",
    "eval.export_results": "official.results.export_results",
}


def new_path(fullname: str) -> str | None:
    """The full name a moved module has now, or None for a name that did not move."""
    if not fullname.startswith(f"{__package__}."):
        return None
    old = fullname[len(__package__) + 1:]
    moved = MOVED_SUBMODULES.get(old) if "." in old else MOVED.get(old)
    return f"{__package__}.{moved}" if moved else None


class _OldPaths:
    """Finds an old module path (``mhmmkg.<old name>``, or a dotted one of
    :data:`MOVED_SUBMODULES`) and loads it as the module at its new path. (A meta path finder
    and loader by its methods; not derived from ``importlib.abc``, whose import costs every
    process 7 ms.)"""

    def find_spec(self, fullname, path=None, target=None):
        if new_path(fullname) is not None:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def __init__(self):
        self._specs = {}

    def create_module(self, spec):
        module = importlib.import_module(new_path(spec.name))
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        """Nothing to run: the module ran at its new path; its own spec is put back (the import
        system set the old name's spec on it)."""
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)


def install() -> None:
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())


def old_path(name: str):
    """The module an old name stands for (``mhmmkg.<name>`` as an attribute of the package)."""
    if name in MOVED:
        return importlib.import_module(f"{__package__}.{MOVED[name]}")
    raise AttributeError(f"module {__package__!r} has no attribute {name!r}")
