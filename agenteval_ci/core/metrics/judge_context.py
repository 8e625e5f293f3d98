"""What a judge sees of the agent itself: its instructions and tool declarations, as the
invocation's `app_details` recorded them (google-adk 2.13's AppDetails), and the grounding
metadata of its events.

Each judged metric picks the parts its ADK evaluator reads (docs/metrics.md has the table).
Without `app_details` a section says it was not recorded, and the metric's result lists what
the judge went without (`MetricRun.judged_without`), so a blind verdict is never silent: so
are tool calls without a recorded response, and texts between calls the agent could not report.

Declarations are rendered as compact JSON with null fields dropped: the same fields ADK
sends, fewer tokens, and the same text (so the same judge cache key) whether the invocation
came from a live run or from a results file.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from ...schema import AgentDetails, AppDetails, Invocation, InvocationEvent, InvocationEvents, MetricRun

NOT_RECORDED = "(not recorded: this turn carries no app_details)"
NO_INSTRUCTIONS = "(none)"
INSTRUCTIONS = "instructions"
TOOL_DECLARATIONS = "tool_declarations"
TOOL_RESPONSES = "tool_responses"
INTERMEDIATE_TEXTS = "intermediate_texts"
MEDIA = "media"  # images and files in the conversation: the judges' prompts are text only, as ADK's
APP_DETAILS = (INSTRUCTIONS, TOOL_DECLARATIONS)


def without_nulls(value: Any) -> Any:
    """`value` with every null object field removed, recursively (ADK drops unset fields)."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def compact_json(value: Any) -> str:
    return json.dumps(without_nulls(value), ensure_ascii=False, separators=(",", ":"), default=str)


# ---- one invocation


def all_instructions(app: Optional[AppDetails]) -> str:
    """Every agent's instructions, each under its name (agents without any are left out)."""
    if app is None:
        return NOT_RECORDED
    return _instruction_blocks((name, details.instructions) for name, details in app.agent_details.items())


def responding_agent_instructions(invocation: Invocation) -> str:
    """ADK's final-response rubric: the instructions of the agent that wrote the turn's first
    event, else of the first agent recorded."""
    app = invocation.app_details
    if app is None:
        return NOT_RECORDED
    data = invocation.intermediate_data
    first_author = data.invocation_events[0].author if isinstance(data, InvocationEvents) and data.invocation_events else None
    name = first_author if first_author in app.agent_details else next(iter(app.agent_details), None)
    if name is None:
        return NO_INSTRUCTIONS
    return app.agent_details[name].instructions or NO_INSTRUCTIONS


def declarations(app: Optional[AppDetails]) -> str:
    """Every agent's tool declarations, as one JSON object keyed by agent name."""
    if app is None:
        return NOT_RECORDED
    return compact_json({name: details.tool_declarations for name, details in app.agent_details.items()})


def grounding(events: list[InvocationEvent]) -> str:
    """The events' grounding metadata (search results the model was given), or nothing."""
    entries = [
        {"step": index, "author": event.author, "grounding_metadata": event.grounding_metadata}
        for index, event in enumerate(events)
        if event.grounding_metadata
    ]
    return compact_json(entries) if entries else ""


def events_of(invocation: Invocation) -> list[InvocationEvent]:
    data = invocation.intermediate_data
    return list(data.invocation_events) if isinstance(data, InvocationEvents) else []


# ---- a whole conversation (the multi-turn metrics read every turn's app_details)


def conversation_agents(invocations: list[Invocation]) -> list[AgentDetails]:
    """Every distinct agent record over the turns, in order of first appearance (an agent whose
    instructions changed between turns, say through session state, appears once per version)."""
    seen: dict[str, AgentDetails] = {}
    for invocation in invocations:
        for details in (invocation.app_details.agent_details.values() if invocation.app_details else []):
            seen.setdefault(details.instructions + "\0" + details.name + "\0" + compact_json(details.tool_declarations), details)
    return list(seen.values())


def conversation_instructions(invocations: list[Invocation]) -> str:
    if not any(i.app_details for i in invocations):
        return NOT_RECORDED
    return _instruction_blocks((d.name, d.instructions) for d in conversation_agents(invocations))


def conversation_declarations(invocations: list[Invocation]) -> str:
    """Each agent's full declarations, from its first record (as ADK passes agents to Vertex)."""
    if not any(i.app_details for i in invocations):
        return NOT_RECORDED
    first: dict[str, list[Any]] = {}
    for details in conversation_agents(invocations):
        first.setdefault(details.name, details.tool_declarations)
    return compact_json(first)


def conversation_tool_summaries(invocations: list[Invocation]) -> str:
    """Per agent, one `- name: description` line per declared function (ADK's multi-turn
    trajectory rubric sends no parameters), each line once."""
    if not any(i.app_details for i in invocations):
        return NOT_RECORDED
    lines: dict[str, None] = {}
    for details in conversation_agents(invocations):
        lines[f"{details.name}:"] = None
        for function in _functions(details.tool_declarations):
            lines[f"- {function.get('name')}: {function.get('description') or ''}".rstrip()] = None
    return "\n".join(lines) or NO_INSTRUCTIONS


def _functions(tools: list[Any]) -> Iterable[dict[str, Any]]:
    for tool in tools:
        if isinstance(tool, dict):
            found = tool.get("function_declarations") or tool.get("functionDeclarations") or []
            yield from (f for f in found if isinstance(f, dict))


def _instruction_blocks(pairs: Iterable[tuple[str, str]]) -> str:
    blocks = dict.fromkeys(f"[{name}]\n{text}" for name, text in pairs if text)
    return "\n\n".join(blocks) or NO_INSTRUCTIONS


# ---- what the judge went without


def _lacks_responses(invocation: Invocation) -> bool:
    """A tool call without a recorded response (a Python agent that did not return it, say)."""
    return len(invocation.tool_responses) < len(invocation.tool_calls)


def _has_media(invocation: Invocation) -> bool:
    """An image or a file anywhere in the turn: the user's parts, the answer, the events."""
    contents = [invocation.user_content, invocation.final_response]
    if isinstance(invocation.intermediate_data, InvocationEvents):
        contents += [event.content for event in invocation.intermediate_data.invocation_events]
    return any(part.inline_data is not None or part.file_data is not None for c in contents if c for part in c.parts or [])


def missing_context(invocations: list[Invocation], needs: tuple[str, ...], unreported: tuple[str, ...] = ()) -> Optional[list[str]]:
    """The parts of `needs` some judged turn went without (None when none): app_details,
    tool responses, or the texts between calls the agent could not report (`unreported`);
    and, whatever the metric reads, the conversation's images and files (its prompt is text)."""
    lacking = {
        INSTRUCTIONS: any(i.app_details is None for i in invocations),
        TOOL_DECLARATIONS: any(i.app_details is None for i in invocations),
        TOOL_RESPONSES: any(_lacks_responses(i) for i in invocations),
        INTERMEDIATE_TEXTS: INTERMEDIATE_TEXTS in unreported,
    }
    missing = [need for need in needs if lacking[need]]
    if any(_has_media(i) for i in invocations):
        missing.append(MEDIA)
    return missing or None


def response_texts_missing(invocations: list[Invocation], include_intermediate: bool, unreported: tuple[str, ...]) -> Optional[list[str]]:
    """For a judge of the response alone: the texts on the way are part of it when the criterion includes them."""
    return missing_context(invocations, (INTERMEDIATE_TEXTS,) if include_intermediate else (), unreported)


def flag_blind(run: MetricRun, missing: Optional[list[str]]) -> MetricRun:
    """Mark a scored run whose judge went without part of the agent's context (no score: no verdict to mark)."""
    return run.model_copy(update={"judged_without": missing}) if missing and run.score is not None else run


def missing_in_conversation(invocations: list[Invocation], needs: tuple[str, ...], unreported: tuple[str, ...] = ()) -> Optional[list[str]]:
    """As `missing_context`, for a judge of the whole conversation: it reads every turn's
    app_details together, so they are missing only when no turn has them."""
    missing = missing_context(invocations, needs, unreported) or []
    if any(i.app_details for i in invocations):
        missing = [need for need in missing if need not in APP_DETAILS]
    return missing or None
