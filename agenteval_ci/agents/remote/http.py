"""Requests to the agent: only to the configured server, with the configured headers, retried
only when the connection could not be made (nothing was sent), every failure a RemoteAgentError
that says which request failed and how.

The per-turn timeout lies above (runner/suites.py); a read here waits as long as the turn may.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Callable, Optional, TypeVar
from urllib.parse import urlsplit

import httpx
import pydantic

CONNECT_TRIES = 4
TRIES = "agenteval.connect_tries"  # a request's extension: how often to try connecting
RETRY_DELAYS = (0.1, 0.3, 0.9)
CONNECT_TIMEOUT = 10.0
EXIT_GRACE = 0.5  # seconds a dropped connection waits to learn whether the server died
MAX_REPLY_BYTES = 64 * 1024 * 1024
SHOWN = 300  # characters of a bad reply quoted in the error
REFUSED = (401, 403)  # answers that waiting or retrying does not change: the run ends at once

M = TypeVar("M", bound=pydantic.BaseModel)


class RemoteAgentError(Exception):
    """The agent's server failed a request (or could not be reached): fails that run."""


def _about(what: str) -> str:
    return f"{what}: " if what else ""


DEFAULT_PORTS = {"http": 80, "https": 443}


def same_origin(url: str, other: str) -> bool:
    return origin_of(url) == origin_of(other)


def origin_of(url: str) -> tuple[str, Optional[str], Optional[int]]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.scheme.lower(), parts.hostname, port or DEFAULT_PORTS.get(parts.scheme.lower())


def joined(base: str, path: str) -> str:
    return base.rstrip("/") + "/" + path.lstrip("/")


class ConnectRetries(httpx.AsyncBaseTransport):
    """Retries a request only while its connection cannot be made (nothing was sent), and not
    once the started server is gone. In the client's transport, so the A2A SDK's requests, which
    use our client, are retried as ours are."""

    def __init__(self, inner: httpx.AsyncBaseTransport, gone: Callable[[], Optional[str]]):
        self._inner = inner
        self._gone = gone

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        tries = request.extensions.get(TRIES, CONNECT_TRIES)
        for attempt in range(tries):
            try:
                return await self._inner.handle_async_request(request)
            except (httpx.ConnectError, httpx.ConnectTimeout):
                if attempt + 1 == tries or self._gone():
                    raise
                await asyncio.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._inner.aclose()


class DropAfterError(httpx.AsyncBaseTransport):
    """An error answer's connection is closed once its body is read, never reused: a server may
    close it right after (uvicorn does after a 500, without `Connection: close`), and a request
    sent on it then is never read yet fails "after it was sent", where we may not retry it (it
    may be a turn). Keep-alive stays for the rest: a connect per turn costs ~10 ms here
    (bench/remote_overhead.py)."""

    def __init__(self, inner: httpx.AsyncBaseTransport):
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        connection = response.extensions.get("network_stream")  # httpcore's, documented
        if response.status_code >= 400 and connection is not None:
            response.stream = _ClosingStream(response.stream, connection)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class _ClosingStream(httpx.AsyncByteStream):
    """The body as it comes; closing it closes the connection first, so the pool, taking the
    connection back, finds its socket closed and discards it."""

    def __init__(self, body: Any, connection: Any):
        self._body = body
        self._connection = connection

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._body:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._connection.aclose()
        finally:
            await self._body.aclose()


class AgentHttp:
    """One connection pool per suite, sized to its concurrency. `gone` names why the started
    server is gone (or None), so a refused connection says the server died rather than retrying."""

    def __init__(self, headers: dict[str, str], connections: int, gone: Callable[[], Optional[str]] = lambda: None,
                 auth: Optional[httpx.Auth] = None, credential: Callable[[], str] = lambda: "none"):
        self._headers = headers
        self._connections = connections
        self._gone = gone
        self._auth = auth
        self.credential = credential  # which credential requests carry, for messages (never its value)
        self._client: Optional[httpx.AsyncClient] = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # made inside the run's event loop
            limits = httpx.Limits(max_connections=self._connections, max_keepalive_connections=self._connections)
            transport = ConnectRetries(DropAfterError(httpx.AsyncHTTPTransport(limits=limits, trust_env=False)), self._gone)
            timeout = httpx.Timeout(None, connect=CONNECT_TIMEOUT)
            self._client = httpx.AsyncClient(headers=self._headers, auth=self._auth, transport=transport, timeout=timeout,
                                             follow_redirects=False, trust_env=False)
        return self._client

    async def probe(self, url: str, home: str, timeout: float) -> httpx.Response:
        """One GET of a ready check, tried once; the configured headers go only to `home`'s server."""
        request = self.client.build_request("GET", url, timeout=timeout, extensions={TRIES: 1})
        if not same_origin(url, home):
            for name in self._headers:
                del request.headers[name]
        return await self.client.send(request)

    async def post_json(self, url: str, body: Any, what: str, headers: Optional[dict[str, str]] = None) -> Any:
        response = await self.send("POST", url, what, json=body, headers=headers)
        return reply_json(response, f"POST {url}", what)

    async def get_json(self, url: str, what: str) -> Any:
        response = await self.send("GET", url, what)
        return reply_json(response, f"GET {url}", what)

    async def send(self, method: str, url: str, what: str, **kwargs: Any) -> httpx.Response:
        """The request (retried on a refused connection); a non-2xx answer is an error."""
        return checked(await self.request(method, url, what, **kwargs), what)

    async def request(self, method: str, url: str, what: str, **kwargs: Any) -> httpx.Response:
        """The request (retried on a refused connection); any answer is returned, any failure is
        a RemoteAgentError saying whether it happened before or after the request was sent."""
        request = f"{method} {url}"
        try:
            response = await self.client.request(method, url, **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            gone = self._gone()
            if gone:
                raise RemoteAgentError(f"{_about(what)}{request}: the agent's server is gone: {gone}") from None
            raise RemoteAgentError(f"{_about(what)}{request}: cannot connect after {CONNECT_TRIES} tries: {_reason(exc)}") from None
        except httpx.HTTPError as exc:  # sent, then failed: never retried (the agent may have acted)
            raise RemoteAgentError(f"{_about(what)}{request} failed after the request was sent: {await self.why_failed(exc)}") from None
        if response.status_code in REFUSED:
            raise RemoteAgentError(self.refused(response, what))
        return response

    def refused(self, response: httpx.Response, what: str) -> str:
        """A 401 or 403 ends the run at once: waiting or retrying does not change the answer."""
        again = "; the token was fetched again and refused again" if response.status_code == 401 and self._auth else ""
        request = f"{response.request.method} {response.request.url}"
        return f"{_about(what)}{request} was refused: HTTP {response.status_code} with credential: {self.credential()}{again}: {_shown(response.text)}"

    async def why_failed(self, exc: BaseException) -> str:
        """A server that dropped the connection as it died is reaped a moment later: wait for that."""
        for _ in range(int(EXIT_GRACE / 0.02)):
            gone = self._gone()
            if gone:
                return f"the agent's server is gone: {gone}"
            await asyncio.sleep(0.02)
        gone = self._gone()
        return f"the agent's server is gone: {gone}" if gone else _reason(exc)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def checked(response: httpx.Response, what: str) -> httpx.Response:
    if not response.is_success:
        request = f"{response.request.method} {response.request.url}"
        raise RemoteAgentError(f"{_about(what)}{request} answered HTTP {response.status_code}: {_shown(response.text)}")
    return response


def reply_json(response: httpx.Response, request: str, what: str) -> Any:
    if len(response.content) > MAX_REPLY_BYTES:
        raise RemoteAgentError(f"{_about(what)}{request} answered {len(response.content):,} bytes; the limit is {MAX_REPLY_BYTES:,}")
    try:
        return json.loads(response.content)
    except (ValueError, RecursionError) as exc:
        raise RemoteAgentError(f"{_about(what)}{request} answered something that is not JSON ({exc}): {_shown(response.text)}") from None


def parse_reply(model: type[M], data: Any, request: str, what: str) -> M:
    """The reply as `model`, or an error naming the JSON path of the first problem."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        raise RemoteAgentError(f"{_about(what)}{request} answered an invalid reply at {where}: {first['msg']}") from None


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return repr(text[:SHOWN] + ("..." if len(text) > SHOWN else "")) if text else "(empty body)"
