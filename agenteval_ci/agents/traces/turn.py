"""One turn as seen from outside the agent, and the Invocation it becomes.

The events follow ADK's layout (a call event by the agent, then its response event), so every
metric reads a remote turn as it reads an in-process one: tool_uses from function_call parts,
token usage from events' usage_metadata, one model call per usage record.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Optional

import pydantic
from pydantic import ConfigDict, Field

from ...schema import AppDetails, Content, FunctionCall, FunctionResponse, Invocation, InvocationEvent, InvocationEvents, Part, UsageMetadata

DEFAULT_AUTHOR = "agent"


@dataclass(frozen=True)
class ToolStep:
    name: str
    args: dict[str, Any]
    response: Optional[dict[str, Any]] = None  # None: the reply did not say
    call_id: Optional[str] = None
    agent: Optional[str] = None


@dataclass
class TurnRecord:
    """What one user turn did. `steps`/`usage` None: the source said nothing about them."""

    final_text: Optional[str] = None
    steps: Optional[list[ToolStep]] = None
    usage: Optional[list[UsageMetadata]] = None
    app_details: Optional[AppDetails] = None
    invocation_id: Optional[str] = None
    author: Optional[str] = None
    model_version: Optional[str] = None
    recorded: Optional[Invocation] = None  # the agent's own events, already an invocation (ADK's server)


def as_response(value: Any) -> dict[str, Any]:
    """A tool's result as ADK records it: a dict as is, anything else under `result`."""
    return value if isinstance(value, dict) else {"result": value}


def usage_record(input_tokens: Optional[int], output_tokens: Optional[int]) -> UsageMetadata:
    total = (input_tokens or 0) + (output_tokens or 0) if input_tokens is not None or output_tokens is not None else None
    return UsageMetadata(prompt_token_count=input_tokens, candidates_token_count=output_tokens, total_token_count=total)


class UsageReply(pydantic.BaseModel):
    """One model call's tokens, as an agent's reply reports them (the JSON contract, a callable)."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: Optional[int] = Field(default=None, ge=0)
    output_tokens: Optional[int] = Field(default=None, ge=0)


def _one_per_call(value: Any) -> Any:
    """One object is the turn's only model call (a list, not a union: an error's path stays the reply's)."""
    return [value] if isinstance(value, dict) else value


# `usage`: one object, or a list, one per model call of the turn
UsageField = Annotated[Optional[list[UsageReply]], pydantic.BeforeValidator(_one_per_call)]
ModelField = Optional[Annotated[str, Field(min_length=1, max_length=200)]]  # the model the usage is of: what prices it


def usage_records(usage: Optional[list[UsageReply]]) -> Optional[list[UsageMetadata]]:
    """A reply's `usage` as one record per model call; None when it reported none (an empty list too)."""
    return [usage_record(u.input_tokens, u.output_tokens) for u in usage or []] or None


def usage_events(usage: Optional[list[UsageMetadata]], author: str, model: Optional[str]) -> list[InvocationEvent]:
    """One event per model call, as ADK's final-response events carry its usage."""
    return [InvocationEvent(author=author, usage_metadata=u, model_version=model) for u in usage or []]


def _step_events(step: ToolStep, author: str) -> list[InvocationEvent]:
    call = FunctionCall(id=step.call_id, name=step.name, args=step.args)
    events = [InvocationEvent(author=step.agent or author, content=Content(role="model", parts=[Part(function_call=call)]))]
    if step.response is not None:
        response = FunctionResponse(id=step.call_id, name=step.name, response=step.response)
        events.append(InvocationEvent(author=step.agent or author, content=Content(role="user", parts=[Part(function_response=response)])))
    return events


def to_invocation(user_content: Content, turn: TurnRecord, duration: float) -> Invocation:
    if turn.recorded is not None:
        return turn.recorded.model_copy(update={"app_details": turn.recorded.app_details or turn.app_details, "duration": round(duration, 3)})
    author = turn.author or DEFAULT_AUTHOR
    events: list[InvocationEvent] = []
    for step in turn.steps or []:
        events.extend(_step_events(step, author))
    events.extend(usage_events(turn.usage, author, turn.model_version))
    return Invocation(
        invocation_id=turn.invocation_id or str(uuid.uuid4()),
        user_content=user_content,
        final_response=Content.from_text(turn.final_text, "model") if turn.final_text is not None else None,
        intermediate_data=InvocationEvents(invocation_events=events),
        creation_timestamp=time.time(),
        duration=round(duration, 3),
        app_details=turn.app_details,
    )
