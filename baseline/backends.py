"""The model behind each agent of a run: the registry of backends (``--model``), the endpoint and
key an agent gets (``--agent-model``, ``--agent-base-url``, ``--agent-api-key-env``), the reply cache."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from mhmmkg.llm.chat import CachedChat, ChatBackend, endpoint, endpoint_key
from mhmmkg.errors import UserError
from mhmmkg.registry import Registry, guarded, is_spec

from .agents import AgentBackends
from .offline import OfflineChat

if TYPE_CHECKING:
    from .runner import RunOptions


def default_cache_path() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "mhmmkg" / "chat.sqlite"


#: the agents of a run, and the one group name --agent-model also takes
AGENTS = ("perceiver", "captioner", "topic", "expansion", "validation", "validation_online", "summarizer", "direct")
#: groups --agent-model also takes ("validation" covers both validation agents, as the paper's Table 14
#: replaces one validation agent; "validation_online" alone stays an agent of its own)
AGENT_GROUPS = {"searcher": ("topic", "expansion", "validation", "validation_online"),
                "validation": ("validation", "validation_online")}


def _api_key(variable: str | None, flag: str) -> str | None:
    """The key the user named for the endpoint (``mhmmkg.chat.endpoint_key``; a run reads no other)."""
    return endpoint_key(variable, flag)


def _endpoint(options: RunOptions, model_name: str, base_url: str | None, api_key: str | None) -> ChatBackend:
    if model_name == "offline":
        return OfflineChat()
    return endpoint(base_url, model_name, api_key=api_key, cache=None if options.no_cache else
                    options.cache or default_cache_path(), timeout=options.timeout, max_retries=options.max_retries)


def make_backend(options: RunOptions) -> tuple[ChatBackend, CachedChat | None]:
    """The run's default backend (and its cache, to close)."""
    if not options.timeout > 0:
        raise UserError(f"--timeout {options.timeout:g}: must be more than 0 seconds")
    if options.max_retries < 0:
        raise UserError(f"--max-retries {options.max_retries}: must be 0 or more")
    if options.model not in BACKENDS and not is_spec(options.model):
        raise UserError(f"unknown model kind {options.model!r} (use offline or openai)")
    factory = BACKENDS[options.model] if options.model in BACKENDS else \
        guarded(BACKENDS.resolve(options.model), f"--model {options.model}", "backend")
    backend = factory(options)
    return backend, backend if isinstance(backend, CachedChat) else None


def _openai_backend(options: RunOptions) -> ChatBackend:
    if not options.model_name:
        raise UserError("--model openai needs --model-name (the model the endpoint serves)")
    return _endpoint(options, options.model_name, options.base_url, _api_key(options.api_key_env, "--api-key-env"))


#: --model: name -> factory(RunOptions) -> ChatBackend; ``--model MODULE:FUNCTION`` names a factory of one's own
BACKENDS = Registry("backend", "--model", {"offline": lambda options: OfflineChat(), "openai": _openai_backend},
                    plugins=True)


def agent_routes(options: RunOptions) -> dict[str, tuple[str, str | None, str | None]]:
    """agent -> (model name, base URL, key variable) for every agent given its own model or endpoint.

    An agent with its own endpoint gets only its own key (``--agent-api-key-env``), never the run's:
    a key goes only to the host it was given for. Without its own endpoint, the agent uses the
    run's endpoint, and with it the run's key.
    """
    named = dict.fromkeys([*options.agent_models, *options.agent_base_urls, *options.agent_api_key_envs])
    routes: dict[str, tuple[str, str | None, str | None]] = {}
    # larger groups first, single agents last: the narrower name overrides the wider one
    for name in sorted(named, key=lambda n: -len(AGENT_GROUPS.get(n, (n,)))):
        for agent in AGENT_GROUPS.get(name, (name,)):
            if agent not in AGENTS:
                raise UserError(f"--agent-model/--agent-base-url: unknown agent {name!r} "
                                f"(choose from {', '.join(AGENTS + tuple(AGENT_GROUPS))})")
            model = options.agent_models.get(name) or (options.model_name if options.model == "openai" else None)
            if not model:
                raise UserError(f"agent {name}: give its model with --agent-model {name}=NAME "
                                f"(the run's --model is offline)")
            own_url = options.agent_base_urls.get(name)
            if own_url and model == "offline":
                raise UserError(f"agent {name}: the offline model takes no --agent-base-url")
            key_env = options.agent_api_key_envs.get(name)
            if not own_url and not key_env and options.model == "openai":
                key_env = options.api_key_env
            routes[agent] = (model, own_url or options.base_url, key_env)
    return routes


def make_backends(options: RunOptions) -> tuple[AgentBackends, list[CachedChat]]:
    """Every agent's backend: the run's, or the one its --agent-* options name."""
    default, cache = make_backend(options)
    per_agent = {agent: _endpoint(options, model, url, _api_key(key_env, f"agent {agent}: --agent-api-key-env"))
                 for agent, (model, url, key_env) in agent_routes(options).items()}
    caches = [b for b in [cache, *per_agent.values()] if isinstance(b, CachedChat)]
    return AgentBackends(default, per_agent), caches
