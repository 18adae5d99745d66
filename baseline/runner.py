"""A baseline run: its folder, its records, resuming it, and the thread pool that drives it.

Run folder (DESIGN section 8)::

    manifest.json          config and its hash, model, dataset fingerprint, prompt versions, package version
    calls.jsonl            one line per chat call: query, agent, latency, attempts, tokens, cached,
                           the prompt and the reply
    results.jsonl          one line per finished query (its submission line), flushed and fsynced
    captions.json          unaided_offline: the model's captions of KG media, made before the queries
    submission.jsonl       the benchmark submission, written when every selected query is done
    submission.meta.json   run metadata next to it
    summary.json           the cost accounting (per-query retrieval time, agent calls, response time)

A killed run loses at most the queries in flight: ``--resume`` keeps every finished line, drops a
torn last line, and refuses a folder made with a different configuration.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import hashlib
import json
import os
import queue
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mhmmkg import __version__, load_graph, load_queries
from mhmmkg.files.atomic import atomic_write_json
from mhmmkg.benchmark.efficiency import SUMMARY, format_efficiency
from mhmmkg.benchmark.efficiency import figures as efficiency_figures
from mhmmkg.llm.chat import DEFAULT_BASE_URL, ChatError
from mhmmkg.errors import UserError, read_json_input
from mhmmkg.files.jsontext import MAX_JSONL_BYTES, parse_json_line, read_bytes_file, read_json_file
from mhmmkg.kg.graph import KnowledgeGraph
from mhmmkg.dataset.manifest import RUN_KIND, dataset_fingerprint, declares
from mhmmkg.kg.model import Query
from mhmmkg.files.outputs import check_location
from mhmmkg.registry import is_spec
from mhmmkg.files.submission_file import write_submission

from mhmmkg.llm.prompt_sets import PromptSet, require_agents

from .agents import AgentBackends, Agents, CallRecord
from .backends import agent_routes, make_backends
from .media import MediaStore
from .offline import OfflineChat
from .pipeline import Context, caption_entity, solve
from .prompts import default_prompts, prompts_from
from .retrievers import load_retriever
from .search import strategy
from .sample import stratified_sample
from .options import RunConfig, RunOptions  # noqa: F401  (RunConfig: part of this module's API)
from .settings import QUESTION_STYLES, SETTINGS, QuestionOptions, SearchOptions, Setting  # noqa: F401  (their old home)

MANIFEST = "manifest.json"
CALLS = "calls.jsonl"
RESULTS = "results.jsonl"
CAPTIONS = "captions.json"
SUBMISSION = "submission.jsonl"
LOCK = ".lock"


@dataclass
class RunOutcome:
    folder: Path
    submission: Path
    summary: dict
    new_queries: int                     # answered by this invocation (the rest were resumed)


def write_json(path: Path, data) -> None:
    atomic_write_json(path, data, durable=True, sort_keys=True)


def read_jsonl(path: Path) -> tuple[list[dict], int]:
    """Records of an append-only JSON Lines file and the byte length of its intact part.

    Only the last line may be torn (a crash mid-write): it is left out. A bad line before the
    last one means the file was damaged some other way, which is an error.
    """
    if not path.exists():
        return [], 0
    data = read_bytes_file(path, "run log", max_bytes=MAX_JSONL_BYTES)
    records, good = [], 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        last = number == len(lines)
        if last and not raw.strip():
            break
        try:
            record = parse_json_line(raw)
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except ValueError:
            if last or (number == len(lines) - 1 and not lines[-1]):
                break
            raise UserError(f"{path}: line {number} is not a JSON object; the run folder is damaged "
                            f"(delete the folder or the line to continue)") from None
        if last:        # a complete object without its newline: written, but not confirmed
            break
        records.append(record)
        good += len(raw) + 1
    return records, good


class JsonlLog:
    """Thread-safe append-only JSON Lines file.

    Every line is flushed to the operating system at once, so a killed process loses nothing
    written. ``durable`` files are also fsynced, at most every ``sync_interval`` seconds and on
    close, so that a power loss costs at most the last moments; a line lost that way is a query
    that a resumed run answers again, never one answered twice.
    """

    def __init__(self, path: Path, durable: bool, sync_interval: float = 1.0):
        _, good = read_jsonl(path)
        with open(path, "ab") as f:
            f.truncate(good)
        self._file = open(path, "ab")
        self._durable = durable
        self._sync_interval = sync_interval
        self._synced = time.monotonic()
        self._unsynced = False
        self._lock = threading.Lock()

    def append(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            self._unsynced = self._durable
            if self._durable and time.monotonic() - self._synced >= self._sync_interval:
                self._sync()

    def _sync(self) -> None:
        os.fsync(self._file.fileno())
        self._synced, self._unsynced = time.monotonic(), False

    def close(self) -> None:
        with self._lock:
            if self._unsynced and not self._file.closed:
                self._sync()
            self._file.close()


def check_media(setting_name: str, dataset: str, queries: list[Query], media: MediaStore | None) -> None:
    """Vision settings on data without any media stop here with a clear message. A query without
    media (the authors' "Pure Text" ones) is asked with its question only, as the authors do."""
    setting = SETTINGS[setting_name]
    alternatives = "use vanilla_plus, know or perceptive, which use the human description of each scene"
    if setting.query_media and queries and not any(media.query_images(q.id) for q in queries):
        raise UserError(f"dataset {dataset}: it has no query media (images or keyframes), which the "
                        f"{setting_name} setting needs; {alternatives}")
    if setting.needs_kg_media and not media.entities_with_media():
        raise UserError(f"dataset {dataset}: its knowledge graph has no media (images or keyframes), which "
                        f"the {setting_name} setting needs to describe; {alternatives}")


def agents_called(setting: Setting) -> list[str]:
    """The agents a run in ``setting`` may call (so a prompt set lacking one is refused up front)."""
    if setting.retrieval == "none":
        return ["direct"] + (["perceiver"] if setting.scene == "model" else [])
    agents = ["summarizer"]
    if setting.retrieval == "search":
        agents += ["topic", "expansion", "validation"]
    if setting.scene == "model":
        agents.append("perceiver")
    if setting.captions == "online":
        agents.append("validation_online")
    if setting.captions == "offline":
        agents.append("captioner")
    return agents


def check_prompts(prompts: PromptSet, setting: Setting, backends: AgentBackends) -> None:
    require_agents(prompts, agents_called(setting), "--prompts")
    if prompts.sha256 != default_prompts().sha256 and any(
            isinstance(backends(agent), OfflineChat) for agent in agents_called(setting)):
        raise UserError(f"--prompts: the offline model reads only the default prompt set, not {prompts.name!r}; "
                        f"use --model openai (or give the agents that use the set their own --agent-model)")


def load_captions(path: Path, graph: KnowledgeGraph) -> dict[str, str]:
    data = read_json_input(path, "captions file")
    captions = data.get("captions") if isinstance(data, dict) else None
    if not isinstance(captions, dict):
        raise UserError(f"{path}: /captions: expected an object of entity id -> caption (made by `mhmmkg caption`)")
    for key, value in captions.items():
        if key not in graph:
            raise UserError(f"{path}: /captions/{key}: unknown entity of this dataset")
        if not isinstance(value, str) or not value.strip():
            raise UserError(f"{path}: /captions/{key}: expected a non-empty caption")
    return captions


class RunFolder:
    """The files of one run folder; holds an exclusive lock on it while open."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def open(self, manifest: dict, resume: bool) -> dict[str, dict]:
        """Create or reopen the folder; return the finished results by query id."""
        existing = self.path / MANIFEST
        if self.path.exists() and not self.path.is_dir():
            raise UserError(f"{self.path}: exists and is not a folder; choose another --out")
        if self.path.exists() and any(p.name != LOCK for p in self.path.iterdir()):
            if not resume:
                raise UserError(f"{self.path}: the folder is not empty; pass --resume to continue the run in it, "
                                f"or choose a new --out")
            if not existing.exists():
                raise UserError(f"{self.path}: not a run folder (no {MANIFEST}); choose a new --out")
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(self.path / LOCK, "w")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(f"{self.path}: another run is using this folder") from None
        if existing.exists():
            old = read_json_file(existing, "run manifest")
            if not isinstance(old, dict) or not isinstance(old.get("config", {}), dict) or not declares(old, RUN_KIND):
                raise UserError(f"{existing}: not a run manifest (expected an object whose config is an object); "
                                f"use a new --out")
            if old.get("config_hash") != manifest["config_hash"]:
                changed = sorted(k for k in set(old.get("config", {})) | set(manifest["config"])
                                 if old.get("config", {}).get(k) != manifest["config"].get(k))
                raise UserError(f"{self.path}: cannot resume: the folder holds a run with a different "
                                f"configuration (differs in: {', '.join(changed) or 'unknown'}); use a new --out")
            manifest = {**manifest, "created": old.get("created", manifest["created"])}
        write_json(existing, manifest)
        finished, _ = read_jsonl(self.path / RESULTS)
        for number, record in enumerate(finished, 1):
            if not isinstance(record.get("query_id"), str) or not record["query_id"]:
                raise UserError(f"{self.path / RESULTS}: line {number}: no query_id; the run folder is damaged "
                                f"(delete the line or the folder to continue)")
        self.results = JsonlLog(self.path / RESULTS, durable=True)
        self.calls = JsonlLog(self.path / CALLS, durable=False)
        return {r["query_id"]: r for r in finished}

    def close(self) -> None:
        for log in (getattr(self, "results", None), getattr(self, "calls", None)):
            if log:
                log.close()
        if getattr(self, "_lock_file", None):
            self._lock_file.close()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def summarise(lines: list[dict], wall_time: float, extra: dict | None = None,
              calls: list[dict] | None = None) -> dict:
    """The cost accounting of a run from its result lines and call records.

    The efficiency figures of the paper's supplement (Table 13) are mean and standard deviation
    over the run's queries (``calls_per_query``, ``retrieval_seconds_per_query``) and over the
    calls that reached the endpoint for them (``seconds_per_call``; cache hits are left out,
    their latency is a lookup).
    """
    metas = [line.get("meta", {}) for line in lines]

    def mean(key: str) -> float:
        values = [m.get(key, 0.0) or 0.0 for m in metas]
        return round(statistics.fmean(values), 4) if values else 0.0

    by_agent: dict[str, int] = {}
    unparsed: dict[str, int] = {}
    for m in metas:
        for agent, n in m.get("calls_by_agent", {}).items():
            by_agent[agent] = by_agent.get(agent, 0) + n
        for agent, n in m.get("unparsed", {}).items():
            unparsed[agent] = unparsed.get(agent, 0) + n
    answered = {line["query_id"] for line in lines}
    return {
        "queries": len(lines),
        **efficiency_figures(metas, [c for c in calls or () if c.get("query_id") in answered]),
        "agent_calls": sum(m.get("agent_calls", 0) for m in metas),
        "cached_calls": sum(m.get("cached_calls", 0) for m in metas),
        "calls_by_agent": dict(sorted(by_agent.items())),
        "prompt_tokens": sum(m.get("prompt_tokens", 0) for m in metas),
        "completion_tokens": sum(m.get("completion_tokens", 0) for m in metas),
        "unparsed_replies": dict(sorted(unparsed.items())),
        "mean_paths": round(statistics.fmean([len(line.get("paths", [])) for line in lines]), 4) if lines else 0.0,
        "wall_time": round(wall_time, 3),
        **(extra or {}),
    }


def format_summary(summary: dict) -> str:
    rows = [
        ("queries", f"{summary['queries']}"),
        *format_efficiency(summary),
        ("agent calls (cached)", f"{summary['agent_calls']} ({summary['cached_calls']})"),
        ("tokens prompt / completion", f"{summary['prompt_tokens']} / {summary['completion_tokens']}"),
        ("wall time (this invocation)", f"{summary['wall_time']:.1f} s"),
    ]
    if summary.get("unparsed_replies"):
        rows.append(("unparsed replies", ", ".join(f"{k} {v}" for k, v in summary["unparsed_replies"].items())))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def selection(options: RunOptions, queries) -> dict:
    """Which queries the run answers: all, the first --limit, or a --sample (with its seed); and how many."""
    if options.sample is not None:
        return {"mode": "sample", "n": options.sample, "seed": options.seed, "queries": len(queries)}
    if options.limit is not None:
        return {"mode": "limit", "n": options.limit, "queries": len(queries)}
    return {"mode": "all", "queries": len(queries)}


def execute(options: RunOptions) -> RunOutcome:
    """Run (or resume) the baseline as ``options`` say; write the run folder and the submission."""
    started = time.perf_counter()
    SETTINGS.resolve(options.setting)       # unknown, or a plug-in that fails to load: one message
    QUESTION_STYLES.resolve(options.question.style)
    if options.concurrency < 1:
        raise UserError("--concurrency must be at least 1")
    if options.limit is not None and options.limit < 1:
        raise UserError(f"--limit {options.limit}: must be at least 1")
    if options.sample is not None and options.sample < 1:
        raise UserError(f"--sample {options.sample}: must be at least 1")
    if options.sample is not None and options.limit is not None:
        raise UserError("--sample and --limit both choose the queries: give one of them")
    check_location(options.out, inputs=[options.dataset, options.captions])
    setting = SETTINGS[options.setting]
    if options.retriever and setting.retrieval != "search":
        raise UserError(f"--retriever replaces the search over the KG: setting {options.setting} has none "
                        f"(use one of {', '.join(n for n, s in SETTINGS.items() if s.searches)})")
    retriever = load_retriever(options.retriever) if options.retriever else None
    if setting.retrieval == "search" and is_spec(options.search.order):
        strategy(options.search.order)      # a plug-in's import fails before any work
    graph = load_graph(options.dataset)
    queries = load_queries(options.dataset, with_images=setting.query_media)
    fingerprint = dataset_fingerprint(options.dataset, graph, queries)
    if options.limit is not None:
        queries = queries[: options.limit]
    if options.sample is not None:
        queries = stratified_sample(queries, options.sample, options.seed)
    media = MediaStore(options.dataset, queries) if (setting.query_media or setting.needs_kg_media) else None
    if media is not None:
        check_media(options.setting, str(options.dataset), queries, media)
    captions = load_captions(options.captions, graph) if options.captions else None
    prompts = prompts_from(options.prompts)
    routes = agent_routes(options)
    backends, caches = make_backends(options)
    try:
        check_prompts(prompts, setting, backends)
        config = options.resolved(
            model_name="offline" if options.model == "offline" else options.model_name,
            base_url=(options.base_url or DEFAULT_BASE_URL) if options.model == "openai" else None,
            dataset=str(options.dataset), dataset_fingerprint=fingerprint, prompt_set=prompts.identity(),
            agent_models={agent: model for agent, (model, _, _) in sorted(routes.items())},
            agent_base_urls={agent: url or DEFAULT_BASE_URL for agent, (model, url, _) in sorted(routes.items())
                             if model != "offline"},
            captions_sha256=hashlib.sha256(options.captions.read_bytes()).hexdigest() if options.captions else None,
        )
        manifest = {
            "kind": RUN_KIND, "config": config.as_dict(), "config_hash": config.config_hash(), "created": _now(),
            "mhmmkg_version": __version__, "backend": backends.default.fingerprint,
            "agent_backends": {agent: b.fingerprint for agent, b in sorted(backends.per_agent.items())},
            "setting_summary": setting.summary,
            "selection": selection(options, queries),
        }
        folder = RunFolder(options.out)
        finished = folder.open(manifest, options.resume)
        try:
            outcome = _drive(options, config, folder, finished, graph, queries, media, captions, backends, prompts,
                             started, retriever)
        except ChatError as exc:
            raise ChatError(f"{exc}\nThe finished queries are kept in {folder.path}; "
                            f"run again with --resume to continue.") from None
        except KeyboardInterrupt:
            print(f"mhmmkg run: interrupted; the finished queries are kept in {folder.path} "
                  f"(run again with --resume to continue)", file=sys.stderr)
            raise
        finally:
            folder.close()
    finally:
        for cache in caches:
            cache.close()
    return outcome


def _drive(options, config, folder, finished, graph, queries, media, captions, backends, prompts,
           started, retriever=None) -> RunOutcome:
    setting = SETTINGS[options.setting]

    def record(call: CallRecord) -> None:
        folder.calls.append({**call.as_dict(), "time": round(time.time(), 3)})

    def agents_for(query_id: str | None) -> Agents:
        return Agents(backends, query_id=query_id, temperature=options.temperature, max_tokens=options.max_tokens,
                      seed=options.seed, on_call=record, prompts=prompts)

    if setting.captions == "offline":
        if captions is None:
            captions = caption_kg(graph, media, agents_for, options)
            write_json(folder.path / CAPTIONS, {"model": backends("captioner").fingerprint, "captions": captions})
    ctx = Context(graph=graph, setting=setting, search=options.search, question=options.question, media=media,
                  captions=captions or {}, seed=options.seed, topic_shortlist=options.topic_shortlist,
                  retriever=retriever, retriever_spec=options.retriever, replies=options.replies)
    pending = [q for q in queries if q.id not in finished]
    bar = _progress_bar(len(queries), len(finished), options.quiet, "queries")

    def one(query: Query) -> dict:
        return solve(query, agents_for(query.id), ctx)

    try:
        for line in _parallel(one, pending, options.concurrency):
            folder.results.append(line)
            finished[line["query_id"]] = line
            bar.update(1)
    finally:
        bar.close()
    lines = [finished[q.id] for q in queries]
    calls, _ = read_jsonl(folder.path / CALLS)
    summary = summarise(lines, time.perf_counter() - started,
                        {"setting": options.setting, "model": config.model_name, "concurrency": options.concurrency},
                        calls)
    submission = folder.path / SUBMISSION
    write_submission(submission, lines, {
        "model": config.model_name, "setting": options.setting, "created": _now(), "mhmmkg_version": __version__,
        "dataset_fingerprint": config.dataset_fingerprint, "backend": backends.default.fingerprint,
        "agent_models": config.agent_models, "config_hash": config.config_hash(), "prompt_set": config.prompt_set,
        "search": config.as_dict()["search"], "question": config.as_dict()["question"],
        "protocol": config.protocol, "queries": len(lines),
    }, durable=True)
    write_json(folder.path / SUMMARY, summary)
    return RunOutcome(folder.path, submission, summary, len(pending))


def _progress_bar(total: int, done: int, quiet: bool, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, initial=done, disable=quiet, unit=unit, desc="mhmmkg run", leave=False)


_WORKER_DONE = object()


def _parallel(function, items: list, concurrency: int):
    """Yield ``function(item)`` as each finishes, on at most ``concurrency`` threads.

    Each worker takes the next item when it is free, so waiting for the next result costs the
    same whether a run has ten queries or ten thousand. The first failure stops the run: nothing
    new starts, and the error is raised once the calls in flight are done (their finished
    results are still yielded, so nothing done is lost). The workers are daemon threads and the
    caller waits in short slices: Ctrl-C stops the run at once even when a call never returns
    (a retriever that sleeps forever), and such a call cannot keep the process alive.
    """
    if not items:
        return
    todo = iter(items)
    taking = threading.Lock()
    stop = threading.Event()
    finished: queue.Queue = queue.Queue()

    def work() -> None:
        while not stop.is_set():
            with taking:
                item = next(todo, _WORKER_DONE)
            if item is _WORKER_DONE:
                break
            try:
                finished.put((True, function(item)))
            except BaseException as exc:        # handed to the caller's thread, which raises it
                stop.set()
                finished.put((False, exc))
        finished.put(_WORKER_DONE)

    workers = [threading.Thread(target=work, name=f"mhmmkg-query-{i}", daemon=True)
               for i in range(max(1, min(concurrency, len(items))))]
    for worker in workers:
        worker.start()
    running, failure = len(workers), None
    try:
        while running:
            try:
                entry = finished.get(timeout=0.25)
            except queue.Empty:
                continue
            if entry is _WORKER_DONE:
                running -= 1
            elif entry[0]:
                yield entry[1]
            elif failure is None:
                failure = entry[1]
                stop.set()
        if failure is not None:
            raise failure
    finally:
        stop.set()


def caption_kg(graph: KnowledgeGraph, media: MediaStore, agents_for, options: RunOptions) -> dict[str, str]:
    """Model captions of every entity with media, blind to the queries (unaided_offline)."""
    ids = sorted(media.entities_with_media())
    bar = _progress_bar(len(ids), 0, options.quiet, "captions")
    captions: dict[str, str] = {}

    def one(entity_id: str) -> tuple[str, str | None]:
        return entity_id, caption_entity(entity_id, agents_for(None), graph, media)

    try:
        for entity_id, caption in _parallel(one, ids, options.concurrency):
            if caption:
                captions[entity_id] = caption
            bar.update(1)
    finally:
        bar.close()
    return dict(sorted(captions.items()))
