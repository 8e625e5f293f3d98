"""The Gemini platform's evaluation dataset, as google-agents-cli 1.11 writes and reads it.

`agents-cli create` scaffolds `tests/eval/datasets/*.json` in this shape, and `agents-cli eval
generate` writes its traces in it with the agent's events and `responses` filled in. Keys are
snake_case or camelCase (the google-genai models it is dumped from accept both); unknown keys are
kept aside for a warning.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from ._base import OpenAdkModel
from .content import Content


class AgentEvent(OpenAdkModel):
    author: Optional[str] = None
    content: Optional[Content] = None
    event_time: Any = None
    state_delta: Optional[dict[str, Any]] = None
    active_tools: Any = None


class ConversationTurn(OpenAdkModel):
    turn_index: Optional[int] = None
    turn_id: Optional[str] = None
    events: list[AgentEvent] = Field(default_factory=list)


class AgentData(OpenAdkModel):
    turns: list[ConversationTurn] = Field(default_factory=list)
    agents: Any = None


class Reference(OpenAdkModel):
    response: Optional[Content] = None


class ResponseCandidate(OpenAdkModel):
    response: Optional[Content] = None


class DatasetCase(OpenAdkModel):
    eval_case_id: Optional[str] = None
    prompt: Optional[Content] = None
    reference: Optional[Reference] = None
    agent_data: Optional[AgentData] = None
    responses: Optional[list[ResponseCandidate]] = None


class EvaluationDataset(OpenAdkModel):
    eval_cases: list[DatasetCase]
