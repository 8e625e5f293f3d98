"""Differential tests: our deterministic metrics against google-adk 2.13's evaluators.

A seeded generator (casegen.py) writes a few hundred cases with perturbed actual outputs;
ADK's evaluators read the same data (our models dumped to JSON, then ADK's model_validate)
and every per-invocation score, overall score, status and breakdown must be *equal* (==).
"""

from __future__ import annotations

import pytest

from agenteval_ci.core.metrics import REGISTRY, MetricInput
from agenteval_ci.schema import BaseCriterion, EvalSet, MatchType, MetricRun, ToolTrajectoryCriterion

from .casegen import generate

adk_eval_set = pytest.importorskip("google.adk.evaluation.eval_set", reason="google-adk (test extra) is not installed")
from google.adk.evaluation import _efficiency_evaluators as adk_efficiency  # noqa: E402
from google.adk.evaluation.eval_metrics import EvalMetric  # noqa: E402
from google.adk.evaluation.eval_metrics import ToolTrajectoryCriterion as AdkTrajectoryCriterion  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator  # noqa: E402
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402

NUM_CASES = 300


@pytest.fixture(scope="module")
def cases():
    """(our expected, our actual, ADK expected, ADK actual) conversations of every case."""
    expected_json, actual_json = generate(seed=20251122, num_cases=NUM_CASES)
    ours_expected = EvalSet.model_validate(expected_json)
    ours_actual = EvalSet.model_validate(actual_json)

    def to_adk(eval_set: EvalSet):
        return adk_eval_set.EvalSet.model_validate(eval_set.model_dump(mode="json", exclude_none=True))

    adk_expected, adk_actual = to_adk(ours_expected), to_adk(ours_actual)
    return [
        (e.conversation, a.conversation, ae.conversation, aa.conversation, e)
        for e, a, ae, aa in zip(
            ours_expected.eval_cases, ours_actual.eval_cases, adk_expected.eval_cases, adk_actual.eval_cases
        )
    ]


def _ours(metric: str, criterion: BaseCriterion, expected, actual, case) -> MetricRun:
    return REGISTRY[metric].evaluate(MetricInput(criterion, actual, expected, case))


def _assert_same(ours: MetricRun, adk) -> None:
    assert ours.score == adk.overall_score
    assert ours.status.value == adk.overall_eval_status.name
    assert [p.score for p in ours.per_invocation] == [p.score for p in adk.per_invocation_results]
    assert [p.status.value for p in ours.per_invocation] == [p.eval_status.name for p in adk.per_invocation_results]


def test_generator_covers_the_perturbations(cases):
    scores = [
        _ours("tool_trajectory_avg_score", ToolTrajectoryCriterion(threshold=1.0), e, a, c).score
        for e, a, _, _, c in cases
    ]
    assert 0.0 in scores and 1.0 in scores and any(0.0 < s < 1.0 for s in scores)
    shapes = {type(inv.intermediate_data).__name__ for _, a, _, _, _ in cases for inv in a}
    assert shapes == {"IntermediateData", "InvocationEvents"}


@pytest.mark.parametrize("match_type", list(MatchType), ids=lambda m: m.name)
@pytest.mark.parametrize("ignore_args", [False, True])
@pytest.mark.parametrize("threshold", [0.5, 1.0])
def test_tool_trajectory_matches_adk(cases, match_type, ignore_args, threshold):
    criterion = ToolTrajectoryCriterion(threshold=threshold, match_type=match_type, ignore_args=ignore_args)
    adk_criterion = AdkTrajectoryCriterion(
        threshold=threshold, match_type=AdkTrajectoryCriterion.MatchType[match_type.name], ignore_args=ignore_args
    )
    evaluator = TrajectoryEvaluator(eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", criterion=adk_criterion))
    for expected, actual, adk_expected, adk_actual, case in cases:
        ours = _ours("tool_trajectory_avg_score", criterion, expected, actual, case)
        _assert_same(ours, evaluator.evaluate_invocations(adk_actual, adk_expected))


@pytest.mark.parametrize("threshold", [0.3, 0.8])
def test_response_match_matches_adk(cases, threshold):
    evaluator = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=threshold))
    for expected, actual, adk_expected, adk_actual, case in cases:
        ours = _ours("response_match_score", BaseCriterion(threshold=threshold), expected, actual, case)
        _assert_same(ours, evaluator.evaluate_invocations(adk_actual, adk_expected))


def test_response_match_scores_unicode_and_cjk(cases):
    """The generator's non-ASCII replies score above 0 against themselves (ADK's tokenizer keeps them)."""
    from agenteval_ci.core.metrics.rouge import rouge1_fmeasure

    from .casegen import UNICODE_REPLIES

    for reply in UNICODE_REPLIES:
        assert rouge1_fmeasure(reply, reply) == 1.0
    assert rouge1_fmeasure("", "") == 0.0
    assert rouge1_fmeasure("ＦＵＬＬＷＩＤＴＨ", "fullwidth") == 1.0  # NFKC then lowercase


_EFFICIENCY = {
    "tool_call_count_v1": adk_efficiency._ToolCallCountV1Evaluator,
    "inference_call_count_v1": adk_efficiency._InferenceCallCountV1Evaluator,
    "token_usage_v1": adk_efficiency._TokenUsageV1Evaluator,
    "invocation_duration_v1": adk_efficiency._InvocationDurationV1Evaluator,
}


@pytest.mark.parametrize("metric", list(_EFFICIENCY))
def test_efficiency_matches_adk(cases, metric):
    evaluator = _EFFICIENCY[metric]()
    seen_none = seen_value = False
    for expected, actual, adk_expected, adk_actual, case in cases:
        ours = _ours(metric, BaseCriterion(threshold=0.0), expected, actual, case)
        adk = evaluator.evaluate_invocations(adk_actual, adk_expected)
        _assert_same(ours, adk)
        for mine, theirs in zip(ours.per_invocation, adk.per_invocation_results):
            detail = theirs.token_usage_details or theirs.duration_details
            assert mine.details == (detail.model_dump() if detail else None)
            seen_none |= mine.score is None
            seen_value |= mine.score is not None
        overall = adk.overall_token_usage_details or adk.overall_duration_details
        assert ours.details == (overall.model_dump() if overall else None)
    assert seen_value
    if metric in ("inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"):
        assert seen_none, "the generator should also produce invocations without this figure"
