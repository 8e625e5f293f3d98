"""Eval configs (`test_config.json`, `--config_file_path`) in google-adk 2.13's shapes.

`criteria` maps a metric name to a float threshold or a criterion object. As in ADK,
a criterion object is first read as an open BaseCriterion; the metric then reads it as
its own criterion type (see `metrics.registry`), which is where a wrong field type
is caught and an unused key is warned about.
"""

from __future__ import annotations

import enum
from typing import Any, Literal, Optional, Union

from pydantic import ConfigDict, Field, FiniteFloat, field_validator

from ._base import AdkModel, OpenAdkModel
from .arg_rules import ANY_TOOL, ToolArgs, ToolRules, check_tool_args
from .eval_set import Rubric

DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"
MAX_NUM_SAMPLES = 100  # judge samples per turn (docs/config.md)


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


class CustomMetricConfig(AdkModel):
    model_config = ConfigDict(extra="ignore")

    code_config: CodeConfig
    metric_info: Optional[dict[str, Any]] = None
    description: str = ""


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
