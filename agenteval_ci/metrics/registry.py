"""The registry: every metric name a config may use, and what reads its criterion."""

from __future__ import annotations

from ..schema import (
    BaseCriterion,
    HallucinationsCriterion,
    LlmAsAJudgeCriterion,
    LlmBackedUserSimulatorCriterion,
    MetricRun,
    RubricsBasedCriterion,
    SingleToolUseCriterion,
    ToolTrajectoryCriterion,
)
from . import efficiency, llm_conversation, llm_hallucinations, llm_match, llm_rubrics, rouge, trajectory, user_simulator, vertex
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
    *(
        MetricSpec(name, BaseCriterion, vertex.reference_metric(name), description, needs_expected=True)
        for name, description in [
            ("trajectory_exact_match", "Vertex: 1 when the turn's tool calls equal the expected ones, in order."),
            ("trajectory_in_order_match", "Vertex: 1 when the expected calls appear in order; extras allowed."),
            ("trajectory_any_order_match", "Vertex: 1 when the expected calls all appear, in any order."),
            ("trajectory_precision", "Vertex: share of the agent's calls that the expected calls hold."),
            ("trajectory_recall", "Vertex: share of the expected calls that the agent made."),
        ]
    ),
    MetricSpec(
        "trajectory_single_tool_use",
        SingleToolUseCriterion,
        vertex.evaluate_single_tool_use,
        "Vertex: 1 when the agent called `tool_name` in the turn.",
    ),
    *(
        MetricSpec(name, BaseCriterion, evaluate, description, informational=True)
        for name, evaluate, description in [
            ("tool_call_count_v1", efficiency.evaluate_tool_call_count, "Tool calls per turn (informational)."),
            ("inference_call_count_v1", efficiency.evaluate_inference_call_count, "Model calls per turn (informational)."),
            ("token_usage_v1", efficiency.evaluate_token_usage, "Tokens per turn, with a breakdown (informational)."),
            ("invocation_duration_v1", efficiency.evaluate_invocation_duration, "Seconds per turn, with a breakdown (informational)."),
        ]
    ),
    MetricSpec(
        "final_response_match_v2",
        LlmAsAJudgeCriterion,
        llm_match.evaluate,
        "LLM judge: is the response equivalent to the reference.",
        needs_expected=True,
    ),
    MetricSpec(
        "rubric_based_final_response_quality_v1",
        RubricsBasedCriterion,
        llm_rubrics.evaluate_final_response_quality,
        "LLM judge: final response rubrics.",
    ),
    MetricSpec(
        "rubric_based_tool_use_quality_v1",
        RubricsBasedCriterion,
        llm_rubrics.evaluate_tool_use_quality,
        "LLM judge: tool use rubrics.",
    ),
    MetricSpec(
        "hallucinations_v1", HallucinationsCriterion, llm_hallucinations.evaluate, "LLM judge: share of supported sentences."
    ),
    MetricSpec(
        "safety_v1", llm_conversation.SafetyCriterion, llm_conversation.evaluate_safety, "LLM judge: harmlessness of the response."
    ),
    _pending("response_evaluation_score", BaseCriterion, "Vertex coherence score (legacy)."),
    MetricSpec(
        "per_turn_user_simulator_quality_v1",
        LlmBackedUserSimulatorCriterion,
        user_simulator.evaluate,
        "LLM judge: does the simulated user follow its plan and end on time.",
    ),
    MetricSpec("multi_turn_task_success_v1", LlmAsAJudgeCriterion, llm_conversation.multi_turn_metric("multi_turn_task_success_v1"), "LLM judge: was the task achieved."),
    MetricSpec("multi_turn_trajectory_quality_v1", LlmAsAJudgeCriterion, llm_conversation.multi_turn_metric("multi_turn_trajectory_quality_v1"), "LLM judge: trajectory quality."),
    MetricSpec("multi_turn_tool_use_quality_v1", LlmAsAJudgeCriterion, llm_conversation.multi_turn_metric("multi_turn_tool_use_quality_v1"), "LLM judge: tool use quality."),
    MetricSpec(
        "rubric_based_multi_turn_trajectory_quality_v1",
        RubricsBasedCriterion,
        llm_rubrics.evaluate_multi_turn_trajectory_rubrics,
        "LLM judge: multi-turn trajectory rubrics.",
    ),
]

REGISTRY: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}
