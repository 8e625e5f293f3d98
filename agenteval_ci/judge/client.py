"""The judge's transport: one generateContent call through google-genai, errors as values.

The only module that imports google.genai. It makes exactly one HTTP attempt per call
(google-genai's own retries are off); `judge.Judge` owns retries, backoff and the deadline.
One call can ask for several candidates (samples) of the same prompt.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from .outcomes import TRUTHY, CallFailed, CallOutcome, Generated


def build_client(env: Mapping[str, str], base_url: Optional[str], timeout_seconds: float) -> genai.Client:
    """A client from `env` (not os.environ, so tests and the Action pass exactly what they mean)."""
    options = genai_types.HttpOptions(
        base_url=base_url or env.get("GOOGLE_GEMINI_BASE_URL") or None,
        timeout=int(timeout_seconds * 1000),
    )
    if env.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in TRUTHY:
        return genai.Client(
            vertexai=True,
            project=env.get("GOOGLE_CLOUD_PROJECT"),
            location=env.get("GOOGLE_CLOUD_LOCATION") or "us-central1",
            http_options=options,
        )
    return genai.Client(api_key=env.get("GOOGLE_API_KEY") or env.get("GEMINI_API_KEY"), http_options=options)


def _config(user_config: Optional[dict[str, Any]], candidates: int) -> genai_types.GenerateContentConfig:
    config = genai_types.GenerateContentConfig.model_validate(user_config or {})
    # A judge passes no tools; automatic function calling only adds per-call warnings.
    config.automatic_function_calling = genai_types.AutomaticFunctionCallingConfig(disable=True)
    # The sample count is ours, whatever the user's config says; one candidate is the default.
    config.candidate_count = candidates if candidates > 1 else None
    return config


def _retry_after(error: genai_errors.APIError) -> Optional[float]:
    headers = getattr(error.response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


async def generate(
    client: genai.Client, model: str, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1
) -> CallOutcome:
    """`candidates` independent samples of `prompt` in one request."""
    try:
        response = await client.aio.models.generate_content(model=model, contents=prompt, config=_config(config, candidates))
    except genai_errors.APIError as error:
        return CallFailed(
            f"HTTP {error.code}: {error.message or error.status or 'error'}",
            status=error.code,
            retry_after=_retry_after(error),
            retryable=error.code == 429 or error.code >= 500,
        )
    except (OSError, ConnectionError) as error:
        return CallFailed(f"connection failed: {error}", retryable=True)
    except Exception as error:  # noqa: BLE001 - a body google-genai cannot read, httpx transport errors
        if type(error).__module__.startswith(("httpx", "httpcore")):
            return CallFailed(f"transport error {type(error).__name__}: {error}", retryable=True)
        return CallFailed(f"unreadable response body ({type(error).__name__}: {error})")
    ordered = sorted(response.candidates or [], key=lambda candidate: candidate.index or 0)
    return Generated(tuple(_text_of(candidate) for candidate in ordered), *_token_usage(response))


def _token_usage(response: genai_types.GenerateContentResponse) -> tuple[int, int]:
    usage = response.usage_metadata
    if not usage:
        return 0, 0
    return usage.prompt_token_count or 0, (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)


def _text_of(candidate: genai_types.Candidate) -> Union[str, CallFailed]:
    """The candidate's answer (its text parts, thoughts left out), or why there is none.
    `response.text` would read the first candidate only."""
    parts = (candidate.content.parts if candidate.content else None) or []
    text = "".join(part.text for part in parts if isinstance(part.text, str) and not part.thought)
    if text:
        return text
    reason = getattr(candidate.finish_reason, "value", candidate.finish_reason)
    return CallFailed("the judge returned no text" + (f" (finish reason {reason})" if reason and reason != "STOP" else ""))


def close_quietly(client: genai.Client) -> None:
    try:
        client.close()
    except Exception:  # noqa: BLE001 - closing is best effort
        pass
