"""Which provider answers a judge model, and how it is reached: google-adk 2.13's rules.

ADK resolves `judge_model` through its model registry (google/adk/models/__init__.py and
registry.py): a `Class:model` prefix names the class; then, in order, `gemini-*`, `gemma-4*`,
`model-optimizer-*` and Vertex `projects/...` names are Gemini, other `gemma-*` Gemma (the
Gemini API), `claude-*` Claude on Vertex AI, `gpt-*` and `o<N>-*` OpenAI (the openai package),
and the `provider/model` prefixes in LiteLlm's list (openai, azure, azure_ai, groq, anthropic,
bedrock, ollama, ollama_chat, together_ai, vertex_ai, mistral, deepseek, fireworks_ai, cohere,
databricks, ai21) LiteLLM; any other `provider/model` LiteLLM knows goes to LiteLLM too.

We resolve the same names to the same providers, reading the environment variables ADK and
LiteLLM read. The difference: where the provider speaks OpenAI's chat-completions protocol, we
call it over plain HTTP (judge/providers/openai.py) instead of through LiteLLM or the openai
package; the rest (anthropic, bedrock, vertex_ai, cohere, ai21, claude-* on Vertex) go through
LiteLLM, the optional extra (`pip install 'agenteval-ci[litellm]'`). The providers, their
endpoints and key variables are rows of core/providers.py, the table init reads too. agenteval.yaml's
`judge.providers` changes any provider's endpoint or key variable, or adds a prefix of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from ..core.providers import BY_PREFIX, PROVIDERS, Provider, adk_family
from ..schema.settings import JudgeProviderSettings, JudgeSettings
from .access import DEFAULT_VERTEX_LOCATION

# ADK's `Class:model` override (LLMRegistry._parse_model), by the class's name folded as ADK folds it.
CLASS_PREFIXES = {"gemini": "gemini", "gemma": "gemini", "openai": "openai", "openaillm": "openai",
                  "claude": "claude", "anthropic": "anthropic", "anthropicllm": "anthropic", "lite": "litellm", "litellm": "litellm"}
ADK_CLASSES = frozenset(p.family for p in PROVIDERS if p.family)  # the names family() gives ADK's own classes
AZURE_API_VERSION = "2024-10-21"  # Azure OpenAI's current GA data-plane version
UNKNOWN_PREFIX = Provider("a provider of agenteval.yaml's own", (), protocol="openai", needs_key=False)


@dataclass(frozen=True)
class Route:
    """How to ask one judge model: the provider module, the endpoint's name, the model as the
    API takes it, where, and with which key. `problem`: why it cannot be asked at all."""

    protocol: str  # the module in providers/ that speaks it: openai (and Azure), gemini, litellm
    provider: str  # the endpoint's name, as the fingerprint and the report show it
    model: str  # as sent to the API
    base_url: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    api_version: Optional[str] = None
    problem: Optional[str] = None

    @property
    def key(self) -> str:
        """Requests to the same endpoint share one client per event loop."""
        return f"{self.protocol}|{self.provider}|{self.base_url}"

    @property
    def cache_model(self) -> str:
        """The model as the judge cache keys it: Gemini's keys stay those of earlier releases;
        elsewhere the endpoint is part of the key, so a local server named like a hosted model
        never answers from the hosted model's cache."""
        return self.model if self.protocol == "gemini" else f"{self.provider}/{self.model}@{self.base_url}"


class Unresolved(ValueError):
    """A judge model no provider answers to, and why."""


def split_provider(model: str) -> tuple[Optional[str], str]:
    """`openai/gpt-4o` -> ("openai", "gpt-4o"); `gemini-2.5-flash` -> (None, ...)."""
    prefix, slash, rest = model.partition("/")
    return (prefix, rest) if slash and prefix and not model.startswith("projects/") else (None, model)


def _class_override(model: str) -> tuple[Optional[str], str]:
    """ADK's `Class:model` (LLMRegistry._parse_model), when the prefix names a class it knows."""
    prefix, colon, rest = model.partition(":")
    if not colon or "/" in prefix:
        return None, model
    name = prefix.lower()
    return CLASS_PREFIXES.get(name, CLASS_PREFIXES.get(name.removesuffix("llm"))), rest


def _known_prefix(prefix: str) -> bool:
    """A provider prefix of the table, unless LiteLLM serves it under the name of one of ADK's
    own classes (`gemini/...` is LiteLLM's Gemini API route, not ADK's Gemini class)."""
    row = BY_PREFIX.get(prefix)
    return row is not None and not (row.protocol == "litellm" and prefix in ADK_CLASSES)


def family(model: str, custom: Mapping[str, JudgeProviderSettings]) -> tuple[str, str]:
    """(family, model without its prefix) as ADK's registry resolves `model`: gemini, openai,
    claude (on Vertex AI), a provider prefix (openai, azure, ...) or litellm."""
    forced, rest = _class_override(model)
    if forced == "litellm":
        prefix, name = split_provider(rest)
        return (prefix or "litellm"), name
    if forced is not None:
        return forced, rest
    prefix, name = split_provider(model)
    if prefix is not None and (prefix in custom or _known_prefix(prefix)):
        return prefix, name
    adk_class = adk_family(model)
    if adk_class is not None:
        return adk_class, model
    if prefix is not None:
        return "litellm", model  # any other provider LiteLLM knows: it says so when asked
    raise Unresolved(
        f"judge model {model!r} not found: google-adk 2.13 resolves gemini-*, gemma-*, claude-*, gpt-* and o<N>-* "
        "names, and provider/model names such as openai/gpt-4o (docs/judge.md, 'Providers')"
    )


def _first(env: Mapping[str, str], names: tuple[str, ...]) -> Optional[str]:
    return next((env[name] for name in names if env.get(name)), None)


def resolve(model: str, settings: JudgeSettings, env: Mapping[str, str]) -> Route:
    """The route of `model` under agenteval.yaml's `judge:` block and the environment snapshot
    made before the agent was imported. Gemini and LiteLLM routes carry no key: their modules
    read theirs (access.py, LiteLLM's own variables)."""
    name, bare = family(model, settings.providers)
    if name == "gemini":
        return Route("gemini", "gemini", bare)
    if name == "claude":  # ADK's Claude: Anthropic's models on Vertex AI
        return Route("litellm", "vertex_ai", f"vertex_ai/{bare}")
    if name == "litellm":
        return Route("litellm", split_provider(bare)[0] or "litellm", bare)
    own = settings.providers.get(name, JudgeProviderSettings())
    known = BY_PREFIX.get(name, UNKNOWN_PREFIX)
    protocol = own.protocol or known.protocol
    if protocol == "gemini":
        return Route("gemini", name, bare, own.base_url)
    if protocol == "litellm":
        return Route("litellm", name, model if name in BY_PREFIX else f"{name}/{bare}")
    if protocol == "vertex_eval":
        return _managed_route(name, bare, own, env)
    return _http_route(name, bare, protocol, own, known, env)


def _http_route(name: str, model: str, protocol: str, own: JudgeProviderSettings, known: Provider, env: Mapping[str, str]) -> Route:
    from_variable = _first(env, known.url_variables)
    if from_variable and known.path and not from_variable.rstrip("/").endswith(known.path):
        from_variable = from_variable.rstrip("/") + known.path
    base_url = own.base_url or from_variable or known.base_url
    key_variables = (own.api_key_env,) if own.api_key_env else known.key_variables
    api_key = _first(env, key_variables)
    api_version = own.api_version or env.get("AZURE_API_VERSION") or (AZURE_API_VERSION if protocol == "azure" else None)
    problem = None
    if not base_url:
        variables = " or ".join(known.url_variables) or "none"
        problem = f"no endpoint for judge provider {name!r}: set judge.providers.{name}.base_url in agenteval.yaml (or {variables})"
    elif api_key is None and (known.needs_key or own.api_key_env):
        problem = f"no judge credentials for {name}/{model}: set {' or '.join(key_variables)}"
    return Route(protocol, name, model, base_url.rstrip("/") if base_url else None, api_key, api_version if protocol == "azure" else None, problem)


def _managed_route(name: str, spec: str, own: JudgeProviderSettings, env: Mapping[str, str]) -> Route:
    """The Gen AI evaluation service of the project and location the environment names (its
    URL ends at the location: the provider adds `:evaluateInstances`). Without a project the
    managed metrics cannot be asked; the credentials themselves are application default
    credentials, read when the first call is made."""
    project = env.get("GOOGLE_CLOUD_PROJECT")
    location = env.get("GOOGLE_CLOUD_LOCATION") or DEFAULT_VERTEX_LOCATION
    root = (own.base_url or env.get("GOOGLE_VERTEX_BASE_URL") or f"https://{location}-aiplatform.googleapis.com").rstrip("/")
    problem = None
    if not project:
        problem = (f"no Vertex AI project for the managed metric {spec} (the Gen AI evaluation service): set GOOGLE_CLOUD_PROJECT "
                   "(and GOOGLE_CLOUD_LOCATION) with application default credentials (docs/metrics.md, 'Managed metrics')")
    return Route("vertex_eval", name, spec, f"{root}/v1beta1/projects/{project}/locations/{location}", problem=problem)
