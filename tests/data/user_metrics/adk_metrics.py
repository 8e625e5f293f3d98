"""ADK custom metrics (google-adk's signature) for the differential and end-to-end tests."""

import asyncio

from google.adk.evaluation.eval_metrics import EvalStatus
from google.adk.evaluation.evaluator import EvaluationResult, PerInvocationResult


def _text(content):
    return " ".join(p.text for p in (content.parts or []) if p.text) if content else ""


def tool_overlap(eval_metric, actual, expected, scenario):
    """Per turn: the share of expected tool names the agent called (1.0 when none expected)."""
    per = []
    for a, e in zip(actual, expected or actual):
        wanted = {c.name for c in (e.intermediate_data.tool_uses if e.intermediate_data and hasattr(e.intermediate_data, "tool_uses") else [])}
        got = {c.name for c in (a.intermediate_data.tool_uses if a.intermediate_data and hasattr(a.intermediate_data, "tool_uses") else [])}
        score = len(wanted & got) / len(wanted) if wanted else 1.0
        per.append(PerInvocationResult(actual_invocation=a, expected_invocation=e, score=score, eval_status=EvalStatus.PASSED))
    overall = sum(p.score for p in per) / len(per) if per else None
    return EvaluationResult(overall_score=overall, overall_eval_status=EvalStatus.PASSED, per_invocation_results=per)


async def reply_length(eval_metric, actual, expected, scenario):
    """Async: per turn, the reply's length over 100 characters, capped at 1."""
    await asyncio.sleep(0)
    per = [PerInvocationResult(actual_invocation=a, score=min(1.0, len(_text(a.final_response)) / 100)) for a in actual]
    overall = sum(p.score for p in per) / len(per) if per else None
    return EvaluationResult(overall_score=overall, overall_eval_status=EvalStatus.PASSED, per_invocation_results=per)
