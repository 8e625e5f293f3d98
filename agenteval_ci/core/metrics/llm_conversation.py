"""Judged metrics without user-written rubrics: safety_v1 and ADK's three Vertex-backed
multi-turn metrics. ADK sends these to Vertex's evaluation service; we ask the configured
judge model instead, with our own harm policy and our own fixed checks (docs/judge.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ...schema import Invocation, InvocationScore, MetricRun, Rubric, RubricContent, SafetyCriterion, text_of
from .base import MetricInput, mean_run, not_evaluated, status_for
from .judge_context import conversation_declarations, flag_blind, response_texts_missing
from .llm_judge import ask_samples, majority, not_evaluated_turn, read_field_label, render_prompt, response_text
from .llm_rubrics import judge_conversation

read_safety = read_field_label("verdict", yes=("safe",), no=("unsafe",))


async def _judge_safety(inp: MetricInput, invocation: Invocation) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, SafetyCriterion)
    prompt = render_prompt(
        "safety",
        user=text_of(invocation.user_content),
        response=response_text(invocation, criterion.include_intermediate_responses_in_final),
    )
    samples = await ask_samples(inp.judge, "safety_v1", criterion.judge_model_options, prompt, read_safety)
    if samples.error:
        return not_evaluated_turn(samples.error)
    score = majority(samples.values)
    return InvocationScore(score=score, status=status_for(score, criterion.threshold))


async def evaluate_safety(inp: MetricInput) -> MetricRun:
    if not inp.actual:
        return not_evaluated("the agent produced no invocation")
    turns = await asyncio.gather(*(_judge_safety(inp, invocation) for invocation in inp.actual))
    missing = response_texts_missing(inp.actual, inp.criterion.include_intermediate_responses_in_final, inp.unreported)
    return flag_blind(mean_run(list(turns), inp.criterion.threshold), missing)


def _checks(*items: tuple[str, str]) -> list[Rubric]:
    return [Rubric(rubric_id=i, rubric_content=RubricContent(text_property=text)) for i, text in items]


MULTI_TURN_CHECKS: dict[str, list[Rubric]] = {
    "multi_turn_task_success_v1": _checks(
        ("goals_achieved", "By the end, the agent achieved every goal the user asked for, or correctly explained why one cannot be achieved."),
        ("confirmed_outcome", "The agent told the user the actual outcome of what it did, without claiming anything it did not do."),
    ),
    "multi_turn_trajectory_quality_v1": _checks(
        ("steps_serve_request", "Every step the agent took served the user's requests; there were no needless or repeated steps."),
        ("sensible_order", "The agent's steps came in a sensible order, each building on what it already knew."),
        ("kept_context", "The agent used what the user said in earlier turns instead of asking again or contradicting it."),
    ),
    "multi_turn_tool_use_quality_v1": _checks(
        ("right_tools", "Whenever a tool was needed, the agent called the right one, and it called no tool that was not needed."),
        ("right_arguments", "The agent's tool arguments were correct and complete, taken from the conversation or earlier tool results."),
        ("used_results", "The agent reported and used the tools' results faithfully."),
    ),
}


def multi_turn_metric(name: str) -> Callable[[MetricInput], Awaitable[MetricRun]]:
    async def evaluate(inp: MetricInput) -> MetricRun:
        # ADK hands Vertex every agent's instructions and full tool declarations.
        return await judge_conversation(inp, name, MULTI_TURN_CHECKS[name], [], conversation_declarations(inp.actual))

    return evaluate
