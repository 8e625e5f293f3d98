"""The LiteLLM provider (the optional extra, `pip install 'agenteval-ci[litellm]'`): the judge
models google-adk 2.13 sends through LiteLLM whose protocol is not OpenAI's chat completions:
`anthropic/...`, `bedrock/...`, `vertex_ai/...` (and `claude-*`, Claude on Vertex AI),
`cohere/...`, `ai21/...`, and any other `provider/model` LiteLLM knows.

One `litellm.acompletion` call per request, LiteLLM's own retries off; errors as values, as
the other providers give them. Keys: the same variables LiteLLM reads, taken from the snapshot
made before the agent was imported where LiteLLM takes them as arguments (a key, a base URL,
the Vertex project and location); cloud credentials (AWS, Google's application default) are
found by LiteLLM as under `adk eval`. In the action, the workflow's `install` may bring LiteLLM
(google-adk[extensions] does): the judge imports it on its first call, after the install.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

from ...core.judging import MediaPart
from ..access import JudgeAccess
from ..outcomes import CallFailed, CallOutcome, Generated
from ..routes import Route
from .openai import MAPPED, PASSED, RETRYABLE, content_of, generated_of, retry_after_of

MAX_CANDIDATES = 1  # `n` is OpenAI's; most of LiteLLM's other providers refuse it
MISSING = "the judge model {model!r} needs LiteLLM, an optional extra: pip install 'agenteval-ci[litellm]' (in the action: add litellm to `install`)"
# Per LiteLLM provider: (argument, variables) pairs read from the snapshot when set.
ARGUMENTS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "anthropic": (("api_key", ("ANTHROPIC_API_KEY",)), ("api_base", ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"))),
    "cohere": (("api_key", ("COHERE_API_KEY", "CO_API_KEY")),),
    "ai21": (("api_key", ("AI21_API_KEY",)),),
    "vertex_ai": (("vertex_project", ("VERTEXAI_PROJECT", "GOOGLE_CLOUD_PROJECT")), ("vertex_location", ("VERTEXAI_LOCATION", "GOOGLE_CLOUD_LOCATION"))),
    "bedrock": (("aws_region_name", ("AWS_REGION_NAME", "AWS_REGION")),),
}


@dataclass(frozen=True)
class Client:
    module: Any  # litellm
    timeout_seconds: float
    arguments: dict[str, str] = field(repr=False)


def arguments_for(route: Route, env: Mapping[str, str]) -> dict[str, str]:
    found = {}
    for argument, names in ARGUMENTS.get(route.provider, ()):
        value = next((env[name] for name in names if env.get(name)), None)
        if value:
            found[argument] = value
    if route.base_url:
        found["api_base"] = route.base_url
    return found


def build_client(route: Route, access: JudgeAccess, timeout_seconds: float) -> Union[Client, CallFailed]:
    # LiteLLM fetches its price table from the network when imported: the copy it ships will do
    # (our costs come from judge/costs.py), and a judge talks to its endpoint only.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        module: Any = importlib.import_module("litellm")
    except ImportError:
        return CallFailed(MISSING.format(model=route.model), credentials=True)  # every later call would fail too
    module.suppress_debug_info = True  # its banners on stdout would break `--json -`
    return Client(module, timeout_seconds, arguments_for(route, access.env))


def _params(config: Optional[dict[str, Any]]) -> dict[str, Any]:
    params = {}
    for key, value in (config or {}).items():
        if key in MAPPED:
            params[MAPPED[key]] = value
        elif key in PASSED:
            params[key] = value
    return params


async def generate(
    client: Client, route: Route, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1, media: Sequence[MediaPart] = ()
) -> CallOutcome:
    # One sample per request (MAX_CANDIDATES): `n` is OpenAI's, most of LiteLLM's providers refuse it.
    # Media go as OpenAI-style content parts, which LiteLLM translates for its provider.
    try:
        response = await client.module.acompletion(
            model=route.model, messages=[{"role": "user", "content": content_of(prompt, media)}], timeout=client.timeout_seconds,
            num_retries=0, **_params(config), **client.arguments,
        )
    except Exception as error:  # noqa: BLE001 - LiteLLM maps every provider's errors to its own classes
        return _failure(error)
    return _generated(response)


def _failure(error: Exception) -> CallFailed:
    status = getattr(error, "status_code", None)
    status = status if isinstance(status, int) else None
    name = type(error).__name__
    text = f"{name}: {str(error)[:300]}" if status is None else f"HTTP {status}: {str(error)[:300]}"
    if name in ("AuthenticationError", "PermissionDeniedError") or status in (401, 403):
        return CallFailed(f"judge credentials refused: {text}", status=status, credentials=True)
    if name == "ContentPolicyViolationError":
        return CallFailed(f"the judge's prompt was blocked (content policy): {text}", status=status)
    if name in ("APIConnectionError", "Timeout", "ServiceUnavailableError", "InternalServerError", "RateLimitError"):
        return CallFailed(text, status=status, retry_after=_retry_after(error), retryable=True)
    retryable = status is not None and (status in RETRYABLE or status >= 500)
    return CallFailed(text, status=status, retry_after=_retry_after(error) if retryable else None, retryable=retryable)


def _retry_after(error: Exception) -> Optional[float]:
    """The Retry-After of the answer LiteLLM's error came from (it keeps the headers)."""
    headers = getattr(error, "litellm_response_headers", None) or getattr(getattr(error, "response", None), "headers", None)
    return retry_after_of(headers) if headers is not None and hasattr(headers, "get") else None


def _generated(response: Any) -> Generated:
    """LiteLLM answers in chat-completions' shape whatever the provider: read as OpenAI's reply is."""
    return generated_of(response.model_dump() if hasattr(response, "model_dump") else dict(response))


def close_quietly(client: Client) -> None:
    """LiteLLM keeps its own clients."""
