"""The Gemini provider (the Gemini API or Vertex AI): one generateContent call, errors as values.

The only module that imports google.genai. It makes exactly one HTTP attempt per call
(google-genai's own retries are off); `judge.Judge` owns retries, backoff and the deadline.
One call can ask for several candidates (samples) of the same prompt. Every candidate comes
back as its text or as a `BadReply` saying why it has none a metric could read: cut short,
blocked by a safety filter, empty.
"""

from __future__ import annotations

import asyncio
import warnings
from dataclasses import replace
from typing import Any, Optional, Sequence, Union

from google import genai
from google.auth import exceptions as auth_errors
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from ...core.judging import MediaPart
from ..access import JudgeAccess
from ..media import label
from ..outcomes import BadReply, CallFailed, CallOutcome, FinishReasons, Generated
from ..routes import Route

MAX_CANDIDATES = 8  # Gemini's limit on candidate_count
CLOUD_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
GEMINI_API_URL = "https://generativelanguage.googleapis.com/"
# Finish reasons of a whole reply; any other (or none) marks a candidate that did not finish.
FINISHED = {None, "STOP", "FINISH_REASON_UNSPECIFIED"}
CUT_SHORT = "MAX_TOKENS"
# A content filter stopped the reply: the same prompt would be stopped again (not redrawn).
BLOCKED = {"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT"}
REASONS = FinishReasons(BLOCKED, CUT_SHORT, FINISHED)
ADC_HINT = (
    "Vertex AI (GOOGLE_GENAI_USE_VERTEXAI) needs application default credentials: set GOOGLE_APPLICATION_CREDENTIALS "
    "to a service account key file or run `gcloud auth application-default login` (in Actions: "
    "google-github-actions/auth), or judge through the Gemini API with GOOGLE_API_KEY"
)


def build_client(route: Route, access: JudgeAccess, timeout_seconds: float) -> Union[genai.Client, CallFailed]:
    """A client for exactly `access`: every setting explicit, so google-genai reads nothing
    from os.environ (which the agent may have changed since `access` was read). A provider of
    agenteval.yaml's with `protocol: gemini` brings its own base URL."""
    if route.base_url:
        access = replace(access, base_url=route.base_url)
    # One attempt: retries are the Judge's. Saying so explicitly also stops google-genai's hidden
    # retry of a dropped connection under aiohttp (after sleeping 1-10 s) when no retry options are set.
    options = genai_types.HttpOptions(base_url=access.base_url, timeout=int(timeout_seconds * 1000),
                                      retry_options=genai_types.HttpRetryOptions(attempts=1))
    if not access.vertexai:
        options.base_url = access.base_url or GEMINI_API_URL
        return genai.Client(vertexai=False, api_key=access.api_key, http_options=options)
    credentials = None
    if access.credentials_file:
        try:
            import google.auth

            with warnings.catch_warnings():  # as google.auth.default() reads the same variable's file
                warnings.simplefilter("ignore", DeprecationWarning)
                credentials, _ = google.auth.load_credentials_from_file(access.credentials_file, scopes=[CLOUD_SCOPE])  # type: ignore[no-untyped-call]
        except auth_errors.GoogleAuthError as error:
            return _credentials_failed(error)
    return genai.Client(vertexai=True, project=access.project, location=access.location, credentials=credentials, http_options=options)


def _credentials_failed(error: Exception) -> CallFailed:
    return CallFailed(f"judge credentials failed: {ADC_HINT} ({type(error).__name__}: {error})", credentials=True)


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


def _api_failure(error: genai_errors.APIError) -> CallFailed:
    message = f"HTTP {error.code}: {error.message or error.status or 'error'}"
    refused = error.code in (401, 403) or (error.code == 400 and "api key" in message.lower())
    if refused:  # every later call would be refused too
        return CallFailed(f"judge credentials refused: {message}", status=error.code, credentials=True)
    return CallFailed(message, status=error.code, retry_after=_retry_after(error), retryable=error.code == 429 or error.code >= 500)


def contents_of(prompt: str, media: Sequence[MediaPart]) -> Union[str, genai_types.Content]:
    """The prompt alone (as before media could be sent: the same request), or the prompt and then
    each image or file after a line naming it: inline data as bytes, file data by URI."""
    if not media:
        return prompt
    parts = [genai_types.Part(text=prompt)]
    for number, part in enumerate(media, start=1):
        parts.append(genai_types.Part(text=label(part, number)))
        if part.uri is not None:
            parts.append(genai_types.Part(file_data=genai_types.FileData(file_uri=part.uri, mime_type=part.mime_type)))
        else:
            parts.append(genai_types.Part(inline_data=genai_types.Blob(data=part.data, mime_type=part.mime_type)))
    return genai_types.Content(role="user", parts=parts)


async def generate(
    client: genai.Client, route: Route, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1, media: Sequence[MediaPart] = ()
) -> CallOutcome:
    """`candidates` independent samples of `prompt` (with `media`) in one request."""
    try:
        response = await client.aio.models.generate_content(model=route.model, contents=contents_of(prompt, media),
                                                            config=_config(config, candidates))
    except genai_errors.APIError as error:
        return _api_failure(error)
    except auth_errors.TransportError as error:  # reaching the token endpoint failed: transient
        return CallFailed(f"judge credentials could not be fetched ({type(error).__name__}: {error})", retryable=True)
    except auth_errors.GoogleAuthError as error:
        return _credentials_failed(error)
    except asyncio.TimeoutError:
        raise  # the Judge words a timeout the same for every provider and transport
    except (OSError, ConnectionError) as error:
        return CallFailed(f"connection failed: {error}", retryable=True)
    except ValueError as error:  # a body cut off or garbled in transit (JSON, or a shape genai cannot read)
        return CallFailed(f"unreadable response body ({type(error).__name__}: {error})", retryable=True)
    except Exception as error:  # noqa: BLE001 - transport errors, anything else genai raises
        # google-genai sends async requests through aiohttp when it is installed (google-adk's
        # extensions and LiteLLM bring it), else through httpx: either's errors are transport errors.
        if type(error).__module__.startswith(("httpx", "httpcore", "aiohttp")):
            return CallFailed(f"transport error {type(error).__name__}: {error}", retryable=True)
        return CallFailed(f"the judge call raised {type(error).__name__}: {error}")
    ordered = sorted(response.candidates or [], key=lambda candidate: candidate.index or 0)
    return Generated(tuple(_text_of(candidate) for candidate in ordered), *_token_usage(response), blocked=_prompt_blocked(response),
                     model_version=response.model_version or None)


def _token_usage(response: genai_types.GenerateContentResponse) -> tuple[int, int]:
    usage = response.usage_metadata
    if not usage:
        return 0, 0
    return usage.prompt_token_count or 0, (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)


def _name(value: Any) -> Optional[str]:
    return getattr(value, "value", value) if value is not None else None


def _prompt_blocked(response: genai_types.GenerateContentResponse) -> Optional[str]:
    feedback = response.prompt_feedback
    reason = _name(feedback.block_reason) if feedback else None
    return f"the judge's prompt was blocked (block reason {reason})" if reason else None


def _text_of(candidate: genai_types.Candidate) -> Union[str, BadReply]:
    """The candidate's answer (its text parts, thoughts left out) when the model finished it,
    or why it is no answer. `response.text` would read the first candidate only."""
    parts = (candidate.content.parts if candidate.content else None) or []
    text = "".join(part.text for part in parts if isinstance(part.text, str) and not part.thought)
    return REASONS.candidate(text, _name(candidate.finish_reason))


def close_quietly(client: genai.Client) -> None:
    try:
        client.close()
    except Exception:  # noqa: BLE001 - closing is best effort
        pass
