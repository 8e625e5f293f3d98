"""The Gen AI evaluation service (Vertex AI's `evaluateInstances`): agents-cli's managed metrics.

What google-cloud-aiplatform 2.7's evals client sends for a predefined metric, and what it
reads back, found in its code (vertexai/_genai/evals.py, _evals_metric_handlers.py):

    POST {root}/v1beta1/projects/{project}/locations/{location}:evaluateInstances
    {"metrics": [{"predefined_metric_spec": {"metric_spec_name": "general_quality_v2"}}],
     "instance": {"prompt": ..., "response": ..., "reference": ..., "agent_eval_data": ...}}
    -> {"metricResults": [{"score": 0.8, "explanation": "...", "rubricVerdicts": [...], "error": {...}}]}

The request body is the metric's prompt (core/metrics/managed.py makes it), so the judge's
cache, fingerprint and retries treat it as any other. The reply's first metric result comes
back as the sample's text, as JSON; the metric's reader takes its score or says why there is
none. Credentials are application default credentials (a key file named by
GOOGLE_APPLICATION_CREDENTIALS, gcloud's, or the runner's workload identity), with Google's
cloud-platform scope; their token is fetched before the first call and again when it expires.
One request per sample, exactly one HTTP attempt: the Judge owns retries and the deadline.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import warnings
from typing import Any, Optional, Sequence, Union

import httpx
from google.auth import exceptions as auth_errors

from ...core.judging import MediaPart
from ..access import JudgeAccess
from ..outcomes import BadReply, CallFailed, CallOutcome, Generated
from ..routes import Route

MAX_CANDIDATES = 1  # the service scores an instance once per request
CLOUD_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
RETRYABLE = {408, 409, 429}  # and every 5xx
ADC_HINT = (
    "managed metrics need application default credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service account "
    "key file or run `gcloud auth application-default login` (in Actions: google-github-actions/auth)"
)


class Client:
    """The credentials and TLS settings every request to the service shares; the token is
    refreshed by one request at a time."""

    def __init__(self, credentials: Any, timeout_seconds: float):
        self.credentials = credentials
        self.timeout_seconds = timeout_seconds
        self.tls: ssl.SSLContext = httpx.create_ssl_context()
        self._refreshing = asyncio.Lock()
        self._refused: Optional[CallFailed] = None  # credentials refused once are not offered again

    async def token(self) -> Union[str, CallFailed]:
        async with self._refreshing:
            if self._refused:
                return self._refused
            if not self.credentials.valid:
                failed = await asyncio.to_thread(_refresh, self.credentials)
                if failed and failed.credentials:
                    self._refused = failed
                if failed:
                    return failed
        return str(self.credentials.token)


def _refresh(credentials: Any) -> Optional[CallFailed]:
    from google.auth.transport.requests import Request

    try:
        credentials.refresh(Request())
    except auth_errors.RefreshError as error:  # refused: every later call would be refused too
        return CallFailed(f"judge credentials refused: {ADC_HINT} ({error})", credentials=True)
    except auth_errors.TransportError as error:  # the token endpoint could not be reached: transient
        return CallFailed(f"judge credentials could not be fetched ({type(error).__name__}: {error})", retryable=True)
    return None


def build_client(route: Route, access: JudgeAccess, timeout_seconds: float) -> Union[Client, CallFailed]:
    """Application default credentials: the key file of the environment snapshot when it names
    one, else google-auth's own search (gcloud's file, a metadata server)."""
    import google.auth

    try:
        with warnings.catch_warnings():  # google-auth warns about user credentials without a quota project
            warnings.simplefilter("ignore")
            if access.credentials_file:
                credentials, _ = google.auth.load_credentials_from_file(access.credentials_file, scopes=[CLOUD_SCOPE])  # type: ignore[no-untyped-call]
            else:
                credentials, _ = google.auth.default(scopes=[CLOUD_SCOPE])
    except auth_errors.GoogleAuthError as error:
        return CallFailed(f"judge credentials failed: {ADC_HINT} ({type(error).__name__}: {error})", credentials=True)
    return Client(credentials, timeout_seconds)


async def generate(
    client: Client, route: Route, config: Optional[dict[str, Any]], prompt: str, candidates: int = 1, media: Sequence[MediaPart] = ()
) -> CallOutcome:
    """One score of the instance in `prompt` (the request body), as its metric result's JSON.
    `media` is always empty: judge/media.py sends this service none (its instance is text)."""
    token = await client.token()
    if isinstance(token, CallFailed):
        return token
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "User-Agent": "agenteval-ci"}
    try:
        async with httpx.AsyncClient(timeout=client.timeout_seconds, verify=client.tls) as http:
            response = await http.post(f"{route.base_url}:evaluateInstances", content=prompt.encode(), headers=headers)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:  # a base URL that is no http(s) URL: every call would fail alike
        return CallFailed(f"the evaluation service's URL {route.base_url!r} cannot be asked ({type(error).__name__}: {error})")
    except httpx.TransportError as error:
        return CallFailed(f"transport error {type(error).__name__}: {error or 'connection failed'}", retryable=True)
    if response.status_code != 200:
        return _http_failure(response)
    try:
        data = response.json()
    except ValueError as error:
        return CallFailed(f"unreadable response body ({type(error).__name__}: {error}): {response.text[:120]!r}", retryable=True)
    return Generated((first_result(data),), 0, 0)


def first_result(data: Any) -> Union[str, BadReply]:
    """The reply's first metric result as JSON text (the metric's reader checks its score), or
    why the reply holds none."""
    results = data.get("metricResults", data.get("metric_results")) if isinstance(data, dict) else None
    if not isinstance(results, list) or not results or not isinstance(results[0], dict):
        return BadReply(f"the evaluation service returned no metric result: {json.dumps(data)[:120]!r}")
    return json.dumps(results[0], sort_keys=True)


def _http_failure(response: httpx.Response) -> CallFailed:
    status = response.status_code
    try:
        message = response.json().get("error", {}).get("message") or response.reason_phrase
    except (ValueError, AttributeError):
        message = response.text[:200] or response.reason_phrase
    text = f"HTTP {status}: {message}"
    if status in (401, 403):
        return CallFailed(f"judge credentials refused: {text}", status=status, credentials=True)
    retry_after = response.headers.get("retry-after")
    try:
        seconds = float(retry_after) if retry_after is not None else None
    except ValueError:
        seconds = None
    return CallFailed(text, status=status, retry_after=seconds, retryable=status in RETRYABLE or status >= 500)


def close_quietly(client: Client) -> None:
    """Nothing to close: each request opens and closes its own connection pool."""
