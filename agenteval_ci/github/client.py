"""A small GitHub REST client over an injected `requests.Session`.

Retries 5xx answers and lost connections (refused, dropped, timed out) with exponential
backoff, and secondary rate limits (403/429 with `Retry-After` or an exhausted
`x-ratelimit-remaining`) for as long as GitHub asks, within a cap. A request that
creates something (`idempotent=False`) is never resent blindly after a 5xx or a lost
connection, since GitHub may have stored it: `create` looks again before posting again.
Pagination follows `Link: rel="next"`. The token lives only in the session's headers:
errors and reprs never contain it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import requests

from .errors import GitHubError, RateLimited, Unreachable, error_for

API_VERSION = "2022-11-28"
MAX_WAIT_SECONDS = 120.0  # a longer wait than this would outlive a CI step's patience


def new_session(token: str | None, user_agent: str = "agenteval-ci") -> requests.Session:
    """The real session the action uses; tests pass the same kind pointed at the fake."""
    session = requests.Session()
    session.headers.update({
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": user_agent,
    })
    if token:
        session.headers["Authorization"] = f"Bearer {token}"
    return session


def _message(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason
    return str(body.get("message", body)) if isinstance(body, dict) else str(body)[:200]


def rate_limit_wait(response: requests.Response, now: float) -> float | None:
    """Seconds GitHub asks us to wait, or None when this is not a rate limit."""
    if response.status_code not in (403, 429):
        return None
    retry_after = response.headers.get("Retry-After")
    if retry_after is not None and retry_after.strip().isdigit():
        return float(retry_after)
    if response.headers.get("x-ratelimit-remaining") == "0":
        reset = response.headers.get("x-ratelimit-reset", "")
        return max(0.0, float(reset) - now) if reset.isdigit() else 60.0
    if "secondary rate limit" in _message(response).lower():
        return 60.0  # GitHub's documented minimum when it gives no header
    return None


def _reason(exc: BaseException) -> str:
    """The innermost cause of a requests error, without urllib3's object reprs."""
    inner = exc
    for _ in range(6):
        cause = getattr(inner, "reason", None)
        if not isinstance(cause, BaseException):
            cause = next((a for a in reversed(inner.args) if isinstance(a, BaseException)), None)
        if cause is None:
            break
        inner = cause
    return re.sub(r"<[^>]*>:\s*", "", str(inner)).strip() or type(inner).__name__


def maybe_stored(exc: GitHubError) -> bool:
    """A create whose outcome we do not know: GitHub may have stored it before failing."""
    return isinstance(exc, Unreachable) or exc.status >= 500


class GitHubClient:
    def __init__(
        self,
        session: requests.Session,
        api_url: str = "https://api.github.com",
        *,
        max_retries: int = 5,
        backoff_seconds: float = 0.5,
        timeout_seconds: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.session = session
        self.api_url = api_url.rstrip("/")
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.timeout_seconds = timeout_seconds
        self.sleep = sleep

    def __repr__(self) -> str:
        return f"GitHubClient({self.api_url!r})"

    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self.api_url}/{path.lstrip('/')}"

    def send(self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any) -> requests.Response:
        """One request with retries; raises a typed GitHubError on a final error status.

        With `idempotent=False` a 5xx or a lost connection is raised at once (see `create`);
        rate limits are still waited out, since GitHub did nothing.
        """
        tries = self.max_retries + 1 if idempotent else 1
        for attempt in range(self.max_retries + 1):
            try:
                response = self.session.request(method, self.url(path), timeout=self.timeout_seconds, **kwargs)
            except (requests.ConnectionError, requests.Timeout) as exc:
                if attempt + 1 >= tries:
                    raise Unreachable(method, path, self.api_url, attempt + 1, _reason(exc)) from None
                self.sleep(self.backoff_seconds * 2**attempt)
                continue
            wait = self._retry_wait(response, attempt, idempotent)
            if wait is None:
                break
            self.sleep(wait)
        if response.status_code >= 400:
            error = error_for(method, path, response.status_code, _message(response))
            if rate_limit_wait(response, time.time()) is not None:
                error = RateLimited(method, path, response.status_code, error.message)
            raise error
        return response

    def _retry_wait(self, response: requests.Response, attempt: int, idempotent: bool = True) -> float | None:
        if attempt >= self.max_retries:
            return None
        limited = rate_limit_wait(response, time.time())
        if limited is not None:
            return limited if limited <= MAX_WAIT_SECONDS else None
        if response.status_code >= 500 and idempotent:
            return float(self.backoff_seconds * 2**attempt)
        return None

    def create(self, path: str, body: dict[str, Any], look_again: Callable[[], Any | None], method: str = "POST") -> Any:
        """POST (or PUT) something new, once: after a 5xx or a lost connection, `look_again()`
        (the thing as GitHub lists it, or None) is asked before sending again, and once more
        before giving up, so a failure raised here means it was not stored as far as GitHub says."""
        attempt = 0
        while True:
            try:
                return self.json(method, path, json=body, idempotent=False)
            except GitHubError as exc:
                if not maybe_stored(exc):
                    raise
                failure = exc
            self.sleep(self.backoff_seconds * 2**attempt)
            found = look_again()
            if found is not None:
                return found
            if attempt >= self.max_retries:
                if isinstance(failure, Unreachable):
                    raise Unreachable(failure.method, path, self.api_url, attempt + 1, failure.message) from None
                raise failure
            attempt += 1

    def json(self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any) -> Any:
        response = self.send(method, path, idempotent=idempotent, **kwargs)
        return _body(response, method, path) if response.content else None

    def paginate(self, path: str, *, key: str | None = None, params: dict[str, Any] | None = None) -> Iterator[Any]:
        """Every item of a listing; `key` names the list inside an object page (`workflow_runs`)."""
        url: str | None = path
        query: dict[str, Any] | None = {"per_page": 100, **(params or {})}
        while url:
            response = self.send("GET", url, params=query)
            page = _body(response, "GET", path)
            items = page.get(key) if key and isinstance(page, dict) else page
            if not isinstance(items, list):
                raise GitHubError("GET", path, response.status_code, f"answered a page that is not a list{f' of {key}' if key else ''}")
            yield from items
            url = response.links.get("next", {}).get("url")
            query = None  # the next link carries the query


def _body(response: requests.Response, method: str, path: str) -> Any:
    """The JSON of an answer; a proxy's HTML page in its place is a GitHubError, not a traceback."""
    try:
        return response.json()
    except ValueError:
        raise GitHubError(method, path, response.status_code, f"answered with a body that is not JSON: {response.text[:100]!r}") from None
