"""Argument rules beside google-adk 2.13 (differential, on the generated cases):

- ADK's criterion models allow extra keys, so a `tool_args` inside tool_trajectory_avg_score
  is accepted and ignored by ADK: we must score it exactly as ADK does (and only warn).
- With no rules, our alignment gives a turn 1.0 exactly when ADK's EXACT match does.
"""

from __future__ import annotations

import pytest

from agenteval_ci.core.metrics import REGISTRY, MetricInput
from agenteval_ci.files.eval_configs import load_eval_config
from agenteval_ci.schema import ToolArgsCriterion

from .test_differential import _assert_same, cases  # noqa: F401 - the shared fixture

pytest.importorskip("google.adk.evaluation.eval_set", reason="google-adk (test extra) is not installed")
from google.adk.evaluation.eval_metrics import EvalMetric  # noqa: E402
from google.adk.evaluation.eval_metrics import ToolTrajectoryCriterion as AdkTrajectoryCriterion  # noqa: E402
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402

RAW = {"threshold": 1.0, "match_type": "IN_ORDER", "tool_args": {"*": {"$": "ignore"}}}


def test_adk_accepts_rules_on_its_criterion_and_so_scores_as_if_they_were_absent(cases, tmp_path):  # noqa: F811
    adk_criterion = AdkTrajectoryCriterion.model_validate(RAW)
    assert adk_criterion.model_extra == {"tool_args": {"*": {"$": "ignore"}}}
    evaluator = TrajectoryEvaluator(eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", criterion=adk_criterion))
    config_file = tmp_path / "test_config.json"
    config_file.write_text('{"criteria": {"tool_trajectory_avg_score": %s}}' % __import__("json").dumps(RAW))
    loaded = load_eval_config(config_file)
    assert [w.json_path for w in loaded.warnings] == ["$.criteria.tool_trajectory_avg_score.tool_args"]
    (ours,) = [m for m in loaded.metrics if m.name == "tool_trajectory_avg_score"]
    for expected, actual, adk_expected, adk_actual, case in cases:
        run = ours.spec.evaluate(MetricInput(ours.criterion, actual, expected, case))
        _assert_same(run, evaluator.evaluate_invocations(adk_actual, adk_expected))


def test_without_rules_a_perfect_alignment_is_adks_exact_match(cases):  # noqa: F811
    evaluator = TrajectoryEvaluator(
        eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", criterion=AdkTrajectoryCriterion(threshold=1.0))
    )
    criterion = ToolArgsCriterion(threshold=1.0)
    partial = 0
    for expected, actual, adk_expected, adk_actual, case in cases:
        ours = REGISTRY["tool_trajectory_alignment_score"].evaluate(MetricInput(criterion, actual, expected, case))
        adk = evaluator.evaluate_invocations(adk_actual, adk_expected)
        if not adk.per_invocation_results:
            assert ours.score is None
            continue
        for mine, theirs in zip(ours.per_invocation, adk.per_invocation_results):
            assert (mine.score == 1.0) == (theirs.score == 1.0)
            assert 0.0 <= mine.score <= 1.0
            partial += 0.0 < mine.score < 1.0
    assert partial, "the generated cases should give some turns partial credit"
