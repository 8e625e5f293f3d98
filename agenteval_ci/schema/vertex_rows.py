"""A row of a Vertex AI evaluation dataset (Gen AI evaluation service, agent and model evaluation).

The columns Vertex documents: `prompt`, `reference` (the expected response), `response` (the
model's or agent's), `reference_trajectory` and `predicted_trajectory` (lists of
`{tool_name, tool_input}`). In a CSV file a trajectory is a JSON string in its cell, read as JSON.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, field_validator


class ToolStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool_name: str
    tool_input: dict[str, Any]

    @field_validator("tool_input", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return _from_json_text(value)


class VertexRow(BaseModel):
    model_config = ConfigDict(extra="allow")

    prompt: Optional[str] = None
    reference: Optional[str] = None
    response: Optional[str] = None
    reference_trajectory: Optional[list[ToolStep]] = None
    predicted_trajectory: Optional[list[ToolStep]] = None

    @field_validator("reference_trajectory", "predicted_trajectory", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        return _from_json_text(value)


def _from_json_text(value: Any) -> Any:
    """A CSV cell holds a trajectory as JSON text; an empty cell is no trajectory."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    try:
        return json.loads(value)
    except ValueError as exc:
        raise ValueError(f"not valid JSON in this cell: {exc}") from None
