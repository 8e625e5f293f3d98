"""Project-wide settings blocks of agenteval.yaml that several stages read.

Kept here (pure pydantic, no I/O) so the project file, the judge and the gate can all
import them without importing each other.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional

from pydantic import BeforeValidator, Field, PlainSerializer

from ._base import StrictModel
from .vocabulary import FailOn

LONG_PROMPT_TOKENS = 200_000  # Gemini's tier boundary: a call whose prompt is longer pays the long-prompt prices


class ModelPrice(StrictModel):
    """USD per million tokens (output includes thinking tokens). A model whose prices rise for
    long prompts gives them too: a call whose prompt exceeds `long_prompt_tokens` pays them."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    long_prompt_input: Optional[float] = Field(default=None, ge=0)
    long_prompt_output: Optional[float] = Field(default=None, ge=0)
    long_prompt_tokens: int = Field(default=LONG_PROMPT_TOKENS, ge=1)


class JudgeProviderSettings(StrictModel):
    """How to reach one provider prefix of a judge model (`openai/...`, `azure/...`, or a name of
    your own): every field left out keeps the provider's default (docs/judge.md, "Providers")."""

    # The wire protocol: an OpenAI-compatible chat-completions endpoint, Azure OpenAI's
    # deployments, Gemini through google-genai, or LiteLLM (the optional extra).
    protocol: Optional[Literal["openai", "azure", "gemini", "litellm"]] = None
    base_url: Optional[str] = None
    api_key_env: Optional[str] = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")  # the variable that holds the key
    api_version: Optional[str] = None  # Azure OpenAI's api-version
    # judge.media: send: the MIME types its judge models take (`image/*` for any image), over the
    # provider table's (an Azure deployment's or a local server's model is not named by its prefix).
    media: Optional[list[Annotated[str, Field(pattern=r"^[a-z]+/([a-z0-9.+-]+|\*)$")]]] = None


# 10 MB of inline bytes per judge request: base64 makes them ~13.3 MB, which with the prompt stays
# under the smallest documented request ceiling we send to, the Gemini API's 20 MB (docs/judge.md).
DEFAULT_MEDIA_MAX_BYTES = 10_000_000


class JudgeSettings(StrictModel):
    """How LLM-judged metrics reach their model (see docs/judge.md)."""

    # Every judged metric uses this model instead of its criterion's judge_model (a judge swap in
    # one line); None keeps each criterion's own.
    model: Optional[str] = Field(default=None, min_length=1)
    providers: dict[str, JudgeProviderSettings] = Field(default_factory=dict)  # by the prefix of a judge model

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
    # The conversation's images and files: `text` keeps google-adk's text-only prompts (the score
    # says `judged_without: media`); `send` sends them with the prompt to a judge model that takes
    # them, up to media_max_bytes of inline bytes per request (docs/judge.md, "Images and files").
    media: Literal["text", "send"] = "text"
    media_max_bytes: int = Field(default=DEFAULT_MEDIA_MAX_BYTES, ge=1)


# The figures a budget may name (docs/gate.md, "Budgets"): ADK's efficiency metrics, the two
# directions of token_usage_v1, and the dollar cost of the agent's model calls.
BudgetKey = Literal[
    "token_usage_v1", "input_tokens", "output_tokens", "inference_call_count_v1", "tool_call_count_v1",
    "invocation_duration_v1", "cost_usd",
]
_INCREASE = re.compile(r"\+?\s*(\d+(?:\.\d+)?)\s*%")


def _increase(value: Any) -> Any:
    """`+10%` (or `10%`) as 0.1. A bare number is refused: 0.1 could mean 10% or 0.1%."""
    if isinstance(value, str):
        found = _INCREASE.fullmatch(value.strip())
        if found:
            return float(found.group(1)) / 100
    raise ValueError(f"an allowed increase is a percentage such as +10% (got {value!r})")


def percent(value: float) -> str:
    """0.1 as `+10%`, as agenteval.yaml writes it."""
    return f"+{value * 100:.10g}%"


# Written back as a percentage, so settings dumped and read again (resolve_gate) mean the same.
Increase = Annotated[float, BeforeValidator(_increase), PlainSerializer(percent, return_type=str)]
Budgets = dict[BudgetKey, Increase]

# What a metric's (or a budget's) failure does (docs/gate.md, "Policy per metric"): `block` fails
# the check, `warn` is reported beside it and never fails it, `report` is shown and not judged.
Severity = Literal["block", "warn", "report"]


class SuitePolicy(StrictModel):
    """A suite's own rule for one metric (gate.suite_metrics), over gate.metrics': what is decided
    case by case. The pooled tests (tolerance, case_drop, power) read every suite's cases of the
    metric at once, so they are set metric-wide only."""

    severity: Optional[Severity] = None
    any_drop: Optional[bool] = None


class MetricPolicy(SuitePolicy):
    """One metric's rule (gate.metrics): a key left out keeps the gate's own setting."""

    tolerance: Optional[float] = Field(default=None, ge=0)
    case_drop: Optional[float] = Field(default=None, gt=0, lt=1)
    power: Optional[float] = Field(default=None, gt=0, lt=1)


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
    # Allowed increases against the baseline, per figure (docs/gate.md, "Budgets"):
    # `{token_usage_v1: +10%, cost_usd: +5%}`; every suite, then `suite_budgets` per suite
    # (a key set to null there drops that budget for the suite).
    budgets: Budgets = Field(default_factory=dict)
    suite_budgets: dict[str, dict[BudgetKey, Optional[Increase]]] = Field(default_factory=dict)
    budget_severity: dict[BudgetKey, Severity] = Field(default_factory=dict)  # a breached budget blocks unless set here
    # Per metric (docs/gate.md, "Policy per metric"): {safety_v1: {any_drop: true}}, then per suite.
    metrics: dict[str, MetricPolicy] = Field(default_factory=dict)
    suite_metrics: dict[str, dict[str, SuitePolicy]] = Field(default_factory=dict)

    def budgets_for(self, suite: str) -> dict[str, float]:
        """The budgets of one suite: the key's allowed increase as a fraction (0.1 for +10%)."""
        merged: dict[BudgetKey, Optional[float]] = {**self.budgets, **self.suite_budgets.get(suite, {})}
        return {key: value for key, value in merged.items() if value is not None}

    def severity_of(self, suite: str, metric: str) -> Severity:
        """What a metric's failure does in one suite: its suite's rule, else its own, else block."""
        own = self.suite_metrics.get(suite, {}).get(metric)
        if own is not None and own.severity is not None:
            return own.severity
        rule = self.metrics.get(metric)
        return rule.severity if rule is not None and rule.severity is not None else "block"

    def any_drop_of(self, suite: str, metric: str) -> bool:
        own = self.suite_metrics.get(suite, {}).get(metric)
        if own is not None and own.any_drop is not None:
            return own.any_drop
        rule = self.metrics.get(metric)
        return bool(rule is not None and rule.any_drop)

    def for_metric(self, metric: str) -> GateSettings:
        """These settings with one metric's tolerance, case_drop and power put over the gate's."""
        rule = self.metrics.get(metric)
        if rule is None:
            return self
        tuned = {k: getattr(rule, k) for k in ("tolerance", "case_drop", "power") if getattr(rule, k) is not None}
        return self.model_copy(update=tuned) if tuned else self

    def budget_keys(self) -> list[str]:
        """Every figure some suite budgets: what a baseline keeps per run."""
        keys = set(self.budgets) | {k for by_suite in self.suite_budgets.values() for k, v in by_suite.items() if v is not None}
        return sorted(keys)
