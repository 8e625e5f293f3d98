"""Project-wide settings blocks of agenteval.yaml that several stages read.

Kept here (pure pydantic, no I/O) so the project file, the judge and the gate can all
import them without importing each other.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from ._base import StrictModel
from .vocabulary import FailOn


class ModelPrice(StrictModel):
    """USD per million tokens."""

    input: float
    output: float


class JudgeSettings(StrictModel):
    """How LLM-judged metrics reach their model (see docs/judge.md)."""

    concurrency: int = Field(default=32, ge=1)  # one bound for all judge calls of a run
    request_timeout_seconds: float = Field(default=60.0, gt=0)
    deadline_seconds: float = Field(default=900.0, gt=0)  # all judge work; a dead endpoint cannot hang CI
    max_retries: int = Field(default=6, ge=0)
    backoff_initial_seconds: float = Field(default=1.0, ge=0)  # doubles per retry, with jitter
    backoff_max_seconds: float = Field(default=30.0, ge=0)  # a Retry-After header takes precedence
    base_url: Optional[str] = None  # else GOOGLE_GEMINI_BASE_URL, else Google's endpoint
    cache: bool = True
    cache_dir: str = ".agenteval/cache"
    prices: dict[str, ModelPrice] = Field(default_factory=dict)  # overrides of the built-in table


class GateSettings(StrictModel):
    """How `compare` decides (see docs/gate.md)."""

    # A setting with a `flag` is also a flag of `compare` and `report` (`--fail-on` of `run` too).
    fail_on: FailOn = Field(default=FailOn.REGRESSION, json_schema_extra={"flag": "; ".join(f"{f.value}: {f.meaning}" for f in FailOn)})
    tolerance: float = Field(default=0.05, ge=0, json_schema_extra={"flag": "a metric's mean may drop this much without failing"})
    confidence: float = Field(default=0.95, gt=0, lt=1, json_schema_extra={"flag": "confidence level of the gate's tests"})
    seed: int = Field(default=0, json_schema_extra={"flag": "seed of the bootstrap: same inputs, same verdict"})
    # A gated score the baseline has but this run could not produce (lost coverage), or a
    # case with nothing evaluated: `fail` the gate (the default: no evidence is not a pass) or `warn`.
    not_evaluated: Literal["fail", "warn"] = "fail"
    # `num_runs: auto` only (docs/gate.md, "Adaptive runs"): the per-case drop in pass rate the
    # sequential rule looks for, and how sure it must be that a case did not drop before it
    # stops re-running it (1 - power is the chance it may still have; a drop on a tenth of the
    # cases counts as ruled out once that many dropping would leave evidence this low at most
    # 1 - power of the time).
    case_drop: float = Field(default=0.3, gt=0, lt=1)
    power: float = Field(default=0.9, gt=0, lt=1)
