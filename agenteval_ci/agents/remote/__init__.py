"""Agents served over HTTP, in any language: ADK's api_server, A2A, and our plain JSON contract.

Each kind is one module exposing a class with `open(session, case)` and `turn(session, content,
context) -> TurnRecord`; KINDS below registers them. What they share lives here: starting the
agent's server and waiting until it is ready, the OTLP receiver, trace correlation, and turning
each turn into the Invocation an in-process run records. Any failure fails that run, with its
reason; a server that never became ready fails every run of the suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Protocol, runtime_checkable
from urllib.parse import urlsplit

from ...core.metrics.judge_context import INTERMEDIATE_TEXTS
from ...errors import DependencyError, UsageError
from ...schema import Content, EvalCase, Invocation
from ...schema.remote_agent import ENV_REFERENCE, RemoteAgentConfig, check_http_url
from ..logs import LOG_FILE
from ..traces.mapping import TraceContentMissing, turn_from_spans
from ..traces.turn import TurnRecord, to_invocation
from .auth import BearerAuth, Tokens, token_source
from .http import REFUSED, AgentHttp, RemoteAgentError, joined, same_origin
from .process import AgentProcess, agent_environment, guard_exits
from .receiver import OtlpReceiver, TraceMissing, TurnQuery
from .session import Session, TurnContext

READY_POLL = (0.05, 0.1, 0.2, 0.5)


class Kind(Protocol):
    @property
    def default_ready(self) -> Optional[str]:
        """A path to GET until 2xx; None: a TCP connection to the port."""
        ...

    async def open(self, session: Session, case: EvalCase) -> None: ...

    async def turn(self, session: Session, user_content: Content, context: TurnContext) -> TurnRecord: ...

    async def final_state(self, session: Session) -> Optional[dict[str, Any]]:
        """The session's state after the last turn; None when the kind cannot report it."""
        ...


def _json_contract(config: RemoteAgentConfig) -> Kind:
    from .json_contract import JsonContractKind

    return JsonContractKind(config.url)


def _adk_api_server(config: RemoteAgentConfig) -> Kind:
    from .adk_api_server import AdkApiServerKind

    return AdkApiServerKind(config.url, config.app_name)


def _a2a(config: RemoteAgentConfig) -> Kind:
    try:
        from .a2a import A2aKind
    except ImportError as exc:
        raise DependencyError(f"kind a2a needs the a2a-sdk; install the extra: pip install 'agenteval-ci[a2a]' ({exc})") from None
    return A2aKind(config.url)


def _agent_engine(config: RemoteAgentConfig) -> Kind:
    from .agent_engine import AgentEngineKind

    return AgentEngineKind(config.url)


KINDS: dict[str, Callable[[RemoteAgentConfig], Kind]] = {
    "http": _json_contract,
    "adk_api_server": _adk_api_server,
    "a2a": _a2a,
    "agent_engine": _agent_engine,
}
# Kinds whose service is a Google API: `auth: google` by default, with an access token.
GOOGLE_API_KINDS = ("agent_engine",)


@runtime_checkable
class DeploymentCheck(Protocol):
    """A kind that can tell, before any run, whether its deployment exists (AgentUnusable if not)."""

    async def check(self, http: AgentHttp) -> None: ...

# Started ADK servers record content in spans and use the schema whose spans carry the exact
# model request (app_details as an in-process run records them) unless the user chose otherwise.
_ADK_TRACE_ENV = {"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1", "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS": "true"}
_CONTENT_ENV = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"}
# Started ADK servers keep sessions and artifacts in memory: google-adk's default store is
# `.adk/session.db` inside the agent's folder, a file in the user's tree that every run changes
# (some samples even commit it). An ADK without local storage ignores the variable.
_ADK_SERVER_ENV = {"ADK_DISABLE_LOCAL_STORAGE": "1"}


def expand(value: str, where: str, env: dict[str, str]) -> str:
    """`${NAME}` from our environment; an unset one is an error (a header must not go out empty)."""
    def one(match: re.Match[str]) -> str:
        name = match[1]
        if name not in env:
            raise UsageError(f"{where}: ${{{name}}} is not set in the environment")
        return env[name]

    return ENV_REFERENCE.sub(one, value)


def _expanded_url(config: RemoteAgentConfig, where: str, env: dict[str, str]) -> RemoteAgentConfig:
    """The config with `url`'s `${VAR}`s filled in, checked as a written URL is."""
    if not ENV_REFERENCE.search(config.url):
        return config
    url = expand(config.url, f"{where}.url", env)
    try:
        check_http_url(url)
    except ValueError as exc:
        raise UsageError(f"{where}.url: {exc}") from None
    return config.model_copy(update={"url": url})


class RemoteAgent:
    """Loading checks the config (a `${VAR}` that is not set is an error now); nothing is bound
    or started until the first run, so an agent that never runs holds nothing to release."""

    def __init__(self, config: RemoteAgentConfig, base_dir: Path, workers: int, where: str = "agent", turn_timeout: float = 300.0):
        self._ours = dict(os.environ)
        self.config = config = _expanded_url(config, where, self._ours)
        self._turn_timeout = turn_timeout
        self._base_dir = base_dir
        self._kind = KINDS[config.kind](config)
        headers = {name: expand(value, f"{where}.headers.{name}", self._ours) for name, value in config.headers.items()}
        self._suite_env = {name: expand(value, f"{where}.env.{name}", self._ours) for name, value in config.env.items()}
        self._receiver = OtlpReceiver(config.otlp_port) if config.traces else None
        self._process: Optional[AgentProcess] = None
        self.tokens = self._tokens()
        auth = BearerAuth(self.tokens, config.url) if self.tokens else None
        self.http = AgentHttp(headers, workers, self._gone, auth, self._credential)
        self._up: Optional[asyncio.Task[None]] = None

    def _tokens(self) -> Optional[Tokens]:
        config = self.config
        google_api = config.kind in GOOGLE_API_KINDS
        own_authorization = any(name.lower() == "authorization" for name in config.headers)
        auth = config.auth or ("google" if google_api and not own_authorization else None)
        if auth is None:
            return None
        return Tokens(token_source(auth, config.url, self._base_dir, self._ours, access_token=google_api))

    def _credential(self) -> str:
        """Which credential requests carry, for messages: never its value."""
        if self.tokens:
            return self.tokens.credential
        if self.config.headers:
            return f"the headers {', '.join(self.config.headers)} of agenteval.yaml"
        return "none (set the agent's `auth` or `headers`)"

    @contextlib.contextmanager
    def _tokens_hidden(self) -> Iterator[None]:
        """A failure's message never shows a token: a server may echo the request in its answer."""
        try:
            yield
        except RemoteAgentError as exc:
            if not self.tokens:
                raise
            raise RemoteAgentError(self.tokens.redact(str(exc))) from None

    def _agent_process(self, start: str) -> AgentProcess:
        config = self.config
        env: dict[str, str] = {}
        port = urlsplit(config.url).port
        if port:
            env["PORT"] = str(port)
        if self._receiver:
            env.update(self._receiver_env())
        if config.kind == "adk_api_server":
            env.update(self._unless_set(_ADK_SERVER_ENV))
        env.update(self._suite_env)
        cwd = self._base_dir / (config.cwd or ".")
        return AgentProcess(start, cwd, agent_environment(self._ours, env), self._base_dir / LOG_FILE, config.stop_timeout_seconds)

    def _receiver_env(self) -> dict[str, str]:
        assert self._receiver is not None
        env = self._receiver.exporter_env()
        env.update(self._unless_set({**_CONTENT_ENV, **(_ADK_TRACE_ENV if self.config.kind == "adk_api_server" else {})}))
        return env

    def _unless_set(self, defaults: dict[str, str]) -> dict[str, str]:
        """Our defaults for the agent, except those the user's environment already chose."""
        return {name: value for name, value in defaults.items() if name not in self._ours}

    def _gone(self) -> Optional[str]:
        return self._process.exit_reason() if self._process else None

    # ---- lifecycle

    async def start(self, case: EvalCase, run_index: int) -> "RemoteConversation":
        if self._up is None:
            self._up = asyncio.ensure_future(self._bring_up())
        await asyncio.shield(self._up)  # one start for all runs; its failure fails each of them
        gone = self._gone()
        if gone:
            raise RemoteAgentError(f"the agent's server is gone: {gone}")
        session = Session.of(case, run_index, self.http)
        with self._tokens_hidden():
            await self._open(session, case)
        return RemoteConversation(self, session)

    async def _open(self, session: Session, case: EvalCase) -> None:
        """The kind's session set-up, bounded as a turn is (a server may accept and never answer)."""
        try:
            await asyncio.wait_for(self._kind.open(session, case), self._turn_timeout)
        except asyncio.TimeoutError:
            raise RemoteAgentError(f"opening the session: no answer within {self._turn_timeout:g}s (the suite's turn_timeout_seconds)") from None

    async def _bring_up(self) -> None:
        if self._receiver:
            self._start_receiver(self._receiver)
        if self.config.start:
            guard_exits()
            self._process = self._agent_process(self.config.start)
            try:
                self._process.start()
            except OSError as exc:
                raise RemoteAgentError(f"cannot start the agent with `{self.config.start}`: {exc}") from None
        await self._wait_ready()
        if isinstance(self._kind, DeploymentCheck):
            await self._kind.check(self.http)

    def _start_receiver(self, receiver: OtlpReceiver) -> None:
        try:
            receiver.start()
        except OSError as exc:
            where = f"otlp_port {self.config.otlp_port}" if self.config.otlp_port else "a free port"
            raise RemoteAgentError(f"the OTLP receiver cannot listen on 127.0.0.1 ({where}): {exc}") from None

    async def _wait_ready(self) -> None:
        """Until the ready check passes, the started command exits, or the timeout."""
        config = self.config
        deadline = time.monotonic() + config.ready_timeout_seconds
        probe = self._ready_probe()
        last = "no attempt"
        for attempt in range(1_000_000):
            gone = self._gone()
            if gone:
                raise RemoteAgentError(f"the agent never became ready: {gone}")
            last = await probe()
            if not last:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                started = f" (started with `{config.start}`; its output is in {LOG_FILE.as_posix()})" if config.start else ""
                raise RemoteAgentError(f"the agent at {config.url} was not ready within {config.ready_timeout_seconds:g}s: {last}{started}")
            await asyncio.sleep(min(READY_POLL[min(attempt, len(READY_POLL) - 1)], left))

    def _ready_probe(self) -> Callable[[], Any]:
        """A coroutine function answering "" when ready, else why not."""
        path = self.config.ready or self._kind.default_ready
        if path is None:
            return self._tcp_probe
        url = path if not path.startswith("/") else joined(_origin(self.config.url), path)

        async def http_probe() -> str:
            try:
                response = await self.http.probe(url, self.config.url, timeout=2.0)
            except RemoteAgentError:  # no token to send: waiting will not make one
                raise
            except Exception as exc:  # any failure is "not ready yet"
                return f"GET {url}: {type(exc).__name__}: {exc}"
            if response.status_code in REFUSED:
                raise RemoteAgentError(self._refused(url, response.status_code))
            return "" if response.is_success else f"GET {url} answered HTTP {response.status_code}"

        return http_probe

    def _refused(self, url: str, status: int) -> str:
        """What to set when the ready check is refused: the credentials, or a check needing none."""
        config = self.config
        if not same_origin(url, config.url):
            fix = "the agent's `headers` go only to its own server: point `ready` at a check there, or one that needs no credentials"
        elif config.auth:
            fix = f"the token was refused ({self._credential()}): check the credential's access to the service"
        elif config.headers:
            fix = f"the agent's headers ({', '.join(config.headers)}) were refused: check their values"
        else:
            fix = "set the credentials it asks for in the agent's `headers` (e.g. `Authorization: Bearer ${AGENT_TOKEN}`)"
        return f"the agent at {config.url} refused the ready check: GET {url} answered HTTP {status}; {fix}"

    async def _tcp_probe(self) -> str:
        parts = urlsplit(self.config.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), 2.0)
        except (OSError, asyncio.TimeoutError) as exc:
            return f"nothing accepts connections on {parts.hostname}:{port} ({exc or type(exc).__name__})"
        writer.close()
        return ""

    async def aclose(self) -> None:
        """In the run's loop, however it ended: the connection pool is closed."""
        await self.http.close()

    def close(self) -> None:
        """Every exit path: the server's group and the receiver are stopped."""
        try:
            if self._process:
                self._process.stop()
        finally:
            if self._receiver:
                self._receiver.stop()

    # ---- turns

    async def final_state(self, session: Session) -> Optional[dict[str, Any]]:
        """The kind's account of the state, bounded as a turn is."""
        try:
            return await asyncio.wait_for(self._kind.final_state(session), self._turn_timeout)
        except asyncio.TimeoutError:
            raise RemoteAgentError(f"reading the session state: no answer within {self._turn_timeout:g}s (the suite's turn_timeout_seconds)") from None

    async def play(self, session: Session, user_content: Content, number: int) -> tuple[Invocation, bool]:
        """The turn's invocation, and whether it could show texts between tool calls: only an
        agent's own events (ADK's server) hold them; a JSON reply, a task or a trace do not."""
        started = time.monotonic()
        context = TurnContext(number)
        with self._tokens_hidden():
            record = await self._kind.turn(session, user_content, context)
        if self._receiver:
            record = self._with_trace(record, await self._trace(session, context))
        elif self.config.trajectory == "auto" and record.steps is None:
            record.steps = []
        texts_reported = record.recorded is not None or not record.steps
        return to_invocation(user_content, record, time.monotonic() - started), texts_reported

    async def _trace(self, session: Session, context: TurnContext) -> TurnRecord:
        assert self._receiver is not None
        query = TurnQuery(context.trace_id, context.span_id, session.trace_session_id)
        try:
            spans = await self._receiver.store.wait_turn(query, self.config.trace_timeout_seconds)
            return turn_from_spans(spans)
        except (TraceMissing, TraceContentMissing) as exc:
            raise RemoteAgentError(str(exc)) from None

    def _with_trace(self, record: TurnRecord, traced: TurnRecord) -> TurnRecord:
        """The reply's own account first; the trace fills in what it did not say."""
        source = self.config.trajectory
        if source == "traces" or (source == "auto" and record.steps is None):
            record.steps = traced.steps
        record.steps = record.steps or []
        record.usage = record.usage if record.usage is not None else traced.usage
        record.app_details = record.app_details or traced.app_details
        record.invocation_id = record.invocation_id or traced.invocation_id
        return record


class RemoteConversation:
    def __init__(self, agent: RemoteAgent, session: Session):
        self._agent = agent
        self._session = session
        self._turns = 0
        self._unreported: dict[str, None] = {}

    async def send(self, user_content: Content) -> Invocation:
        self._turns += 1
        invocation, texts_reported = await self._agent.play(self._session, user_content, self._turns)
        if not texts_reported:
            self._unreported[INTERMEDIATE_TEXTS] = None
        return invocation

    def unreported(self) -> list[str]:
        """What the judges read that the agent's replies could not hold (texts between calls)."""
        return list(self._unreported)

    async def final_state(self) -> Optional[dict[str, Any]]:
        return await self._agent.final_state(self._session)

    async def close(self) -> None:
        pass


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def load_remote_agent(config: RemoteAgentConfig, base_dir: Path, workers: int, where: str = "agent", turn_timeout: float = 300.0) -> RemoteAgent:
    return RemoteAgent(config, base_dir, workers, where, turn_timeout)


__all__ = ["KINDS", "RemoteAgent", "RemoteAgentError", "load_remote_agent"]
