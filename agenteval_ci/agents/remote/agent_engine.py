"""`kind: agent_engine`: an ADK app deployed to Vertex AI Agent Engine, through the engine's REST
API as google-cloud-aiplatform's client calls it (its reasoning_engine_execution_service):

    POST {engine}:query        {"classMethod": "async_create_session", "input": {"user_id", "state"}}
                               -> {"output": the session, its "id" chosen by the engine}
    POST {engine}:streamQuery  {"classMethod": "async_stream_query", "input": {"message", "user_id", "session_id"}}
                               -> one ADK Event per line (JSON, or SSE `data:` lines)
    POST {engine}:query        {"classMethod": "async_get_session", "input": {"user_id", "session_id"}}
                               -> {"output": the session, its "state"} (only when a metric reads the final state)

The events become the invocation through the code that records an in-process ADK run, as for
ADK's own server (adk_api_server.py), so the scores are the in-process run's. Engines deployed
before AdkApp's async methods answer to `create_session` / `stream_query`: the first session
tells which. Authenticated with an access token (`auth: google` unless another is set).
"""

from __future__ import annotations

import json
import time
from typing import Any, Optional

import pydantic

from ...errors import AgentUnusable
from ...schema import Content, EvalCase
from ..adk import events_to_invocation
from ..traces.turn import TurnRecord
from .adk_api_server import ServerEvent
from .http import MAX_REPLY_BYTES, AgentHttp, RemoteAgentError, checked, parse_reply, reply_json
from .session import Session, TurnContext

# The AdkApp's method names: today's, then those of engines deployed before its async methods.
METHODS = (("async_create_session", "async_stream_query", "async_get_session"), ("create_session", "stream_query", "get_session"))


class _Reply(pydantic.BaseModel):
    """What the engine answers; keys we do not read are ignored."""

    model_config = pydantic.ConfigDict(extra="ignore")


class _Output(_Reply):
    output: dict[str, Any]


class _CreatedSession(_Reply):
    id: str = pydantic.Field(min_length=1)


class _StoredSession(_Reply):
    state: dict[str, Any] = pydantic.Field(default_factory=dict)


class AgentEngineKind:
    default_ready = None  # a TCP connection; `check` then asks for the engine itself

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self._methods = METHODS[0]

    async def check(self, http: AgentHttp) -> None:
        """The engine exists where the config says: a wrong name or region is the user's to fix
        (exit 2), not a failure of each run."""
        response = await http.request("GET", self.url, "finding the Agent Engine")
        if response.status_code in (400, 404):
            raise AgentUnusable(
                f"agent: no Agent Engine at {self.url}: GET answered HTTP {response.status_code} "
                f"({_message(response.text)}); check the resource name (projects/P/locations/L/reasoningEngines/ID) "
                "and that the URL's region is the location in it"
            )
        checked(response, "finding the Agent Engine")

    async def open(self, session: Session, case: EvalCase) -> None:
        """A session holding the case's initial state; the engine picks its id."""
        for methods in (self._methods, *[m for m in METHODS if m != self._methods]):
            body = {"classMethod": methods[0], "input": {"user_id": session.user_id, "state": session.state}}
            response = await session.http.request("POST", f"{self.url}:query", "creating the session", json=body)
            if response.status_code == 400 and methods[0] in response.text and methods != METHODS[-1]:
                continue  # an engine without this method: the older names
            reply = parse_reply(_Output, reply_json(checked(response, "creating the session"), f"POST {self.url}:query", "creating the session"),
                                f"POST {self.url}:query", "creating the session")
            session.session_id = parse_reply(_CreatedSession, reply.output, f"POST {self.url}:query", "creating the session").id
            self._methods = methods
            return

    async def final_state(self, session: Session) -> Optional[dict[str, Any]]:
        """The session's state after the case, as the engine's session service holds it."""
        what = "reading the session state"
        body = {"classMethod": self._methods[2], "input": {"user_id": session.user_id, "session_id": session.session_id}}
        response = await session.http.request("POST", f"{self.url}:query", what, json=body)
        reply = parse_reply(_Output, reply_json(checked(response, what), f"POST {self.url}:query", what), f"POST {self.url}:query", what)
        return parse_reply(_StoredSession, reply.output, f"POST {self.url}:query", what).state

    async def turn(self, session: Session, user_content: Content, context: TurnContext) -> TurnRecord:
        url = f"{self.url}:streamQuery"
        message = user_content.model_dump(mode="json", exclude_none=True)
        body = {"classMethod": self._methods[1], "input": {"message": message, "user_id": session.user_id, "session_id": session.session_id}}
        started = time.monotonic()
        response = await session.http.send("POST", url, "", json=body, headers=context.headers)
        if len(response.content) > MAX_REPLY_BYTES:
            raise RemoteAgentError(f"POST {url} answered {len(response.content):,} bytes; the limit is {MAX_REPLY_BYTES:,}")
        events = [_event(line, number, url) for number, line in _lines(response.text)]
        return TurnRecord(recorded=events_to_invocation(user_content, events, time.monotonic() - started))


def _lines(text: str) -> list[tuple[int, str]]:
    """The stream's JSON lines (newline-delimited, or SSE `data:` lines), numbered from 1."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("data:"):
            line = line[len("data:"):].strip()
        if line and not line.startswith((":", "event:", "id:", "retry:")):
            found.append((number, line))
    return found


def _event(line: str, number: int, url: str) -> ServerEvent:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise RemoteAgentError(f"POST {url}: line {number} of the stream is not JSON ({exc})") from None
    if isinstance(data, dict) and "error" in data and "author" not in data:  # the engine's error, sent in the stream
        raise RemoteAgentError(f"POST {url}: the engine answered an error at line {number}: {_message(json.dumps(data['error']))}")
    return parse_reply(ServerEvent, data, f"POST {url} (line {number} of the stream)", "")


def _message(text: str) -> str:
    """Google's error body's message, else the body's start."""
    try:
        message: Optional[Any] = json.loads(text).get("error", {}).get("message")
    except (ValueError, AttributeError):
        message = None
    shown = str(message) if message else " ".join(text.split())
    return shown[:300] or "(empty body)"
