"""Eval sets in google-adk 2.13's shapes (EvalSet, EvalCase, Invocation, ...).

Key spelling and strictness follow ADK model by model: EvalSet reads snake_case and
ignores unknown keys; EvalCase and SessionInput keep unknown keys; Invocation and the
content inside it reject them; InvocationEvent ignores them.
"""

from __future__ import annotations

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
