"""Stable fingerprints, so a comparison can tell "the agent changed" from "the test changed".

Volatile fields (the ids and timestamps ADK regenerates each time it loads a legacy file)
are left out; everything that defines what the case expects is in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from ..schema import EvalCase

# The eval_id names the case (it is the key); the rest changes on every load of a legacy file.
_CASE_VOLATILE: Mapping[str, Any] = {
    "eval_id": True,
    "creation_timestamp": True,
    "conversation": {"__all__": {"invocation_id": True, "creation_timestamp": True}},
}


def _short_hash(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


def case_fingerprint(case: EvalCase) -> str:
    """User turns, expected tool calls and responses, rubrics, scenario and session input.
    Serialized by pydantic in field order: fast, and stable for a given schema."""
    return _short_hash(case.__pydantic_serializer__.to_json(case, exclude=_CASE_VOLATILE, exclude_none=True))


def metric_fingerprint(metric_name: str, criterion: BaseModel) -> str:
    """Threshold, match type, rubric texts: the whole criterion but its judge. The judge's
    options are hashed at their defaults, so changing the judge alone leaves this unchanged (the
    judge's own fingerprint tells that change, and the gate re-judges) while a baseline written
    when the judge options were part of this hash still matches whenever they were the defaults."""
    options = type(criterion).model_fields.get("judge_model_options")
    if options is not None and options.default_factory is not None:
        criterion = criterion.model_copy(update={"judge_model_options": options.default_factory()})  # type: ignore[call-arg]
    data = {"metric": metric_name, "criterion": criterion.model_dump(mode="json")}
    return _short_hash(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
