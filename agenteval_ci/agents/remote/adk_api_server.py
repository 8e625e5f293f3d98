"""`kind: adk_api_server`: ADK's own HTTP server (`adk api_server`, and the same API served by
ADK for Java, Go or TypeScript).

Each case run creates a session holding the case's initial state; each turn is POST /run, whose
events become the invocation through the very code that records an in-process ADK run (so the
trajectory, intermediate responses, authors and usage are recorded the same way). app_details
are not in /run's answer: with `traces: true` they come from the model spans.
"""

from __future__ import annotations

import re
import time
from typing import Any, Optional
from urllib.parse import quote

import pydantic
from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

from ...schema import Content, EvalCase, FunctionCall
from ..adk import events_to_invocation
from ..traces.turn import TurnRecord
from .http import RemoteAgentError, checked, joined, parse_reply
from .session import Session, TurnContext


class _Lenient(pydantic.BaseModel):
    """What the server sends, camelCase or snake_case; keys we do not read are ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class _Raw(pydantic.BaseModel):
    """JSON kept as it came (snake_case keys, as an in-process run dumps the same object)."""

    model_config = ConfigDict(extra="allow")

    @pydantic.model_validator(mode="before")
    @classmethod
    def _snake_keys(cls, value: Any) -> Any:
        return _snake(value)


class _Actions(_Lenient):
    skip_summarization: Optional[bool] = None


class ServerEvent(_Lenient):
    """An ADK Event as /run answers it, with the two methods the recorder asks of one."""

    author: str = ""
    invocation_id: str = ""
    content: Optional[Content] = None
    grounding_metadata: Optional[_Raw] = None
    usage_metadata: Optional[_Raw] = None
    model_version: Optional[str] = None
    partial: Optional[bool] = None
    error_code: Optional[str] = None
    long_running_tool_ids: Optional[list[str]] = None
    actions: _Actions = pydantic.Field(default_factory=_Actions)

    @pydantic.field_validator("content", mode="before")
    @classmethod
    def _content(cls, value: Any) -> Any:
        return Content.model_validate(value) if isinstance(value, dict) else value

    def get_function_calls(self) -> list[FunctionCall]:
        return [p.function_call for p in (self.content.parts or []) if p.function_call] if self.content else []

    def _function_responses(self) -> list[Any]:
        return [p.function_response for p in (self.content.parts or []) if p.function_response] if self.content else []

    def is_final_response(self) -> bool:
        """google-adk's Event.is_final_response, on the JSON."""
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        if self.error_code and not self.partial and not self.get_function_calls():
            return True
        trailing_code_result = bool(self.content and self.content.parts and self.content.parts[-1].code_execution_result is not None)
        return not self.get_function_calls() and not self._function_responses() and not self.partial and not trailing_code_result


class _Events(pydantic.RootModel[list[ServerEvent]]):
    pass


class _CreatedSession(_Lenient):
    id: str


class _StoredSession(_Lenient):
    state: dict[str, Any] = pydantic.Field(default_factory=dict)


class AdkApiServerKind:
    default_ready = "/list-apps"  # in every release of the API

    def __init__(self, url: str, app_name: Optional[str]):
        self.url = url
        self.app_name = app_name

    def _app(self, session: Session) -> str:
        if self.app_name:
            return self.app_name
        if session.given:
            return session.app_name
        raise RemoteAgentError("the case has no session_input.app_name and the suite's agent gives no app_name (the agent folder's name on the server)")

    async def open(self, session: Session, case: EvalCase) -> None:
        """A session with the case's id-less initial state: POST .../sessions, or, on a server
        without it, the older POST .../sessions/{id}."""
        app = self._app(session)
        base = joined(self.url, f"apps/{quote(app, safe='')}/users/{quote(session.user_id, safe='')}/sessions")
        what = "creating the session"
        response = await session.http.request("POST", base, what, json={"sessionId": session.session_id, "state": session.state})
        if response.status_code in (404, 405, 422) or (response.is_success and _created_id(response) != session.session_id):
            with_id = f"{base}/{quote(session.session_id, safe='')}"
            data = await session.http.post_json(with_id, session.state, what)
            created = parse_reply(_CreatedSession, data, f"POST {with_id}", what)
            if created.id != session.session_id:
                raise RemoteAgentError(f"{what}: POST {with_id} created session {created.id!r}, not {session.session_id!r}")
        else:
            checked(response, what)

    async def final_state(self, session: Session) -> Optional[dict[str, Any]]:
        """GET the session after the case: its state as the server's session service holds it."""
        url = self._session_url(session)
        what = "reading the session state"
        data = await session.http.get_json(url, what)
        return parse_reply(_StoredSession, data, f"GET {url}", what).state

    def _session_url(self, session: Session) -> str:
        path = f"apps/{quote(self._app(session), safe='')}/users/{quote(session.user_id, safe='')}/sessions/{quote(session.session_id, safe='')}"
        return joined(self.url, path)

    async def turn(self, session: Session, user_content: Content, context: TurnContext) -> TurnRecord:
        url = joined(self.url, "run")
        body = {
            "appName": self._app(session), "userId": session.user_id, "sessionId": session.session_id,
            "newMessage": user_content.model_dump(mode="json", by_alias=True, exclude_none=True), "streaming": False,
        }
        started = time.monotonic()
        data = await session.http.post_json(url, body, "", headers=context.headers)
        events = parse_reply(_Events, data, f"POST {url}", "").root
        invocation = events_to_invocation(user_content, events, time.monotonic() - started)
        return TurnRecord(recorded=invocation)


def _created_id(response: Any) -> Optional[str]:
    try:
        return str(response.json().get("id"))
    except (ValueError, AttributeError):
        return None


_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _snake(value: Any) -> Any:
    if isinstance(value, dict):
        return {_CAMEL.sub(r"_\1", k).lower() if isinstance(k, str) else k: _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value
