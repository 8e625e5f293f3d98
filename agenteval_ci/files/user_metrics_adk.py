"""ADK's custom metrics called with google-adk's own types, as its _CustomMetricEvaluator calls
them: a deep copy of the EvalMetric with `threshold` set to None, ADK's Invocations, the case's
ConversationScenario. Imported only when such a metric runs (google-adk is optional)."""

from __future__ import annotations

from typing import Any, Union

from ..core.metrics.base import MetricInput
from ..core.metrics.user import Reply, Unscored


def adk_arguments(name: str, inp: MetricInput) -> tuple[Any, ...]:
    """(eval_metric, actual, expected, scenario) in google-adk's models, from ours dumped to JSON."""
    try:
        from google.adk.evaluation.eval_case import ConversationScenario, Invocation
        from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric
    except ImportError as exc:
        raise ImportError("an ADK custom metric (code_config) needs google-adk installed: pip install google-adk") from exc
    criterion = BaseCriterion.model_validate(inp.criterion.model_dump(mode="json", exclude_none=True))
    eval_metric = EvalMetric(metric_name=name, threshold=None, criterion=criterion)
    actual = [Invocation.model_validate(_json(turn)) for turn in inp.actual]
    expected = None if inp.expected is None else [Invocation.model_validate(_json(turn)) for turn in inp.expected]
    scenario = inp.case.conversation_scenario
    adk_scenario = None if scenario is None else ConversationScenario.model_validate(_json(scenario))
    return eval_metric, actual, expected, adk_scenario


def _json(model: Any) -> Any:
    return model.model_dump(mode="json", exclude_none=True)


def reply_of(result: Any) -> Union[Reply, Unscored]:
    """ADK's EvaluationResult (or anything shaped like it) as a Reply: overall and per-turn scores."""
    if not hasattr(result, "overall_score"):
        return Unscored(f"returned {type(result).__name__}, not an EvaluationResult")
    status = getattr(getattr(result, "overall_eval_status", None), "name", "")
    if result.overall_score is None:
        return Unscored(f"returned no overall_score (status {status or 'unknown'})")
    per_turn = [getattr(p, "score", None) for p in getattr(result, "per_invocation_results", None) or []]
    return Reply(result.overall_score, per_turn or None)
