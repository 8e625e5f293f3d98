"""`auth:` of a served agent: a bearer token fetched when first needed, fetched again shortly
before it expires and once when the server answers 401 (docs/agents.md, "Deployed agents").

Tokens live only here and in the Authorization header of requests to the agent's own server:
never in the environment of a started agent, never in a message (`redact`), never logged.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, AsyncGenerator, Callable, Optional, Protocol
from urllib.parse import urlsplit

import httpx

from ...schema.remote_agent import AuthConfig, CommandAuth
from .http import DEFAULT_PORTS, RemoteAgentError, origin_of

REFRESH_MARGIN = 300.0  # seconds before expiry a token is replaced (a quarter of a shorter lifetime)
COMMAND_TIMEOUT = 60.0
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
GOOGLE_APIS = ".googleapis.com"
SHOWN_STDERR = 300


@dataclass(frozen=True)
class Token:
    value: str
    expires_at: Optional[float]  # time.monotonic() when it expires; None: unknown (kept until a 401)


class TokenSource(Protocol):
    @property
    def credential(self) -> str:
        """Which credential this is, for messages: never its value."""
        ...

    def fetch(self) -> Token:
        """A fresh token (blocking: called in a worker thread); RemoteAgentError when there is none."""
        ...


class Tokens:
    """The current token of one suite's agent, shared by its concurrent runs."""

    def __init__(self, source: TokenSource, clock: Callable[[], float] = time.monotonic):
        self._source = source
        self._clock = clock
        self._token: Optional[Token] = None
        self._fetched_at = 0.0
        self._lock: Optional[asyncio.Lock] = None
        self._issued: set[str] = set()
        self.fetches = 0

    @property
    def credential(self) -> str:
        return self._source.credential

    async def current(self) -> str:
        token = self._token
        if token is not None and not self._due(token):  # every turn but one an hour: no lock, no await
            return token.value
        async with self._locked():
            if self._token is None or self._due(self._token):
                await self._fetch()
            assert self._token is not None
            return self._token.value

    async def after_refusal(self, refused: str) -> str:
        """A token to try once more after `refused` got a 401: a new one, unless a concurrent
        request already replaced it."""
        async with self._locked():
            if self._token is None or self._token.value == refused:
                await self._fetch()
            assert self._token is not None
            return self._token.value

    def redact(self, text: str) -> str:
        for value in self._issued:
            text = text.replace(value, "[token]")
        return text

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:  # made in the run's event loop
            self._lock = asyncio.Lock()
        return self._lock

    def _due(self, token: Token) -> bool:
        if token.expires_at is None:
            return False
        margin = min(REFRESH_MARGIN, (token.expires_at - self._fetched_at) / 4)
        return self._clock() >= token.expires_at - margin

    async def _fetch(self) -> None:
        self._fetched_at = self._clock()
        token = await asyncio.to_thread(self._source.fetch)
        if not token.value.strip():
            raise RemoteAgentError(f"auth: {self.credential} gave an empty token")
        self._token = token
        self._issued.add(token.value)
        self.fetches += 1


class BearerAuth(httpx.Auth):
    """The token on every request to the agent's own server; a 401 gets one retry with a fresh token."""

    def __init__(self, tokens: Tokens, home: str):
        self._tokens = tokens
        self._home = origin_of(home)

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        url = request.url
        if (url.scheme, url.host, url.port or DEFAULT_PORTS.get(url.scheme)) != self._home:
            yield request
            return
        token = await self._tokens.current()
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            request.headers["Authorization"] = f"Bearer {await self._tokens.after_refusal(token)}"
            yield request

    def sync_auth_flow(self, request: httpx.Request) -> Any:
        raise RuntimeError("the agent's client is asynchronous")


class GoogleTokens:
    """From the environment's Google credentials (ADC: GOOGLE_APPLICATION_CREDENTIALS, gcloud's
    login, workload identity, the metadata server): an ID token for `audience`, or, with no
    audience, an access token for Google APIs."""

    def __init__(self, audience: Optional[str]):
        self._audience = audience
        self._credentials: Any = None
        self._who = "the environment's Google credentials"

    @property
    def credential(self) -> str:
        kind = f"Google ID token for audience {self._audience}" if self._audience else "Google access token"
        return f"{kind} from {self._who}"

    def fetch(self) -> Token:
        import google.auth.exceptions
        from google.auth.transport.requests import Request

        request = Request()
        try:
            if self._credentials is None:
                self._credentials = self._load(request)
            self._credentials.refresh(request)
        except google.auth.exceptions.GoogleAuthError as exc:
            raise RemoteAgentError(f"auth: google: cannot get a {self.credential}: {exc}{self._hint()}") from None
        return Token(str(self._credentials.token), _monotonic(self._credentials.expiry))

    def _load(self, request: Any) -> Any:
        import google.auth
        from google.oauth2 import id_token

        if self._audience:
            credentials = id_token.fetch_id_token_credentials(self._audience, request=request)  # type: ignore[no-untyped-call]
        else:
            credentials, _ = google.auth.default(scopes=[CLOUD_PLATFORM])
        email = getattr(credentials, "service_account_email", None)
        self._who = f"service account {email}" if email and email != "default" else f"{type(credentials).__module__}.{type(credentials).__name__}"
        return credentials

    def _hint(self) -> str:
        if not self._audience:
            return ""
        return ("; ID tokens come from a service account (key file, workload identity, the metadata server); for a "
                "user's login use `auth: {command: gcloud auth print-identity-token}`")


class CommandTokens:
    """The token the user's command prints, run again when it expires or is refused."""

    def __init__(self, config: CommandAuth, cwd: Path, environ: dict[str, str], clock: Callable[[], float] = time.monotonic):
        self._config = config
        self._cwd = cwd
        self._environ = environ
        self._clock = clock

    @property
    def credential(self) -> str:
        return f"the token printed by `{self._config.command}`"

    def fetch(self) -> Token:
        import subprocess

        try:
            done = subprocess.run(["/bin/sh", "-c", self._config.command], cwd=self._cwd, env=self._environ,
                                  capture_output=True, text=True, timeout=COMMAND_TIMEOUT, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RemoteAgentError(f"auth: `{self._config.command}` failed: {exc}") from None
        value = done.stdout.strip()
        if done.returncode != 0:  # its stderr says why; its stdout may hold a token: never shown
            detail = " ".join(done.stderr.split())[-SHOWN_STDERR:]
            raise RemoteAgentError(f"auth: `{self._config.command}` exited with status {done.returncode}: {detail or '(no stderr)'}")
        if not value or "\n" in value or " " in value:
            raise RemoteAgentError(f"auth: `{self._config.command}` must print one token on one line (it printed {len(value.splitlines())} line(s))")
        return Token(value, self._expiry(value))

    def _expiry(self, value: str) -> Optional[float]:
        if self._config.refresh_seconds is not None:
            return self._clock() + self._config.refresh_seconds
        expiry = jwt_expiry(value)
        return None if expiry is None else self._clock() + (expiry - time.time())


def jwt_expiry(value: str) -> Optional[float]:
    """The `exp` claim (seconds since the epoch) of a JWT, read without checking it; None for anything else."""
    parts = value.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None


def _monotonic(expiry: Optional[datetime]) -> Optional[float]:
    """google-auth's naive UTC expiry on our monotonic clock."""
    if expiry is None:
        return None
    left = (expiry - datetime.now(timezone.utc).replace(tzinfo=None)).total_seconds()
    return time.monotonic() + left


def google_audience(url: str) -> Optional[str]:
    """Cloud Run checks an ID token's audience against the service's URL; Google APIs take an
    access token (None)."""
    parts = urlsplit(url)
    if (parts.hostname or "").endswith(GOOGLE_APIS):
        return None
    return f"{parts.scheme}://{parts.netloc}"


def token_source(config: AuthConfig, url: str, cwd: Path, environ: dict[str, str], access_token: bool = False) -> TokenSource:
    if isinstance(config, CommandAuth):
        return CommandTokens(config, cwd, environ)
    return GoogleTokens(None if access_token else google_audience(url))
