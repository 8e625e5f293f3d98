"""The registry: every metric name a config may use, and what reads its criterion.

Only the trajectory and efficiency modules load with it. Each other metric's module loads
the first time the metric scores: the judged ones bring asyncio, prompts and the judge,
ROUGE brings its stemmer, and a `score` of deterministic metrics needs none of that.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from ...schema import (
    BaseCriterion,
    CoherenceCriterion,
    HallucinationsCriterion,
    LlmAsAJudgeCriterion,
    LlmBackedUserSimulatorCriterion,
    RubricsBasedCriterion,
    SafetyCriterion,
    SessionStateCriterion,
    SingleToolUseCriterion,
    ToolArgsCriterion,
    ToolTrajectoryCriterion,
)
from . import efficiency, trajectory
from .base import Evaluate, MetricInput, MetricSpec
from .managed_specs import MANAGED_METRICS


class _Lazy:
    """A metric module, imported when one of its names is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(f"{__package__}.{self._name}"), attr)


if TYPE_CHECKING:  # the type checker and grep see the real functions each row names
    from . import (
        alignment,
        head_to_head,
        llm_coherence,
        llm_conversation,
        llm_hallucinations,
        llm_match,
        llm_rubrics,
        rouge,
        session_state,
        user_simulator,
        vertex,
        vertex_computation,
    )
else:  # the same names, each imported on first use
    globals().update({name: _Lazy(name) for name in (
        "alignment",
        "head_to_head",
        "llm_coherence",
        "llm_conversation",
        "llm_hallucinations",
        "llm_match",
        "llm_rubrics",
        "rouge",
        "session_state",
        "user_simulator",
        "vertex",
        "vertex_computation",
    )})


def _deferred(target: Callable[[], Callable[..., Any]], *args: str) -> Evaluate:
    """The metric function `target` gives (or, with `args`, the one its factory makes of them for
    a metric family), looked up on the first call: its module loads then."""
    loaded: Optional[Evaluate] = None

    def evaluate(inp: MetricInput) -> Any:
        nonlocal loaded
        if loaded is None:
            loaded = target()(*args) if args else target()
        return loaded(inp)

    return evaluate


PROMPTS = "metrics/prompts/"  # the judges' templates, under agenteval_ci/core

_SPECS = [
    MetricSpec(
        "tool_trajectory_avg_score",
        ToolTrajectoryCriterion,
        trajectory.evaluate,
        "Share of turns whose tool calls match the expected ones (EXACT / IN_ORDER / ANY_ORDER).",
        needs_expected=True,
    ),
    MetricSpec(
        "tool_trajectory_alignment_score",
        ToolArgsCriterion,
        _deferred(lambda: alignment.evaluate_alignment),
        "agenteval: partial credit from aligning expected and actual calls, argument rules applied.",
        needs_expected=True,
    ),
    MetricSpec(
        "tool_argument_match_score",
        ToolArgsCriterion,
        _deferred(lambda: alignment.evaluate_argument_match),
        "agenteval: share of expected arguments matched on the aligned calls, per tool.",
        needs_expected=True,
    ),
    MetricSpec(
        "response_match_score",
        BaseCriterion,
        _deferred(lambda: rouge.evaluate),
        "ROUGE-1 F-measure of the final response against the expected one.",
        needs_expected=True,
    ),
    *(
        MetricSpec(name, BaseCriterion, _deferred(lambda: vertex.reference_metric, name), description, needs_expected=True)
        for name, description in [
            ("trajectory_exact_match", "Vertex: 1 when the turn's tool calls equal the expected ones, in order."),
            ("trajectory_in_order_match", "Vertex: 1 when the expected calls appear in order; extras allowed."),
            ("trajectory_any_order_match", "Vertex: 1 when the expected calls all appear, in any order."),
            ("trajectory_precision", "Vertex: share of the agent's calls that the expected calls hold."),
            ("trajectory_recall", "Vertex: share of the expected calls that the agent made."),
        ]
    ),
    *(
        MetricSpec(name, BaseCriterion, _deferred(lambda: vertex_computation.metric, name), description, needs_expected=True)
        for name, description in [
            ("exact_match", "Vertex: 1 when the final response equals the expected one exactly."),
            ("bleu", "Vertex: sentence BLEU of the final response (sacrebleu, the `vertex` extra)."),
            ("rouge_1", "Vertex: ROUGE-1 F-measure of the final response, no stemming."),
            ("rouge_2", "Vertex: ROUGE-2 F-measure of the final response, no stemming."),
            ("rouge_l", "Vertex: ROUGE-L F-measure of the final response, no stemming."),
            ("rouge_l_sum", "Vertex: ROUGE-Lsum F-measure of the final response, split on newlines."),
            ("tool_call_valid", "Vertex: 1 when the turn made calls, each naming a tool with object args."),
            ("tool_name_match", "Vertex: 1 when the turn's tool names are the expected ones, in order."),
            ("tool_parameter_key_match", "Vertex: share of expected argument names passed, call by call."),
            ("tool_parameter_kv_match", "Vertex: share of expected arguments passed with equal values."),
        ]
    ),
    MetricSpec(
        "session_state_match",
        SessionStateCriterion,
        _deferred(lambda: session_state.evaluate),
        "agenteval: share of the expected final_session_state's keys the agent's final state matches, state rules applied.",
        reads_final_state=True,
    ),
    MetricSpec(
        "trajectory_single_tool_use",
        SingleToolUseCriterion,
        _deferred(lambda: vertex.evaluate_single_tool_use),
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
        _deferred(lambda: llm_match.evaluate),
        "LLM judge: is the response equivalent to the reference.",
        needs_expected=True,
        judged=True,
        prompts=(f"{PROMPTS}final_response_match_v2.md",),
    ),
    MetricSpec(
        "head_to_head_v1",
        LlmAsAJudgeCriterion,
        _deferred(lambda: head_to_head.evaluate),
        "agenteval: LLM judge, both orders: is the response better or worse than the baseline's recorded one (win / tie / loss).",
        judged=True,
        head_to_head=True,
        prompts=(f"{PROMPTS}head_to_head.md",),
    ),
    MetricSpec(
        "rubric_based_final_response_quality_v1",
        RubricsBasedCriterion,
        _deferred(lambda: llm_rubrics.evaluate_final_response_quality),
        "LLM judge: final response rubrics.",
        judged=True,
        reads_app_details=True,
        prompts=(f"{PROMPTS}rubric_final_response.md",),
    ),
    MetricSpec(
        "rubric_based_tool_use_quality_v1",
        RubricsBasedCriterion,
        _deferred(lambda: llm_rubrics.evaluate_tool_use_quality),
        "LLM judge: tool use rubrics.",
        judged=True,
        reads_app_details=True,
        prompts=(f"{PROMPTS}rubric_tool_use.md",),
    ),
    MetricSpec(
        "hallucinations_v1",
        HallucinationsCriterion,
        _deferred(lambda: llm_hallucinations.evaluate),
        "LLM judge: share of supported sentences.",
        judged=True,
        reads_app_details=True,
        prompts=(f"{PROMPTS}segment_sentences.md", f"{PROMPTS}label_sentences.md"),
    ),
    MetricSpec(
        "safety_v1",
        SafetyCriterion,
        _deferred(lambda: llm_conversation.evaluate_safety),
        "LLM judge: harmlessness of the response.",
        judged=True,
        prompts=(f"{PROMPTS}safety.md",),
    ),
    MetricSpec(
        "response_evaluation_score",
        CoherenceCriterion,
        _deferred(lambda: llm_coherence.evaluate),
        "LLM judge: coherence of the response, 1 to 5 (ADK's legacy Vertex metric).",
        needs_expected=True,
        judged=True,
        prompts=(f"{PROMPTS}coherence.md",),
    ),
    MetricSpec(
        "per_turn_user_simulator_quality_v1",
        LlmBackedUserSimulatorCriterion,
        _deferred(lambda: user_simulator.evaluate),
        "LLM judge: does the simulated user follow its plan and end on time.",
        judged=True,
        prompts=("simulation/templates/turn_quality.md.j2",),
    ),
    *(
        MetricSpec(name, LlmAsAJudgeCriterion, _deferred(lambda: llm_conversation.multi_turn_metric, name), description, judged=True,
                   prompts=(f"{PROMPTS}rubric_conversation.md", f"{PROMPTS}multi_turn_checks.json"))
        for name, description in [
            ("multi_turn_task_success_v1", "LLM judge: was the task achieved."),
            ("multi_turn_trajectory_quality_v1", "LLM judge: trajectory quality."),
            ("multi_turn_tool_use_quality_v1", "LLM judge: tool use quality."),
        ]
    ),
    MetricSpec(
        "rubric_based_multi_turn_trajectory_quality_v1",
        RubricsBasedCriterion,
        _deferred(lambda: llm_rubrics.evaluate_multi_turn_trajectory_rubrics),
        "LLM judge: multi-turn trajectory rubrics.",
        judged=True,
        reads_app_details=True,
        prompts=(f"{PROMPTS}rubric_conversation.md",),
    ),
]

REGISTRY: dict[str, MetricSpec] = {spec.name: spec for spec in [*_SPECS, *MANAGED_METRICS]}
