"""One rule for settings given twice: agenteval.yaml's, then the flags or the action's inputs."""

from __future__ import annotations

import pydantic

from ..errors import UsageError
from ..schema.settings import GateSettings


def resolve_gate(project: GateSettings, overrides: GateSettings) -> GateSettings:
    """The project's gate with each setting `overrides` was given (its `model_fields_set`, as
    made by `GateSettings.model_construct`) put over it, checked as agenteval.yaml's are; a
    bad value is named by its flag (`--confidence: ...`)."""
    given = overrides.model_dump(include=overrides.model_fields_set)
    if not given:
        return project
    try:
        return GateSettings.model_validate({**project.model_dump(), **given})
    except pydantic.ValidationError as exc:
        raise UsageError("; ".join(f"--{str(e['loc'][0]).replace('_', '-')}: {e['msg']}" for e in exc.errors())) from None
