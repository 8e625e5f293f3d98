"""The OpenAI-compatible provider: one chat-completions request over plain HTTP, errors as values.

Speaks OpenAI's `POST {base_url}/chat/completions` (OpenAI, vLLM, Ollama's /v1, a LiteLLM
proxy, Groq, Together, Mistral, DeepSeek, Fireworks, Databricks, Azure AI) and Azure OpenAI's
`POST {base_url}/openai/deployments/{deployment}/chat/completions?api-version=...` with an
`api-key` header. Several samples of one prompt are one request with `n`; a server that
ignores `n` answers fewer choices and the Judge asks for the rest. Exactly one HTTP attempt per
call: the Judge owns retries, backoff and the deadline.

What is sent: the prompt as one user message (with the conversation's images and PDFs as content
parts after it, when the Judge sends media: `content_of`), the model, `n`, and the sampling settings of
`judge_model_config` that chat-completions has (temperature, top_p, max tokens, seed, stop,
penalties, a JSON response format); Gemini-only settings are left out with one warning.
"""

from __future__ import annotations

import base64
import re
import ssl
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

import httpx

from ...core.judging import MediaPart
from ..access import JudgeAccess
from ..media import label
from ..outcomes import BadReply, CallFailed, CallOutcome, FinishReasons, Generated
from ..routes import Route

MAX_CANDIDATES = 8  # samples asked for in one request (`n`)
BLOCKED = {"content_filter"}  # a filter stopped the reply: the same prompt would be stopped again
CUT_SHORT = "length"
FINISHED = {None, "stop", "eos", "end_turn"}  # servers differ; a missing reason is a finished reply
REASONS = FinishReasons(BLOCKED, CUT_SHORT, FINISHED)
RETRYABLE = {408, 409, 429}  # and every 5xx: what OpenAI's own client retries
# GenerateContentConfig's names (either case) -> chat-completions'; other OpenAI names pass as they are.
MAPPED = {
    "temperature": "temperature", "top_p": "top_p", "topP": "top_p", "seed": "seed",
    "max_output_tokens": "max_tokens", "maxOutputTokens": "max_tokens",
    "stop_sequences": "stop", "stopSequences": "stop",
    "presence_penalty": "presence_penalty", "presencePenalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty", "frequencyPenalty": "frequency_penalty",
}
PASSED = {"max_tokens", "max_completion_tokens", "stop", "reasoning_effort", "logit_bias", "user", "response_format", "verbosity"}
IGNORED_QUIETLY = {"candidate_count", "candidateCount", "automatic_function_calling", "automaticFunctionCalling"}
_REASONING_MODEL = re.compile(r"(.*/)?o\d.*|(.*/)?gpt-5.*")
_warned: set[str] = set()


@dataclass(frozen=True)
class Client:
    """What every request to one endpoint shares. Each request opens its own connection pool and
    closes it before returning, so nothing outlives the event loop that made it; the TLS settings
    (the CA bundle, ~20 ms of CPU to load) are made once."""

    route: Route
    timeout_seconds: float
    headers: dict[str, str] = field(repr=False)
    tls: ssl.SSLContext = field(default_factory=httpx.create_ssl_context, repr=False)


def build_client(route: Route, access: JudgeAccess, timeout_seconds: float) -> Union[Client, CallFailed]:
    headers = {"Content-Type": "application/json", "User-Agent": "agenteval-ci"}
    if route.api_key and route.protocol == "azure":
        headers["api-key"] = route.api_key
    elif route.api_key:
        headers["Authorization"] = f"Bearer {route.api_key}"
    return Client(route, timeout_seconds, headers)


def url_of(route: Route) -> str:
    if route.protocol == "azure":
        return f"{route.base_url}/openai/deployments/{route.model}/chat/completions"
    return f"{route.base_url}/chat/completions"


def content_of(prompt: str, media: Sequence[MediaPart]) -> Union[str, list[dict[str, Any]]]:
    """The user message's content: the prompt alone (the request as before media could be sent),
    or content parts: the prompt, then each image (`image_url`: a data URL of its bytes, or its
    http(s) URL) or PDF (`file` with a data URL) after a line naming it. judge/media.py sends
    nothing else over this protocol."""
    if not media:
        return prompt
    parts: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
    for number, part in enumerate(media, start=1):
        parts.append({"type": "text", "text": label(part, number)})
        url = part.uri or f"data:{part.mime_type};base64,{base64.b64encode(part.data or b'').decode('ascii')}"
        if part.mime_type.startswith("image/"):
            parts.append({"type": "image_url", "image_url": {"url": url}})
        else:
            parts.append({"type": "file", "file": {"filename": f"attachment-{number}.pdf", "file_data": url}})
    return parts


def request_body(route: Route, config: Optional[dict[str, Any]], prompt: str, candidates: int, media: Sequence[MediaPart] = ()) -> dict[str, Any]:
    body: dict[str, Any] = {"model": route.model, "messages": [{"role": "user", "content": content_of(prompt, media)}]}
    if candidates > 1:
        body["n"] = candidates
    ignored = []
    for key, value in (config or {}).items():
        if key in MAPPED:
            body[MAPPED[key]] = value
        elif key in PASSED:
            body[key] = value
        elif key in ("response_mime_type", "responseMimeType"):
            if value == "application/json":
                body["response_format"] = {"type": "json_object"}
        elif key not in IGNORED_QUIETLY:
            ignored.append(key)
    if "max_tokens" in body and _REASONING_MODEL.fullmatch(route.model):
        body["max_completion_tokens"] = body.pop("max_tokens")  # reasoning models take only this name
    _warn_once(route, ignored)
    return body


def _warn_once(route: Route, ignored: list[str]) -> None:
    fresh = [key for key in ignored if f"{route.provider}:{key}" not in _warned]
    if fresh:
        _warned.update(f"{route.provider}:{key}" for key in fresh)
        print(f"warning: judge_model_config: {', '.join(fresh)}: not a chat-completions setting; "
              f"the {route.provider} judge leaves it out", file=sys.stderr)


async def generate(
    client: Client, route: Route, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1, media: Sequence[MediaPart] = ()
) -> CallOutcome:
    """`candidates` independent samples of `prompt` (with `media`) in one request."""
    params = {"api-version": route.api_version} if route.api_version else None
    try:
        async with httpx.AsyncClient(timeout=client.timeout_seconds, verify=client.tls) as http:
            response = await http.post(url_of(route), params=params, headers=client.headers,
                                        json=request_body(route, config, prompt, candidates, media))
    except httpx.TransportError as error:  # refused, reset, timed out, a body cut off
        return CallFailed(f"transport error {type(error).__name__}: {error or 'connection failed'}", retryable=True)
    if response.status_code != 200:
        return _http_failure(response)
    try:
        data = response.json()
        return generated_of(data)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        return CallFailed(f"unreadable response body ({type(error).__name__}: {error}): {response.text[:120]!r}", retryable=True)


def _error_of(response: httpx.Response) -> tuple[str, str]:
    """The error's message and code, from OpenAI's `{"error": {...}}` (or whatever came)."""
    try:
        data = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase, ""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("code") or "error"), str(error.get("code") or error.get("type") or "")
    return str(error or data)[:300], ""


def retry_after_of(headers: Mapping[str, str]) -> Optional[float]:
    """Seconds the server asks us to wait (OpenAI's retry-after-ms, or Retry-After in seconds)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            if value is not None:
                return float(value) * scale
        except ValueError:
            continue  # an HTTP date: our own backoff
    return None


def _http_failure(response: httpx.Response) -> CallFailed:
    status = response.status_code
    message, code = _error_of(response)
    text = f"HTTP {status}: {message}"
    if status in (401, 403):
        return CallFailed(f"judge credentials refused: {text}", status=status, credentials=True)
    if code == "insufficient_quota":  # a billing limit, not throttling: waiting does not help
        return CallFailed(f"judge quota exhausted: {text}", status=status, credentials=True)
    if code == "content_filter":
        return CallFailed(f"the judge's prompt was blocked (content filter): {text}", status=status)
    retryable = status in RETRYABLE or status >= 500
    return CallFailed(text, status=status, retry_after=retry_after_of(response.headers) if retryable else None, retryable=retryable)


def generated_of(data: dict[str, Any]) -> Generated:
    """A chat-completions reply's samples (in `index` order), token counts and model version."""
    choices = sorted(data.get("choices") or [], key=lambda choice: choice.get("index") or 0)
    usage = data.get("usage") or {}
    version = data.get("model")
    return Generated(
        tuple(_text_of(choice) for choice in choices),
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        model_version=version if isinstance(version, str) and version else None,
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") in (None, "text"))
    return ""


def _text_of(choice: dict[str, Any]) -> Union[str, BadReply]:
    message = choice.get("message") or {}
    reason = choice.get("finish_reason")
    if message.get("refusal"):
        return BadReply(f"the judge refused: {str(message['refusal'])[:200]!r}", retryable=False)
    return REASONS.candidate(_content_text(message.get("content")), reason)


def close_quietly(client: Client) -> None:
    """Nothing to close: each request closed its own connections."""

