"""`kind: http`: our plain JSON-over-HTTP contract (docs/agents.md, "The JSON contract").

Each user turn is one POST to the configured URL:

    {"session_id": "...", "message": "user text", "parts": [{"text": ...}, {"inline_data": {...}}, ...], "state": {...},
     "case_id": "...", "run": 0, "turn": 1, "app_name": "...", "user_id": "..."}

and the reply is

    {"response": "final text",
     "tool_calls": [{"name": "...", "args": {...}, "response": {...}}],   # optional
     "usage": {"input_tokens": 0, "output_tokens": 0},                    # optional, or a list per model call
     "model": "gemini-2.5-flash",                                         # optional: prices the usage
     "state": {...}}                                                      # optional: sent with the next turn;
                                                                          # the last one is the final session state
"""

from __future__ import annotations

from typing import Any, Optional

import pydantic
from pydantic import ConfigDict, Field

from ...schema import Content, EvalCase
from ..parts import turn_parts
from ..traces.turn import ModelField, ToolStep, TurnRecord, UsageField, as_response, usage_records
from .http import parse_reply
from .session import Session, TurnContext


class _Contract(pydantic.BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCallReply(_Contract):
    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    response: Any = None  # any JSON; a non-object is recorded as {"result": value}, as ADK does
    id: Optional[str] = None
    agent: Optional[str] = None


class TurnReply(_Contract):
    response: str
    tool_calls: Optional[list[ToolCallReply]] = None
    usage: UsageField = None
    state: Optional[dict[str, Any]] = None
    model: ModelField = None
    agent: Optional[str] = None  # the author of the answer (default "agent")
    metadata: Any = None  # free for the agent; ignored


def request_body(session: Session, user_content: Content, turn: int) -> dict[str, Any]:
    body: dict[str, Any] = {
        "session_id": session.session_id, "message": user_content.text, "parts": turn_parts(user_content), "state": session.state,
        "case_id": session.case_id, "run": session.run_index, "turn": turn,
    }
    if session.given:
        body.update(app_name=session.app_name, user_id=session.user_id)
    return body


def turn_record(reply: TurnReply) -> TurnRecord:
    steps = None
    if reply.tool_calls is not None:
        steps = [
            ToolStep(c.name, c.args, as_response(c.response) if "response" in c.model_fields_set else None, c.id, c.agent)
            for c in reply.tool_calls
        ]
    return TurnRecord(
        final_text=reply.response,
        steps=steps,
        usage=usage_records(reply.usage),
        author=reply.agent,
        model_version=reply.model,
    )


class JsonContractKind:
    """Stateless between turns but for the state the agent hands back."""

    default_ready = None  # a TCP connection to the URL's port

    def __init__(self, url: str):
        self.url = url

    async def open(self, session: Session, case: EvalCase) -> None:
        pass

    async def turn(self, session: Session, user_content: Content, context: TurnContext) -> TurnRecord:
        what = ""  # runner/suites.py names the turn
        data = await session.http.post_json(self.url, request_body(session, user_content, context.number), what, headers=context.headers)
        reply = parse_reply(TurnReply, data, f"POST {self.url}", what)
        if reply.state is not None:
            session.state = reply.state
            session.state_reported = True
        return turn_record(reply)

    async def final_state(self, session: Session) -> Optional[dict[str, Any]]:
        """The last `state` the agent replied with; an agent that never sent one did not report it."""
        return session.state if session.state_reported else None
