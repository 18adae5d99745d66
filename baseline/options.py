"""The one run configuration: every option of a baseline run, declared once.

Each field of :class:`RunOptions` says, in its metadata, which command-line flag sets it (the
flags of ``mhmmkg run`` and ``mhmmkg caption`` are made from these declarations, in declaration
order, group by group) and how it enters the run's record:

- ``HASHED``: it decides the answers; it is recorded in the manifest's ``config`` and enters the
  config hash that guards ``--resume``;
- ``HASHED_UNLESS_DEFAULT``: the same, but left out of the hash at its default, so that runs
  made before the option existed keep their hash (every option added from now on is one);
- ``KEPT``: recorded, not hashed: where the data or the endpoint is, not what it is (the same
  data under another path, the same model at another address, is the same run);
- no record: how much is done and how fast (concurrency, --limit, the cache, time-outs).

A new run option is one field here (its flag and its record) and the code that reads it.
The run fills the fields that no flag sets (the dataset's fingerprint, the prompt set's
identity, the captions file's hash) and resolves the model and endpoints before recording:
see :meth:`RunOptions.resolved`.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import operator
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mhmmkg.errors import UserError
from mhmmkg.benchmark.protocols import PROTOCOL_HELP, PROTOCOLS

from .backends import AGENT_GROUPS, AGENTS, BACKENDS
from .search import STRATEGIES
from .settings import QUESTION_STYLES, REPLY_READINGS, SETTINGS, QuestionOptions, SearchOptions

HASHED = "hashed"
HASHED_UNLESS_DEFAULT = "hashed unless default"
KEPT = "kept"


@dataclass(frozen=True)
class Flag:
    """A command-line flag: its names and ``add_argument`` keywords, the group it is listed in,
    and ``read``, which turns the parsed value into the option's value."""

    names: tuple[str, ...]
    group: str
    kwargs: dict[str, Any]
    read: Callable[[Any], Any] | None = None

    @property
    def dest(self) -> str:
        return self.kwargs.get("dest") or self.names[0].lstrip("-").replace("-", "_")

    def value(self, args: argparse.Namespace) -> Any:
        value = getattr(args, self.dest)
        return self.read(value) if self.read else value


def flag(*names: str, group: str, read: Callable[[Any], Any] | None = None, **kwargs: Any) -> Flag:
    return Flag(names, group, kwargs, read)


def option(default: Any = dataclasses.MISSING, *, factory: Callable[[], Any] | None = None,
           record: str | None = None, cli: Flag | dict[str, Flag] | None = None) -> Any:
    """A field of :class:`RunOptions`: ``record`` says how it enters the run's record, ``cli`` is
    its flag (or, for an option made of parts, part name -> flag)."""
    metadata = {"record": record, "cli": cli}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def pairs(values: list[str], flag: str) -> dict[str, str]:
    """``["A=x", "B=y"]`` -> ``{"A": "x", "B": "y"}``; a malformed or repeated AGENT is a user error."""
    out: dict[str, str] = {}
    for value in values:
        agent, sep, setting = value.partition("=")
        if not sep or not agent.strip() or not setting.strip():
            raise UserError(f"{flag} {value!r}: expected AGENT=VALUE")
        if agent.strip() in out:
            raise UserError(f"{flag}: agent {agent.strip()!r} given twice")
        out[agent.strip()] = setting.strip()
    return out


def _pairs_of(name: str) -> Callable[[list[str]], dict[str, str]]:
    return lambda values: pairs(values, name)


_AGENT_NAMES = ", ".join(AGENTS + tuple(AGENT_GROUPS))

#: the groups of flags, in the order ``mhmmkg run`` lists them; "common" and "model" are shared
#: with ``mhmmkg caption``
RUN = "run"
COMMON = "common"
SELECTION = "selection"
MODEL = "model"
PROTOCOL = "protocol"
SEARCH = "search"
QUESTION = "question"


@dataclass
class RunOptions:
    """Everything ``mhmmkg run`` is told; :meth:`as_dict` and :meth:`config_hash` keep what decides the answers."""

    setting: str = option(record=HASHED, cli=flag(
        "--setting", group=RUN, required=True, type=SETTINGS.check, metavar=SETTINGS.metavar(),
        help="experimental setting, or a Setting of your own (FILE.py:NAME or MODULE:NAME)"))
    out: Path = option(cli=flag(
        "--out", group=RUN, required=True, type=Path, metavar="RUNDIR", help="run folder to write"))
    dataset: str = option("mh-mmkg", record=KEPT, cli=flag(
        "--dataset", group=COMMON, default="mh-mmkg", metavar="DIR",
        help="built dataset folder, Hub dataset id or curated sources folder (default mh-mmkg)"))
    concurrency: int = option(4, cli=flag(
        "--concurrency", group=COMMON, type=int, default=4, metavar="N",
        help="calls in flight at once; queries run in parallel, the steps of one query in order (default 4)"))
    quiet: bool = option(False, cli=flag("--quiet", group=COMMON, action="store_true", help="no progress bar"))
    limit: int | None = option(None, cli=flag(
        "--limit", group=SELECTION, type=int, metavar="N",
        help="only the first N queries (in id order: the first monsters)"))
    #: a seeded sample stratified over monsters and sub-tasks (seed: ``seed``)
    sample: int | None = option(None, cli=flag(
        "--sample", group=SELECTION, type=int, metavar="N",
        help="a seeded sample of N queries spread over sub-tasks (equal shares) and monsters (as even as that "
             "allows); --seed S chooses the sample. Recorded in the manifest's 'selection'"))
    resume: bool = option(False, cli=flag(
        "--resume", group=SELECTION, action="store_true",
        help="continue the run in RUNDIR (same configuration): finished queries are kept"))
    model: str = option("offline", record=HASHED, cli=flag(
        "--model", group=MODEL, type=BACKENDS.check, metavar=BACKENDS.metavar(), default="offline",
        help="offline: the built-in deterministic model (default); openai: an OpenAI-compatible endpoint; "
             "MODULE:FUNCTION or FILE.py:FUNCTION: FUNCTION(options) returns a backend of your own "
             "(see docs/architecture.md)"))
    base_url: str | None = option(None, record=KEPT, cli=flag(
        "--base-url", group=MODEL, metavar="URL",
        help="API root of the endpoint, e.g. http://127.0.0.1:8000/v1 (default https://api.openai.com/v1)"))
    #: recorded as the run resolved it: "offline" for the offline model
    model_name: str | None = option(None, record=HASHED, cli=flag(
        "--model-name", group=MODEL, metavar="NAME", help="model name the endpoint serves (needed with --model openai)"))
    api_key_env: str | None = option(None, cli=flag(
        "--api-key-env", group=MODEL, metavar="VAR",
        help="environment variable holding the API key; without it no Authorization header is sent"))
    timeout: float = option(60.0, cli=flag(
        "--timeout", group=MODEL, type=float, default=60.0, metavar="SECONDS",
        help="seconds to wait for one reply (default 60)"))
    max_retries: int = option(6, cli=flag(
        "--max-retries", group=MODEL, type=int, default=6, metavar="N",
        help="retries of a failed call: 429, 5xx, timeouts, broken replies (default 6)"))
    temperature: float = option(0.0, record=HASHED, cli=flag(
        "--temperature", group=MODEL, type=float, default=0.0, metavar="T", help="sampling temperature (default 0)"))
    max_tokens: int | None = option(None, record=HASHED, cli=flag(
        "--max-tokens", group=MODEL, type=int, metavar="N", help="cap on tokens per reply (default: the endpoint's)"))
    seed: int = option(0, record=HASHED, cli=flag(
        "--seed", group=MODEL, type=int, default=0, metavar="N",
        help="seed passed to the endpoint, and of the --sample draw (default 0)"))
    #: per-agent model name, endpoint and key variable; recorded as resolved per agent (``agent_routes``)
    agent_models: dict[str, str] = option(factory=dict, record=HASHED, cli=flag(
        "--agent-model", group=MODEL, read=_pairs_of("--agent-model"), action="append", default=[],
        metavar="AGENT=NAME",
        help=f"give one agent its own model (repeatable; NAME 'offline' is the built-in model); "
             f"AGENT is one of {_AGENT_NAMES} (searcher = topic, expansion and validation)"))
    agent_base_urls: dict[str, str] = option(factory=dict, record=KEPT, cli=flag(
        "--agent-base-url", group=MODEL, read=_pairs_of("--agent-base-url"), action="append", default=[],
        metavar="AGENT=URL",
        help="give one agent its own endpoint (repeatable); it then gets no key but its own --agent-api-key-env"))
    agent_api_key_envs: dict[str, str] = option(factory=dict, cli=flag(
        "--agent-api-key-env", group=MODEL, read=_pairs_of("--agent-api-key-env"), action="append", default=[],
        metavar="AGENT=VAR", help="environment variable holding the key for one agent's endpoint (repeatable)"))
    cache: Path | None = option(None, cli=flag(       # None: the default cache file; ignored with no_cache
        "--cache", group=MODEL, type=Path, metavar="FILE",
        help="SQLite reply cache (default $XDG_CACHE_HOME/mhmmkg/chat.sqlite or ~/.cache/...)"))
    no_cache: bool = option(False, cli=flag(
        "--no-cache", group=MODEL, action="store_true", help="do not read or write the reply cache"))
    #: the --protocol that filled the options not given
    protocol: str = option("ours", record=HASHED_UNLESS_DEFAULT, cli=flag(
        "--protocol", group=PROTOCOL, choices=PROTOCOLS, default=None, help=PROTOCOL_HELP))
    search: SearchOptions = option(factory=SearchOptions, record=HASHED, cli={
        "order": flag(
            "--search", group=SEARCH, type=STRATEGIES.check, metavar=STRATEGIES.metavar(), default=None,
            help="bfs: ours, breadth-first (protocol ours); dfs: ours, depth-first; paper: the paper's "
                 "section 4.1 (protocol paper); official: the authors' search (protocol authors); "
                 "MODULE:FUNCTION or FILE.py:FUNCTION: a strategy of your own (see docs/architecture.md)"),
        "alpha": flag(
            "--alpha", group=SEARCH, type=int, default=None, metavar="N",
            help="bfs: complete paths given to the summarizer, shortest first; dfs/paper: the first "
                 "this many found; official: stop once this many paths are found, all go to the "
                 "summarizer (5 in every protocol)"),
        "max_depth": flag(
            "--max-depth", group=SEARCH, type=int, default=None, metavar="N",
            help="bfs/dfs only (ours): hops from the topic entity (protocol ours: 4; paper, authors: no limit)"),
        "path_budget": flag(
            "--path-budget", group=SEARCH, type=int, default=None, metavar="N",
            help="bfs/dfs only (ours): stop after this many complete paths (protocol ours: 10; paper, "
                 "authors: no limit)"),
    })
    #: a prompt-set file; None: our default set (recorded by its identity, ``prompt_set``)
    prompts: Path | None = option(None, cli=flag(
        "--prompts", group=SEARCH, type=Path, metavar="FILE",
        help="prompt-set file (default: our prompts); e.g. made by `mhmmkg import-official-prompts`"))
    #: "exact": read replies as the authors' code does
    replies: str = option("lenient", record=HASHED_UNLESS_DEFAULT, cli=flag(
        "--replies", group=SEARCH, choices=REPLY_READINGS, default=None,
        help="lenient: read agents' replies forgivingly (protocols ours, paper); exact: as the "
             "authors' code reads replies in their prompts' shapes (protocol authors): the topic "
             "must be a monster's name exactly, picked names exact KG keys ('Zinogre Back Slam'), "
             "the topic entity complete only on the reply 'Yes'"))
    #: 0: the topic agent sees every monster (the paper)
    topic_shortlist: int = option(0, record=HASHED_UNLESS_DEFAULT, cli=flag(
        "--topic-shortlist", group=SEARCH, type=int, default=0, metavar="N",
        help="show the topic agent at most N monsters, those the question, auxiliary information "
             "or scene names (all of them when none is named); for real models on a large KG. "
             "A deviation from the paper, which lists every monster (default 0: every monster)"))
    #: MODULE:FUNCTION replacing the agents' search
    retriever: str | None = option(None, record=HASHED, cli=flag(
        "--retriever", group=SEARCH, metavar="MODULE:FUNCTION",
        help="replace the agents' topic selection and search with your retriever: a function "
             "retrieve(query, graph) -> entity-id paths from the topic monster (MODULE:FUNCTION "
             "or FILE.py:FUNCTION; e.g. mhmmkg.baseline.retrievers.bm25:retrieve); the summarizer, "
             "run folder and submission stay"))
    #: a file made by `mhmmkg caption` (unaided_offline); recorded by its hash, ``captions_sha256``
    captions: Path | None = option(None, cli=flag(
        "--captions", group=SEARCH, type=Path, metavar="FILE",
        help="unaided_offline: KG captions made by `mhmmkg caption` (default: made in the run)"))
    question: QuestionOptions = option(factory=QuestionOptions, record=HASHED, cli={
        "style": flag(
            "--question-style", group=QUESTION, type=QUESTION_STYLES.check, metavar=QUESTION_STYLES.metavar(),
            default=None,
            help="open: our cleaned text (protocol ours); official: the authors' exact string (protocols "
                 "paper and authors), and with --no-name the auxiliary information still names the "
                 "monster, as their code does; or a QuestionStyle of your own (FILE.py:NAME)"),
        "use_name": flag(
            "--no-name", group=QUESTION, read=operator.not_, action="store_true",
            help="withhold the monster's name: 'the monster' (text-only queries keep the name)"),
        "use_extra": flag(
            "--no-extra", group=QUESTION, read=operator.not_, action="store_true",
            help="leave out the auxiliary information"),
    })
    # filled by the run (no flag): what the dataset, the prompt set and the captions file are
    dataset_fingerprint: str = option("", record=HASHED)
    prompt_set: dict = option(factory=dict, record=HASHED)      # name, version and sha256 of the prompt set
    captions_sha256: str | None = option(None, record=HASHED)   # of a --captions file made by `mhmmkg caption`

    def as_dict(self) -> dict:
        """The recorded options (the manifest's ``config``)."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self) if f.metadata.get("record")}

    def config_hash(self) -> str:
        """SHA-256 of the hashed options: equal hashes, equal answers (``--resume`` checks it)."""
        data = {}
        for f in dataclasses.fields(self):
            record, value = f.metadata.get("record"), getattr(self, f.name)
            if record == HASHED or (record == HASHED_UNLESS_DEFAULT and value != _default(f)):
                data[f.name] = _plain(value)
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def resolved(self, **filled: Any) -> RunOptions:
        """These options with the run's resolved and filled-in values (``filled``), as recorded."""
        return dataclasses.replace(self, **filled)


def _plain(value: Any) -> Any:
    return asdict(value) if dataclasses.is_dataclass(value) else value


def _default(f: dataclasses.Field) -> Any:
    return f.default_factory() if f.default is dataclasses.MISSING else f.default


def flags(group: str, options: type[RunOptions] | None = None) -> Iterator[Flag]:
    """The flags of one group, in declaration order (of ``options``: RunOptions or a subclass adding options)."""
    for f in dataclasses.fields(options or RunOptions):
        cli = f.metadata.get("cli")
        for one in (cli.values() if isinstance(cli, dict) else [cli] if cli else []):
            if one.group == group:
                yield one


def add_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, group: str,
              options: type[RunOptions] | None = None) -> None:
    for one in flags(group, options):
        parser.add_argument(*one.names, **one.kwargs)


def values_from(args: argparse.Namespace, groups: tuple[str, ...],
                options: type[RunOptions] | None = None) -> dict[str, Any]:
    """The options the flags of ``groups`` set, read from parsed ``args`` (for ``RunOptions(**...)``)."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(options or RunOptions):
        cli = f.metadata.get("cli")
        if isinstance(cli, dict):
            parts = {part: one.value(args) for part, one in cli.items() if one.group in groups}
            if parts:
                values[f.name] = f.default_factory(**parts)
        elif cli and cli.group in groups:
            values[f.name] = cli.value(args)
    return values


class RunConfig(RunOptions):
    """A run's recorded configuration, built directly (as older code did): :class:`RunOptions`
    whose run folder need not be given and whose model name defaults to the offline model's."""

    def __init__(self, setting: str, model: str, model_name: str = "offline", out: Path | None = None, **kwargs):
        super().__init__(setting=setting, out=out, model=model, model_name=model_name, **kwargs)
