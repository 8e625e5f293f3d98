"""Judge providers: each turns one judge request (a model, a generation config, a prompt and a
number of samples) into the samples or why there are none (`outcomes.Generated` /
`outcomes.CallFailed`), in exactly one attempt. Batching, the cache, retries, rate limits, cost
and the all-or-nothing verdict rule live above them, in the Judge (judge/_judge.py).

A new provider is one module here and one row of PROVIDERS. A provider's module loads on the
Judge's first real call, not when a command merely might judge.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional, Protocol

from ..access import JudgeAccess
from ..outcomes import CallFailed, CallOutcome

PROVIDERS = {
    "gemini": "agenteval_ci.judge.providers.gemini",  # the Gemini API or Vertex AI, through google-genai
}


class Provider(Protocol):
    def build_client(self, access: JudgeAccess, timeout_seconds: float) -> Any | CallFailed:
        """A client for exactly `access`, or why there is none (a credentials file that fails)."""
        ...

    async def generate(self, client: Any, model: str, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1) -> CallOutcome:
        """`candidates` independent samples of `prompt` in one request."""
        ...

    def close_quietly(self, client: Any) -> None: ...


def provider(name: str = "gemini") -> Provider:
    module: Provider = importlib.import_module(PROVIDERS[name])  # a module is its functions
    return module
