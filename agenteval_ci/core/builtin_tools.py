"""`builtin_tools: count`: the built-in tools the model ran become tool calls of the turn, so the
trajectory metrics count them (docs/metrics.md, "Built-in tools"). Off by default: ADK's scores."""

from __future__ import annotations

from ..schema import Content, FunctionCall, Invocation, InvocationEvent, InvocationEvents, Part
from ..schema.eval_set import BuiltinToolUse, IntermediateData, code_uses, grounding_uses


def _call_event(uses: list[BuiltinToolUse], author: str) -> list[InvocationEvent]:
    """One event calling each built-in tool by ADK's name, with no arguments (its queries or code
    are what the model wrote, not what a case can expect word for word)."""
    if not uses:
        return []
    parts = [Part(function_call=FunctionCall(name=use.name, args={})) for use in uses]
    return [InvocationEvent(author=author, content=Content(role="model", parts=parts))]


def counted(invocation: Invocation) -> Invocation:
    """The turn with its built-in tool uses as tool calls, each where the model ran it."""
    if not invocation.builtin_tool_uses:
        return invocation
    data = invocation.intermediate_data
    if isinstance(data, IntermediateData):
        calls = [FunctionCall(name=use.name, args={}) for use in invocation.builtin_tool_uses]
        return invocation.model_copy(update={"intermediate_data": data.model_copy(update={"tool_uses": [*data.tool_uses, *calls]})})
    events: list[InvocationEvent] = []
    for event in data.invocation_events if isinstance(data, InvocationEvents) else []:
        events.append(event)
        uses = (code_uses(event.content.parts or []) if event.content else []) + grounding_uses(event.grounding_metadata)
        events += _call_event(uses, event.author)
    final = invocation.final_response
    events += _call_event(code_uses(final.parts or [] if final else []), events[-1].author if events else "model")
    return invocation.model_copy(update={"intermediate_data": InvocationEvents(invocation_events=events)})
