"""What a judge sees of the agent itself: its instructions and tool declarations, as the
invocation's `app_details` recorded them (google-adk 2.13's AppDetails), and the grounding
metadata of its events.

Each judged metric picks the parts its ADK evaluator reads (docs/metrics.md has the table).
Without `app_details` a section says it was not recorded, and the metric's result lists what
the judge went without (`MetricRun.judged_without`), so a blind verdict is never silent: so
are tool calls without a recorded response, texts between calls the agent could not report, and
the conversation's images and files when the judge was not shown them (`media_of` gives a
request's media; `MediaNotes` keeps what the judge did with them, and why it sent none).

Declarations are rendered as compact JSON with null fields dropped: the same fields ADK
sends, fewer tokens, and the same text (so the same judge cache key) whether the invocation
came from a live run or from a results file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Optional

from ...schema import AgentDetails, AppDetails, Content, Invocation, InvocationEvent, InvocationEvents, MetricRun
from ...schema.content import inline_bytes
from ..judging import MediaPart

NOT_RECORDED = "(not recorded: this turn carries no app_details)"
NO_INSTRUCTIONS = "(none)"
INSTRUCTIONS = "instructions"
TOOL_DECLARATIONS = "tool_declarations"
TOOL_RESPONSES = "tool_responses"
INTERMEDIATE_TEXTS = "intermediate_texts"
MEDIA = "media"  # images and files in the conversation the judge was not shown (judge.media: text, as ADK's prompts)
MEDIA_WITHHELD = "media_withheld"  # MetricRun.details: why the judge was not shown them
NOT_ASKED = "no request of this metric's judge carried the conversation's images and files"
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


def _contents(invocation: Invocation) -> list[tuple[Literal["user", "agent"], Optional[Content]]]:
    """Every content of a turn with whose it is: the user's, the agent's events and its answer."""
    found: list[tuple[Literal["user", "agent"], Optional[Content]]] = [("user", invocation.user_content)]
    if isinstance(invocation.intermediate_data, InvocationEvents):
        found += [("agent", event.content) for event in invocation.intermediate_data.invocation_events]
    return found + [("agent", invocation.final_response)]


def _has_media(invocation: Invocation) -> bool:
    """An image or a file anywhere in the turn: the user's parts, the answer, the events."""
    return any(part.inline_data is not None or part.file_data is not None for _, c in _contents(invocation) if c for part in c.parts or [])


def _field(value: Any, *names: str) -> Any:
    """A blob's field by any of its spellings, from JSON (a dict) or from google-genai (an object)."""
    for name in names:
        found = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
        if found is not None:
            return found
    return None


def _media_part(source: Literal["user", "agent"], blob: Any, inline: bool) -> MediaPart:
    mime_type = _field(blob, "mime_type", "mimeType")
    problem = None if isinstance(mime_type, str) and mime_type else f"the {source}'s {'inline_data' if inline else 'file_data'} has no mime_type"
    mime_type = mime_type if isinstance(mime_type, str) else "application/octet-stream"
    if not inline:
        uri = _field(blob, "file_uri", "fileUri")
        return MediaPart(mime_type, uri=str(uri or ""), source=source, problem=problem or (None if uri else f"the {source}'s file_data has no file_uri"))
    try:
        return MediaPart(mime_type, data=inline_bytes(_field(blob, "data")), source=source, problem=problem)
    except ValueError as exc:
        return MediaPart(mime_type, data=b"", source=source, problem=f"the {source}'s {mime_type}: {exc}")


def media_of(invocations: Iterable[Invocation]) -> tuple[MediaPart, ...]:
    """The images and files of `invocations` (the user's and the agent's, in order), each once:
    what a judge request about them carries beside its text."""
    found: dict[tuple[str, str, bytes], MediaPart] = {}
    for invocation in invocations:
        for source, content in _contents(invocation):
            for part in (content.parts if content else None) or []:
                for blob, inline in ((part.inline_data, True), (part.file_data, False)):
                    if blob is not None:
                        media = _media_part(source, blob, inline)
                        found.setdefault((media.mime_type, media.uri or "", media.data or b""), media)
    return tuple(found.values())


@dataclass
class MediaNotes:
    """What one metric run's judge requests did with the conversation's media: how many were
    sent them, and why the others were not (the judge's `media_withheld`)."""

    sent: int = 0
    withheld: list[str] = field(default_factory=list)

    def note(self, media: Sequence[MediaPart], withheld: Optional[str]) -> None:
        if media and withheld:
            self.withheld.append(withheld)
        elif media:
            self.sent += 1


def settle_media(run: MetricRun, notes: MediaNotes) -> MetricRun:
    """A run flagged `judged_without: media`, unflagged when every judge request about the media
    was sent them; else the run's details say why they were not (`media_withheld`)."""
    if MEDIA not in (run.judged_without or []):
        return run
    if notes.sent and not notes.withheld:
        rest = [need for need in run.judged_without or [] if need != MEDIA]
        return run.model_copy(update={"judged_without": rest or None})
    why = notes.withheld[0] if notes.withheld else NOT_ASKED
    return run.model_copy(update={"details": {**(run.details or {}), MEDIA_WITHHELD: why}})


def missing_context(invocations: list[Invocation], needs: tuple[str, ...], unreported: tuple[str, ...] = ()) -> Optional[list[str]]:
    """The parts of `needs` some judged turn went without (None when none): app_details,
    tool responses, or the texts between calls the agent could not report (`unreported`);
    and, whatever the metric reads, the conversation's images and files (`settle_media` takes
    that back when the judge was sent them)."""
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


def flag_blind(run: MetricRun, missing: Optional[list[str]], notes: MediaNotes) -> MetricRun:
    """Mark a scored run whose judge went without part of the agent's context (no score: no verdict to mark)."""
    return settle_media(run.model_copy(update={"judged_without": missing}), notes) if missing and run.score is not None else run


def missing_in_conversation(invocations: list[Invocation], needs: tuple[str, ...], unreported: tuple[str, ...] = ()) -> Optional[list[str]]:
    """As `missing_context`, for a judge of the whole conversation: it reads every turn's
    app_details together, so they are missing only when no turn has them."""
    missing = missing_context(invocations, needs, unreported) or []
    if any(i.app_details for i in invocations):
        missing = [need for need in missing if need not in APP_DETAILS]
    return missing or None
