"""Base models that read keys the way google-adk does."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class StrictModel(BaseModel):
    """Our own files (results, baseline, agenteval.yaml): our field names, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid")


class AdkModel(BaseModel):
    """snake_case or camelCase keys, unknown keys rejected (ADK's EvalBaseModel)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", loc_by_alias=False
    )


class OpenAdkModel(AdkModel):
    """Like AdkModel, but unknown keys are kept (ADK's criteria and EvalCase allow extras)."""

    model_config = ConfigDict(extra="allow")
