"""Eval configs (`test_config.json`, `--config_file_path`) in google-adk 2.13's shapes.

`criteria` maps a metric name to a float threshold or a criterion object. As in ADK,
a criterion object is first read as an open BaseCriterion; the metric then reads it as
its own criterion type (see `metrics.registry`), which is where a wrong field type
is caught and an unused key is warned about.
"""

from __future__ import annotations

import enum
import math
from typing import Any, ClassVar, Literal, Optional, Union

from pydantic import ConfigDict, Field, FiniteFloat, field_validator, model_validator

from ._base import AdkModel, OpenAdkModel
from .arg_rules import ANY_TOOL, ToolArgs, ToolRules, check_tool_args
from .eval_set import Rubric
from .prompt_template import template_fields

DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"
MAX_NUM_SAMPLES = 100  # judge samples per turn (docs/config.md)
# The judge "model" of a managed metric: the Gen AI evaluation service's spec, `vertex_eval/<spec name>`.
MANAGED_PREFIX = "vertex_eval"


class JudgeModelOptions(AdkModel):
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge_model_config: Optional[dict[str, Any]] = None  # a GenerateContentConfig as JSON
    num_samples: int = Field(default=5, ge=1, le=MAX_NUM_SAMPLES)
    parallelism_limit: int = Field(default=1, ge=1, le=1000)


class BaseCriterion(OpenAdkModel):
    threshold: FiniteFloat  # NaN would fail every score and inf pass none: a typo, never a setting
    include_intermediate_responses_in_final: bool = False


class LlmAsAJudgeCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)


class RubricsBasedCriterion(LlmAsAJudgeCriterion):
    rubrics: list[Rubric] = Field(default_factory=list)


class HallucinationsCriterion(LlmAsAJudgeCriterion):
    evaluate_intermediate_nl_responses: bool = False


class SafetyCriterion(BaseCriterion):
    """ADK's safety_v1 takes a plain threshold; the judge options are ours (one sample by default)."""

    judge_model_options: JudgeModelOptions = Field(default_factory=lambda: JudgeModelOptions(num_samples=1))


class ManagedCriterion(BaseCriterion):
    """A managed metric (agents-cli's built-in ones): the Gen AI evaluation service judges it
    with its own model, so the judge is the service's metric spec, `vertex_eval/<spec name>`,
    asked once per turn. `judge_model` may pin another version of the same metric
    (`vertex_eval/general_quality_v1`); nothing else can judge it."""

    spec_name: ClassVar[str] = ""  # the service's spec the released client resolves the name to
    judge_model_options: JudgeModelOptions = Field(default_factory=lambda: JudgeModelOptions(num_samples=1))

    @model_validator(mode="after")
    def _judged_by_the_service(self) -> "ManagedCriterion":
        options = self.judge_model_options
        if "judge_model" not in options.model_fields_set:
            options = options.model_copy(update={"judge_model": f"{MANAGED_PREFIX}/{self.spec_name}"})
        if "num_samples" not in options.model_fields_set:
            options = options.model_copy(update={"num_samples": 1})
        if not options.judge_model.startswith(f"{MANAGED_PREFIX}/"):
            raise ValueError(f"a managed metric is judged by the Gen AI evaluation service: judge_model must be "
                             f"{MANAGED_PREFIX}/<spec name> (such as {MANAGED_PREFIX}/{self.spec_name}), not {options.judge_model!r}")
        self.judge_model_options = options
        return self


def managed_criterion(spec_name: str) -> type[ManagedCriterion]:
    """The criterion of the managed metric whose spec is `spec_name` (its default judge)."""
    return type(f"ManagedCriterion[{spec_name}]", (ManagedCriterion,), {"spec_name": spec_name, "__module__": __name__})


class CoherenceCriterion(BaseCriterion):
    """ADK's response_evaluation_score takes a plain threshold (1 to 5); the judge options are
    ours, one sample by default, as Vertex's coherence metric gives one rating."""

    judge_model_options: JudgeModelOptions = Field(default_factory=lambda: JudgeModelOptions(num_samples=1))


class LlmBackedUserSimulatorCriterion(LlmAsAJudgeCriterion):
    stop_signal: str = "</finished>"


class MatchType(enum.Enum):
    EXACT = 0
    IN_ORDER = 1
    ANY_ORDER = 2


class ToolTrajectoryCriterion(BaseCriterion):
    match_type: MatchType = MatchType.EXACT
    ignore_args: bool = False

    @field_validator("match_type", mode="before")
    @classmethod
    def _coerce_match_type(cls, value: object) -> object:
        # ADK's rule: enum, its int value, or a name in any case with - or space for _.
        if isinstance(value, str):
            normalized = value.strip().upper().replace("-", "_").replace(" ", "_")
            if normalized in MatchType.__members__:
                return MatchType[normalized]
            raise ValueError(f"unknown match_type {value!r}; expected EXACT, IN_ORDER or ANY_ORDER (or 0, 1, 2)")
        return value


class ToolArgsCriterion(BaseCriterion):
    """Our own metrics' criterion (tool_trajectory_alignment_score, tool_argument_match_score):
    tool-argument rules by tool and argument path. ADK's evaluators never read it."""

    tool_args: ToolArgs = Field(default_factory=dict)
    # Alignment only: False scores against the expected calls alone, so extra calls cost nothing
    # (as IN_ORDER); True (the default) counts them, so score 1.0 means the very same calls.
    penalize_extra_calls: bool = True

    @field_validator("tool_args")
    @classmethod
    def _paths_parse(cls, value: ToolArgs) -> ToolArgs:
        return check_tool_args(value)


class SessionStateCriterion(BaseCriterion):
    """Our session_state_match: the agent's final session state against the case's
    `final_session_state`, key by key, under the tool-argument rules (path -> rule, `$` the
    whole state). ADK has no such metric; its evaluators never read this criterion."""

    state_rules: ToolRules = Field(default_factory=dict)

    @field_validator("state_rules")
    @classmethod
    def _paths_parse(cls, value: ToolRules) -> ToolRules:
        try:
            check_tool_args({ANY_TOOL: value})
        except ValueError as exc:  # its words name a tool and an args object: here it is the state
            raise ValueError(str(exc).removeprefix(f"{ANY_TOOL}: ").replace("args object", "state")) from None
        return value


class SingleToolUseCriterion(BaseCriterion):
    """Vertex's trajectory_single_tool_use: did the agent call `tool_name` at all."""

    tool_name: str


class UserSimulatorConfig(OpenAdkModel):
    """ADK's LlmBackedUserSimulatorConfig (`type: llm_backed`)."""

    type: Literal["llm_backed"] = "llm_backed"
    model: str = DEFAULT_JUDGE_MODEL
    model_configuration: Optional[dict[str, Any]] = None
    max_allowed_invocations: int = 20
    custom_instructions: Optional[str] = None
    include_function_calls: bool = False


class CodeConfig(AdkModel):
    name: str
    args: Optional[list[Any]] = None


class Interval(AdkModel):
    """ADK's Interval: the values a metric can take, each end closed unless said open."""

    model_config = ConfigDict(extra="ignore")

    min_value: FiniteFloat
    max_value: FiniteFloat
    open_at_min: bool = False
    open_at_max: bool = False

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.min_value >= self.max_value:
            raise ValueError(f"min_value {self.min_value} must be below max_value {self.max_value}")
        return self


class MetricValueInfo(AdkModel):
    model_config = ConfigDict(extra="ignore")

    interval: Optional[Interval] = None


class MetricInfo(AdkModel):
    """ADK's MetricInfo; the registry names the metric, so `metric_name` is optional here."""

    model_config = ConfigDict(extra="ignore")

    metric_name: Optional[str] = None
    description: Optional[str] = None
    metric_value_info: MetricValueInfo = Field(default_factory=MetricValueInfo)


DEFAULT_INTERVAL = Interval(min_value=0.0, max_value=1.0)  # ADK's, when metric_info gives none

USER_METRIC_FORMS = ("code_config", "custom_function", "custom_function_file", "command", "prompt_template")


class CustomMetricConfig(AdkModel):
    """One user metric, in exactly one form: ADK's `code_config` (a dotted path to
    fn(eval_metric, actual, expected, scenario)), agents-cli's `custom_function` (inline source
    defining `evaluate(instance)`) or `custom_function_file`, or our `command` (a program
    reading one case as JSON on stdin), or a judge from a `prompt_template` with the scale its
    answers map to (`labels`, or Vertex's `rating_scores`). docs/metrics.md "Your own metrics"."""

    model_config = ConfigDict(extra="ignore")

    code_config: Optional[CodeConfig] = None
    custom_function: Optional[str] = None
    custom_function_file: Optional[str] = None
    command: Optional[list[str]] = Field(default=None, min_length=1)
    prompt_template: Optional[str] = None
    labels: Optional[dict[str, FiniteFloat]] = Field(default=None, min_length=2)  # answer -> score
    rating_scores: Optional[dict[str, Any]] = Field(default=None, min_length=2)  # Vertex's: a rating (a number) -> what it means
    remote_custom_function: Optional[Any] = None
    timeout_seconds: float = Field(default=30.0, gt=0)
    metric_info: Optional[MetricInfo] = None
    description: str = ""

    @field_validator("labels", mode="before")
    @classmethod
    def _yaml_yes_no(cls, value: Any) -> Any:
        """YAML reads a bare `yes: 1, no: 0` as booleans: they are the labels yes and no."""
        if isinstance(value, dict):
            return {({True: "yes", False: "no"}[k] if isinstance(k, bool) else k): v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _one_form(self) -> CustomMetricConfig:
        if self.remote_custom_function is not None:
            raise ValueError(
                "remote_custom_function is not run here: it calls a deployed service with the "
                "agent's outputs, which a CI gate cannot reproduce or fingerprint; use custom_function, "
                "custom_function_file, code_config or command"
            )
        given = [form for form in USER_METRIC_FORMS if getattr(self, form) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of {', '.join(USER_METRIC_FORMS)}; got {', '.join(given) or 'none'}")
        if self.prompt_template is not None:
            self._check_template()
        elif self.labels is not None or self.rating_scores is not None:
            raise ValueError("labels and rating_scores are a prompt_template's scale")
        return self

    def _check_template(self) -> None:
        assert self.prompt_template is not None
        if not self.prompt_template.strip():
            raise ValueError("prompt_template is empty")
        try:
            template_fields(self.prompt_template)
        except ValueError as exc:
            raise ValueError(f"prompt_template {exc}") from None
        if (self.labels is None) == (self.rating_scores is None):
            raise ValueError("a prompt_template needs the scale its answers map to: `labels` (answer: score, e.g. "
                             "{pass: 1, fail: 0}) or `rating_scores` (rating: what it means, e.g. {\"1\": poor, \"5\": great})")
        for rating in self.rating_scores or {}:
            try:
                if not math.isfinite(float(rating)):
                    raise ValueError
            except ValueError:
                raise ValueError(f"rating_scores: {rating!r} is not a number (name answers that are words under `labels`)") from None

    @property
    def scale_bounds(self) -> Optional[tuple[float, float]]:
        """A prompt_template's lowest and highest score."""
        scores = list((self.labels or {}).values()) or [float(r) for r in self.rating_scores or {}]
        return (min(scores), max(scores)) if scores else None

    @property
    def form(self) -> str:
        return next(form for form in USER_METRIC_FORMS if getattr(self, form) is not None)

    @property
    def interval(self) -> Optional[Interval]:
        """The declared interval; ADK's [0, 1] for a code_config without one (as google-adk
        registers it); None (any finite number) for the other forms: agents-cli declares none
        and its scaffold's judge scores 1 to 5."""
        info = self.metric_info
        declared = info.metric_value_info.interval if info else None
        bounds = self.scale_bounds
        if declared is None and bounds is not None and bounds[0] < bounds[1]:
            return Interval(min_value=bounds[0], max_value=bounds[1])
        return declared or (DEFAULT_INTERVAL if self.code_config is not None else None)


class LiveModelConfig(AdkModel):
    model_config = ConfigDict(extra="ignore")

    timeout_seconds: int = 300


class EvalConfig(AdkModel):
    """Unknown top-level keys are ignored by ADK; our loader warns about them."""

    model_config = ConfigDict(extra="ignore")

    criteria: dict[str, Union[FiniteFloat, BaseCriterion]] = Field(default_factory=dict)
    custom_metrics: Optional[dict[str, CustomMetricConfig]] = None
    user_simulator_config: Optional[UserSimulatorConfig] = None
    live_model_config: Optional[LiveModelConfig] = None


DEFAULT_EVAL_CONFIG = EvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
