"""Stable fingerprints, so a comparison can tell "the agent changed" from "the test changed".

Volatile fields (ids and timestamps that ADK regenerates on every load of a legacy
file) are left out; everything that defines what the case expects is in.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from .schema import EvalCase

_VOLATILE = {"invocation_id", "creation_timestamp", "id"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in _VOLATILE and v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def digest(value: Any) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    canonical = json.dumps(_strip(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def case_fingerprint(case: EvalCase) -> str:
    """User turns, expected tool calls and responses, rubrics, scenario and session input."""
    return digest(case.model_dump(mode="json", exclude_none=True, exclude={"eval_id"}))


def metric_fingerprint(metric_name: str, criterion: BaseModel) -> str:
    """Threshold, match type, rubric texts, judge model and samples: the whole criterion."""
    return digest({"metric": metric_name, "criterion": criterion.model_dump(mode="json")})
