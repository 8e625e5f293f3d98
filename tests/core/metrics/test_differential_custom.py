"""Differential test: ADK custom metrics (code_config) run by us and by google-adk 2.13's
_CustomMetricEvaluator on the same generated cases give equal overall and per-turn scores."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from agenteval_ci.core.metrics import MetricInput
from agenteval_ci.files.eval_configs import read_custom_metrics
from agenteval_ci.schema import BaseCriterion, EvalSet
from agenteval_ci.schema.eval_config import CustomMetricConfig

from .casegen import generate

adk_eval_set = pytest.importorskip("google.adk.evaluation.eval_set", reason="google-adk (test extra) is not installed")
from google.adk.evaluation.custom_metric_evaluator import _CustomMetricEvaluator  # noqa: E402
from google.adk.evaluation.eval_metrics import EvalMetric  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "user_metrics"


@pytest.fixture(scope="module")
def cases():
    sys.path.insert(0, str(DATA))
    expected_json, actual_json = generate(seed=20261128, num_cases=120)
    ours_expected, ours_actual = EvalSet.model_validate(expected_json), EvalSet.model_validate(actual_json)

    def to_adk(eval_set: EvalSet):
        return adk_eval_set.EvalSet.model_validate(eval_set.model_dump(mode="json", exclude_none=True))

    adk_expected, adk_actual = to_adk(ours_expected), to_adk(ours_actual)
    yield list(zip(ours_expected.eval_cases, ours_actual.eval_cases, adk_expected.eval_cases, adk_actual.eval_cases))
    sys.path.remove(str(DATA))


@pytest.mark.parametrize("function", ["tool_overlap", "reply_length"], ids=["sync", "async"])
def test_adk_custom_metric_scores_equal_adks(cases, function):
    path = f"adk_metrics.{function}"
    spec = read_custom_metrics({function: CustomMetricConfig.model_validate({"code_config": {"name": path}})}, DATA)[function]
    criterion = BaseCriterion(threshold=0.5)
    adk = _CustomMetricEvaluator(EvalMetric(metric_name=function, threshold=0.5), path)
    scores = set()
    for expected, actual, adk_expected, adk_actual in cases:
        ours = asyncio.run(spec.evaluate(MetricInput(criterion, actual.conversation, expected.conversation, expected)))
        theirs = asyncio.run(adk.evaluate_invocations(adk_actual.conversation, adk_expected.conversation))
        assert ours.reason is None
        assert ours.score == theirs.overall_score
        assert [p.score for p in ours.per_invocation] == [p.score for p in theirs.per_invocation_results]
        scores.add(ours.score)
    assert len(scores) > 3  # the generated cases give the metric something to tell apart
