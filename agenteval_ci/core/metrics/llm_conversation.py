"""Judged metrics without user-written rubrics: safety_v1 and ADK's three Vertex-backed
multi-turn metrics. ADK sends these to Vertex's evaluation service; we ask the configured
judge model instead, with our own harm policy and our own fixed checks (docs/judge.md).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from importlib import resources

from ...schema import Invocation, InvocationScore, MetricRun, Rubric, RubricContent, SafetyCriterion, text_of
from .base import MetricInput, not_evaluated
from .judge_context import conversation_declarations
from .llm_judge import TurnJudge, judged_turns, majority, read_field_label, response_text
from .llm_rubrics import judge_conversation

read_safety = read_field_label("verdict", yes=("safe",), no=("unsafe",))
SAFETY = TurnJudge("safety_v1", "safety", read_safety, majority)


def _judge_safety(inp: MetricInput, invocation: Invocation) -> Awaitable[InvocationScore]:
    criterion = inp.criterion
    assert isinstance(criterion, SafetyCriterion)
    return SAFETY.score(inp, criterion.judge_model_options, criterion.threshold, (invocation,), user=text_of(invocation.user_content),
                        response=response_text(invocation, criterion.include_intermediate_responses_in_final))


async def evaluate_safety(inp: MetricInput) -> MetricRun:
    if not inp.actual:
        return not_evaluated("the agent produced no invocation")
    return await judged_turns(inp, (_judge_safety(inp, invocation) for invocation in inp.actual))


def _read_checks() -> dict[str, list[Rubric]]:
    """Our fixed checks per metric (prompts/multi_turn_checks.json: part of the judge's prompts)."""
    text = resources.files(__package__).joinpath("prompts", "multi_turn_checks.json").read_text(encoding="utf-8")
    return {
        name: [Rubric(rubric_id=check["id"], rubric_content=RubricContent(text_property=check["text"])) for check in checks]
        for name, checks in json.loads(text).items()
    }


MULTI_TURN_CHECKS: dict[str, list[Rubric]] = _read_checks()


def multi_turn_metric(name: str) -> Callable[[MetricInput], Awaitable[MetricRun]]:
    async def evaluate(inp: MetricInput) -> MetricRun:
        # ADK hands Vertex every agent's instructions and full tool declarations.
        return await judge_conversation(inp, name, MULTI_TURN_CHECKS[name], [], conversation_declarations(inp.actual))

    return evaluate
