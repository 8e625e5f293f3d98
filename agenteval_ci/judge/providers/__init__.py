"""Judge providers: each turns one judge request (a route, a generation config, a prompt and a
number of samples) into the samples or why there are none (`outcomes.Generated` /
`outcomes.CallFailed`), in exactly one attempt. Batching, the cache, retries, rate limits, cost
and the all-or-nothing verdict rule live above them, in the Judge (judge/_judge.py); which
provider answers a judge model is routes.py's question.

A new provider is one module here and one row of PROVIDERS. A provider's module loads on the
Judge's first real call, not when a command merely might judge.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional, Protocol, Sequence

from ...core.judging import MediaPart
from ..access import JudgeAccess
from ..outcomes import CallFailed, CallOutcome
from ..routes import Route

PROVIDERS = {
    "gemini": "agenteval_ci.judge.providers.gemini",  # the Gemini API or Vertex AI, through google-genai
    "openai": "agenteval_ci.judge.providers.openai",  # any OpenAI-compatible chat-completions endpoint, over HTTP
    "azure": "agenteval_ci.judge.providers.openai",  # Azure OpenAI: the same protocol, its own URL and key header
    "litellm": "agenteval_ci.judge.providers.litellm",  # the rest of ADK's LiteLLM prefixes (the optional extra)
    "vertex_eval": "agenteval_ci.judge.providers.vertex_eval",  # the Gen AI evaluation service: agents-cli's managed metrics
}


class Provider(Protocol):
    MAX_CANDIDATES: int  # samples one request may ask for

    def build_client(self, route: Route, access: JudgeAccess, timeout_seconds: float) -> Any | CallFailed:
        """A client for `route` (and, for Gemini, exactly `access`), or why there is none."""
        ...

    async def generate(
        self, client: Any, route: Route, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1, media: Sequence[MediaPart] = ()
    ) -> CallOutcome:
        """`candidates` independent samples of `prompt` in one request, with `media` after it (judge/media.py chose them)."""
        ...

    def close_quietly(self, client: Any) -> None: ...


def provider(protocol: str) -> Provider:
    module: Provider = importlib.import_module(PROVIDERS[protocol])  # a module is its functions
    return module
