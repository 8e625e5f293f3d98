"""Spans -> what a turn did: tool calls with their arguments and results, model calls' token
usage, the agents' instructions and tools (app_details) and the last answer text.

We read the OpenTelemetry GenAI semantic conventions (gen_ai.*) and ADK's own attributes
(gcp.vertex.agent.*, both of its telemetry schemas); the table is in docs/agents.md. Spans are
ordered by start time. Nested model spans (ADK's call_llm over generate_content, a framework's
span over an instrumented SDK's) are one model call: the outermost, with the first usage found.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Iterable, Optional

from ...schema import AgentDetails, AppDetails, UsageMetadata
from .otlp import Span
from .turn import ToolStep, TurnRecord, as_response, usage_record

SESSION_ATTRIBUTES = ("gen_ai.conversation.id", "gcp.vertex.agent.session_id", "session.id")
MODEL_OPERATIONS = {"chat", "generate_content", "text_completion"}
ARGS_ATTRIBUTES = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
RESULT_ATTRIBUTES = ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response")
MERGED_TOOLS = "(merged tools)"  # ADK's summary span over parallel calls, each also traced alone
CAPTURE_HINT = (
    "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (ADK: or ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true "
    "with ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1) so the agent records tool arguments"
)


class TraceContentMissing(ValueError):
    """A tool span without its arguments: the exporter recorded no content."""


def session_of(span: Span) -> Optional[str]:
    value = span.attr(*SESSION_ATTRIBUTES)
    return str(value) if value not in (None, "") else None


def is_tool_span(span: Span) -> bool:
    operation = span.attributes.get("gen_ai.operation.name")
    if operation is not None:
        return operation == "execute_tool" and tool_name(span) != MERGED_TOOLS
    return span.name.startswith("execute_tool ") and tool_name(span) != MERGED_TOOLS


def tool_name(span: Span) -> str:
    return str(span.attributes.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip())


def is_model_span(span: Span) -> bool:
    return span.attributes.get("gen_ai.operation.name") in MODEL_OPERATIONS or span.name == "call_llm"


def ordered(spans: Iterable[Span]) -> list[Span]:
    return sorted(spans, key=lambda s: (s.start_ns, s.end_ns))


def _json(value: Any) -> Any:
    """An attribute holding JSON text, parsed; anything else as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


class _Tree:
    def __init__(self, spans: list[Span]):
        self.by_id = {s.span_id: s for s in spans}

    def ancestors(self, span: Span) -> Iterable[Span]:
        seen = set()
        current = self.by_id.get(span.parent_span_id)
        while current is not None and current.span_id not in seen:
            seen.add(current.span_id)
            yield current
            current = self.by_id.get(current.parent_span_id)

    def agent_of(self, span: Span) -> Optional[str]:
        for candidate in (span, *self.ancestors(span)):
            name = candidate.attributes.get("gen_ai.agent.name")
            if name:
                return str(name)
        return None


def tool_steps(spans: list[Span], tree: _Tree) -> list[ToolStep]:
    steps = []
    for span in ordered(s for s in spans if is_tool_span(s)):
        args = _json(span.attr(*ARGS_ATTRIBUTES))
        if args is None:
            raise TraceContentMissing(f"the tool span {span.name!r} (span {span.span_id}) has no arguments: {CAPTURE_HINT}")
        result = span.attr(*RESULT_ATTRIBUTES)
        steps.append(ToolStep(
            name=tool_name(span),
            args=args if isinstance(args, dict) else {"value": args},
            response=as_response(_json(result)) if result is not None else None,
            call_id=_str(span.attributes.get("gen_ai.tool.call.id")),
            agent=tree.agent_of(span),
        ))
    return steps


def model_calls(spans: list[Span], tree: _Tree) -> list[list[Span]]:
    """Each model call as its outermost span first, then the model spans nested in it."""
    calls: dict[str, list[Span]] = {}
    for span in ordered(s for s in spans if is_model_span(s)):
        outer = next((a for a in reversed(list(tree.ancestors(span))) if is_model_span(a)), None)
        calls.setdefault((outer or span).span_id, [outer] if outer else []).append(span)
    return [group for group in calls.values()]


def _usage(call: list[Span]) -> Optional[UsageMetadata]:
    for span in call:
        response = _json(span.attributes.get("gcp.vertex.agent.llm_response"))
        if isinstance(response, dict) and isinstance(response.get("usage_metadata"), dict):
            return UsageMetadata.known_of(response["usage_metadata"])
    for span in call:
        tokens_in = span.attr("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
        tokens_out = span.attr("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
        if tokens_in is not None or tokens_out is not None:
            return usage_record(_int(tokens_in), _int(tokens_out))
    return None


def _output_text(span: Span) -> Optional[str]:
    response = _json(span.attributes.get("gcp.vertex.agent.llm_response"))
    if isinstance(response, dict):
        parts = (response.get("content") or {}).get("parts") or []
        texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")]
        return "\n".join(texts) if texts else None
    messages = _json(span.attributes.get("gen_ai.output.messages"))
    if isinstance(messages, list):
        texts = [
            str(part.get("content"))
            for message in messages if isinstance(message, dict)
            for part in message.get("parts") or [] if isinstance(part, dict) and part.get("type") == "text"
        ]
        return "\n".join(texts) if texts else None
    return None


def _details(call: list[Span], agent: str) -> Optional[AgentDetails]:
    """An agent's instructions and tools from its first model call: ADK's recorded request when the
    span has it (the same JSON an in-process run records), else the GenAI conventions' attributes."""
    for span in call:
        request = _json(span.attributes.get("gcp.vertex.agent.llm_request"))
        if isinstance(request, dict) and isinstance(request.get("config"), dict):
            config = request["config"]
            return AgentDetails(name=agent, instructions=_instruction_text(config.get("system_instruction")), tool_declarations=list(config.get("tools") or []))
    for span in call:
        instructions = _json(span.attributes.get("gen_ai.system_instructions"))
        definitions = _json(span.attributes.get("gen_ai.tool.definitions"))
        if instructions is None and definitions is None:
            continue
        declarations = [
            {k: d[k] for k in ("name", "description", "parameters") if d.get(k) is not None}
            for d in definitions or [] if isinstance(d, dict)
        ]
        return AgentDetails(name=agent, instructions=_instruction_text(instructions), tool_declarations=[{"function_declarations": declarations}] if declarations else [])
    return None


def _instruction_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):  # a Content
        return _instruction_text(value.get("parts"))
    if isinstance(value, list):  # parts, or the conventions' [{"type": "text", "content": ...}]
        return "\n".join(str(p.get("text", p.get("content", ""))) for p in value if isinstance(p, dict))
    return str(value)


def turn_from_spans(spans: list[Span]) -> TurnRecord:
    """One turn's spans (one trace, or the traces of one request) as a TurnRecord."""
    tree = _Tree(spans)
    calls = model_calls(spans, tree)
    usage = [u for u in (_usage(call) for call in calls) if u is not None]
    details: dict[str, AgentDetails] = {}
    for call in calls:
        agent = tree.agent_of(call[0]) or "agent"
        if agent not in details:
            found = _details(call, agent)
            if found is not None:
                details[agent] = found
    texts = [(call, text) for call in calls if (text := next((t for t in map(_output_text, call) if t), None))]
    last = max(texts, key=lambda item: item[0][0].end_ns, default=None)
    invocation_id = next((s.attributes["gcp.vertex.agent.invocation_id"] for s in spans if "gcp.vertex.agent.invocation_id" in s.attributes), None)
    return TurnRecord(
        final_text=last[1] if last else None,
        steps=tool_steps(spans, tree),
        usage=usage,
        app_details=AppDetails(agent_details=details) if details else None,
        invocation_id=_str(invocation_id),
        author=tree.agent_of(last[0][0]) if last else None,
    )


def turns_by_session(spans: list[Span]) -> dict[str, list[list[Span]]]:
    """Recorded traces: session id -> its turns, one per trace, in the order they started."""
    sessions: dict[str, set[str]] = defaultdict(set)
    traces: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        traces[span.trace_id].append(span)
        session = session_of(span)
        if session:
            sessions[session].add(span.trace_id)
    return {
        session: sorted((traces[t] for t in trace_ids), key=lambda trace: min(s.start_ns for s in trace))
        for session, trace_ids in sessions.items()
    }


def _str(value: Any) -> Optional[str]:
    return str(value) if value not in (None, "") else None


def _int(value: Any) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
