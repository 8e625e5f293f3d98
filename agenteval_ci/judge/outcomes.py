"""What one judge call comes back as, and whether credentials exist: no google.genai here,
so importing the judge (and every command that might judge) stays cheap until a call is made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Union

NO_CREDENTIALS = (
    "no judge credentials: set GOOGLE_API_KEY or GEMINI_API_KEY "
    "(or Vertex: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)"
)
TRUTHY = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class CallFailed:
    """A failed attempt: `status` is the HTTP status (None for transport errors or bad bodies)."""

    message: str
    status: Optional[int] = None
    retry_after: Optional[float] = None
    retryable: bool = False


@dataclass(frozen=True)
class Generated:
    """An answered request: each candidate's text (or why it has none) in candidate order, and
    the request's usage: the prompt is billed once, the candidates' output tokens add up.
    The model may return fewer candidates than asked for."""

    candidates: tuple[Union[str, CallFailed], ...]
    tokens_in: int
    tokens_out: int


CallOutcome = Union[Generated, CallFailed]


def credentials_problem(env: Mapping[str, str]) -> Optional[str]:
    if env.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in TRUTHY:
        return None if env.get("GOOGLE_CLOUD_PROJECT") else NO_CREDENTIALS
    return None if env.get("GOOGLE_API_KEY") or env.get("GEMINI_API_KEY") else NO_CREDENTIALS
