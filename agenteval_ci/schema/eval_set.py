"""Eval sets in google-adk 2.13's shapes (EvalSet, EvalCase, Invocation, ...).

Key spelling and strictness follow ADK model by model: EvalSet reads snake_case and
ignores unknown keys; EvalCase and SessionInput keep unknown keys; Invocation and the
content inside it reject them; InvocationEvent ignores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Optional, Sequence, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from ._base import AdkModel, OpenAdkModel
from .content import Content, FunctionCall, FunctionResponse, Part, UsageMetadata

PREBUILT_PERSONA_IDS = ("EXPERT", "NOVICE", "EVALUATOR")


class RubricContent(AdkModel):
    text_property: Optional[str] = None


class Rubric(AdkModel):
    rubric_id: str
    rubric_content: RubricContent
    description: Optional[str] = None
    type: Optional[str] = None


class IntermediateData(AdkModel):
    tool_uses: list[FunctionCall] = Field(default_factory=list)
    tool_responses: list[FunctionResponse] = Field(default_factory=list)
    # (author, parts) pairs; JSON has them as two-element lists.
    intermediate_responses: list[tuple[str, list[Part]]] = Field(default_factory=list)


class InvocationEvent(AdkModel):
    model_config = ConfigDict(extra="ignore")

    author: str
    content: Optional[Content] = None
    grounding_metadata: Any = None
    usage_metadata: Optional[UsageMetadata] = None
    model_version: Optional[str] = None


class InvocationEvents(AdkModel):
    invocation_events: list[InvocationEvent] = Field(default_factory=list)


def _intermediate_kind(value: Any) -> str:
    """Pick the shape by its key, so an error names one shape's fields, not both."""
    if isinstance(value, InvocationEvents):
        return "events"
    if isinstance(value, dict) and ("invocation_events" in value or "invocationEvents" in value):
        return "events"
    return "data"


IntermediateDataType = Annotated[
    Union[Annotated[IntermediateData, Tag("data")], Annotated[InvocationEvents, Tag("events")]],
    Discriminator(_intermediate_kind),
]


# Tools the model runs itself, by the name ADK gives the tool: they leave no function call.
BUILTIN_TOOLS = ("google_search", "vertex_ai_search", "enterprise_web_search", "url_context", "code_execution")


@dataclass(frozen=True)
class BuiltinToolUse:
    """A built-in tool the model ran in a turn, read from what it returned: the search queries and
    the sources of its grounding metadata, or the code it executed and the result."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)


def _field(value: Any, snake: str) -> Any:
    """A key of raw JSON, snake_case or camelCase (ADK writes either)."""
    if not isinstance(value, dict):
        return None
    head, *rest = snake.split("_")
    return value.get(snake, value.get(head + "".join(word.title() for word in rest)))


def _sources(grounding: Any, kind: str) -> list[str]:
    found = []
    for chunk in _field(grounding, "grounding_chunks") or []:
        source = _field(chunk, kind)
        if isinstance(source, dict):
            found.append(str(_field(source, "uri") or _field(source, "title") or ""))
    return [s for s in found if s]


def grounding_uses(grounding: Any) -> list[BuiltinToolUse]:
    """Searches a grounding metadata records: web queries (google_search), retrieval queries (vertex_ai_search)."""
    uses = []
    web = _field(grounding, "web_search_queries")
    if web:
        uses.append(BuiltinToolUse("google_search", {"queries": list(web)}, {"sources": _sources(grounding, "web")}))
    retrieval = _field(grounding, "retrieval_queries")
    if retrieval:
        uses.append(BuiltinToolUse("vertex_ai_search", {"queries": list(retrieval)}, {"sources": _sources(grounding, "retrieved_context")}))
    return uses


def code_uses(parts: list[Part]) -> list[BuiltinToolUse]:
    """Code the model executed (executable_code parts), each with the result that follows it."""
    uses: list[BuiltinToolUse] = []
    for part in parts:
        if part.executable_code is not None:
            uses.append(BuiltinToolUse("code_execution", {"code": _field(part.executable_code, "code"), "language": _field(part.executable_code, "language")}))
        elif part.code_execution_result is not None and uses and not uses[-1].result:
            result = part.code_execution_result
            uses[-1] = BuiltinToolUse("code_execution", uses[-1].args, {"outcome": _field(result, "outcome"), "output": _field(result, "output")})
    return uses


class AgentDetails(AdkModel):
    name: str
    instructions: str = ""
    tool_declarations: list[Any] = Field(default_factory=list)


class AppDetails(AdkModel):
    agent_details: dict[str, AgentDetails] = Field(default_factory=dict)


class Invocation(AdkModel):
    invocation_id: str = ""
    user_content: Content
    final_response: Optional[Content] = None
    intermediate_data: Optional[IntermediateDataType] = None
    creation_timestamp: float = 0.0
    duration: Optional[float] = None
    model_duration: Optional[float] = None
    tool_duration: Optional[float] = None
    rubrics: Optional[list[Rubric]] = None
    app_details: Optional[AppDetails] = None

    @property
    def tool_calls(self) -> list[FunctionCall]:
        """Every tool call, in order: `tool_uses`, or each function_call part of every event."""
        return self._steps("tool_uses", "function_call")

    @property
    def tool_responses(self) -> list[FunctionResponse]:
        return self._steps("tool_responses", "function_response")

    def _steps(self, data_field: str, part_field: str) -> list[Any]:
        """From IntermediateData's list, or from the parts of every event, all authors, in order."""
        data = self.intermediate_data
        if isinstance(data, IntermediateData):
            return list(getattr(data, data_field))
        if isinstance(data, InvocationEvents):
            return [
                getattr(part, part_field)
                for event in data.invocation_events
                if event.content
                for part in event.content.parts or []
                if getattr(part, part_field)
            ]
        return []

    @property
    def builtin_tool_uses(self) -> list[BuiltinToolUse]:
        """The built-in tools the model ran (search grounding, code execution), in order: from the
        events' grounding metadata and parts, and the final response's parts. Never tool calls."""
        uses: list[BuiltinToolUse] = []
        if isinstance(self.intermediate_data, InvocationEvents):
            for event in self.intermediate_data.invocation_events:
                uses += code_uses(event.content.parts or []) if event.content else []
                uses += grounding_uses(event.grounding_metadata)
        return uses + code_uses(self.final_response.parts or [] if self.final_response else [])

    @property
    def intermediate_responses(self) -> list[tuple[str, str]]:
        """(author, text) of each answer on the way to the final response (sub-agents', and texts
        between tool calls): IntermediateData's list, or each event's text, in order."""
        data = self.intermediate_data
        if isinstance(data, IntermediateData):
            answers = [(author, Content(parts=parts).text) for author, parts in data.intermediate_responses]
        elif isinstance(data, InvocationEvents):
            answers = [(event.author, event.content.text) for event in data.invocation_events if event.content]
        else:
            answers = []
        return [(author, text) for author, text in answers if text]

    @property
    def usage(self) -> list[UsageMetadata]:
        """Token usage of each model call that reported it (events only, as in ADK)."""
        if not isinstance(self.intermediate_data, InvocationEvents):
            return []
        return [e.usage_metadata for e in self.intermediate_data.invocation_events if e.usage_metadata]


class SessionInput(AdkModel):
    model_config = ConfigDict(extra="allow")

    app_name: str
    user_id: str
    session_id: Optional[str] = None
    state: dict[str, Any] = Field(default_factory=dict)


class UserBehavior(BaseModel):
    name: str
    description: str
    behavior_instructions: list[str]
    violation_rubrics: list[str]


class UserPersona(BaseModel):
    id: str
    description: str
    behaviors: Sequence[UserBehavior]


class ConversationScenario(AdkModel):
    starting_prompt: str
    conversation_plan: str
    # A persona, or the id of one of ADK's pre-built personas.
    user_persona: Optional[Union[UserPersona, str]] = None

    @model_validator(mode="after")
    def _known_persona_id(self) -> "ConversationScenario":
        if isinstance(self.user_persona, str) and self.user_persona not in PREBUILT_PERSONA_IDS:
            raise ValueError(
                f"unknown persona id {self.user_persona!r}; pre-built personas are "
                f"{', '.join(PREBUILT_PERSONA_IDS)}, or give a persona object"
            )
        return self


class ConversationScenarios(AdkModel):
    """ADK's `--scenarios_file` format."""

    scenarios: list[ConversationScenario] = Field(default_factory=list)


class EvalCase(OpenAdkModel):
    eval_id: str
    conversation: Optional[list[Invocation]] = None
    conversation_scenario: Optional[ConversationScenario] = None
    session_input: Optional[SessionInput] = None
    creation_timestamp: float = 0.0
    rubrics: Optional[list[Rubric]] = None
    final_session_state: Optional[dict[str, Any]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _conversation_xor_scenario(self) -> "EvalCase":
        if (self.conversation is None) == (self.conversation_scenario is None):
            raise ValueError(
                "an eval case needs exactly one of `conversation` (a fixed list of turns) "
                "or `conversation_scenario` (a simulated user), not "
                + ("both" if self.conversation is not None else "neither")
            )
        return self


class EvalSet(BaseModel):
    """ADK's EvalSet: snake_case keys only; unknown keys are kept aside, for our warning
    (google-adk ignores them)."""

    model_config = ConfigDict(extra="allow")

    eval_set_id: str
    name: Optional[str] = None
    description: Optional[str] = None
    eval_cases: list[EvalCase]
    creation_timestamp: float = 0.0
