"""The registry: every metric name a config may use, and what reads its criterion."""

from __future__ import annotations

from ..schema import (
    BaseCriterion,
    HallucinationsCriterion,
    LlmAsAJudgeCriterion,
    LlmBackedUserSimulatorCriterion,
    MetricRun,
    RubricsBasedCriterion,
    ToolTrajectoryCriterion,
)
from . import rouge, trajectory
from .base import MetricInput, MetricSpec, not_evaluated


def _not_implemented(inp: MetricInput) -> MetricRun:
    return not_evaluated("not implemented yet")


def _pending(name: str, criterion_type: type[BaseCriterion], description: str) -> MetricSpec:
    """An ADK metric we accept in configs but do not score yet: NOT_EVALUATED, never dropped."""
    return MetricSpec(name, criterion_type, _not_implemented, description)


_SPECS = [
    MetricSpec(
        "tool_trajectory_avg_score",
        ToolTrajectoryCriterion,
        trajectory.evaluate,
        "Share of turns whose tool calls match the expected ones (EXACT / IN_ORDER / ANY_ORDER).",
        needs_expected=True,
    ),
    MetricSpec(
        "response_match_score",
        BaseCriterion,
        rouge.evaluate,
        "ROUGE-1 F-measure of the final response against the expected one.",
        needs_expected=True,
    ),
    _pending("final_response_match_v2", LlmAsAJudgeCriterion, "LLM judge: is the response equivalent to the reference."),
    _pending("rubric_based_final_response_quality_v1", RubricsBasedCriterion, "LLM judge: final response rubrics."),
    _pending("rubric_based_tool_use_quality_v1", RubricsBasedCriterion, "LLM judge: tool use rubrics."),
    _pending("hallucinations_v1", HallucinationsCriterion, "LLM judge: share of supported sentences."),
    _pending("safety_v1", BaseCriterion, "LLM judge: harmlessness of the response."),
    _pending("response_evaluation_score", BaseCriterion, "Vertex coherence score (legacy)."),
    _pending(
        "per_turn_user_simulator_quality_v1",
        LlmBackedUserSimulatorCriterion,
        "LLM judge: does the simulated user follow its plan.",
    ),
    _pending("multi_turn_task_success_v1", LlmAsAJudgeCriterion, "LLM judge: was the task achieved."),
    _pending("multi_turn_trajectory_quality_v1", LlmAsAJudgeCriterion, "LLM judge: trajectory quality."),
    _pending("multi_turn_tool_use_quality_v1", LlmAsAJudgeCriterion, "LLM judge: tool use quality."),
    _pending(
        "rubric_based_multi_turn_trajectory_quality_v1",
        RubricsBasedCriterion,
        "LLM judge: multi-turn trajectory rubrics.",
    ),
]

REGISTRY: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}


def lookup(name: str) -> MetricSpec | None:
    return REGISTRY.get(name)
