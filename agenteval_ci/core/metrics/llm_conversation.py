"""Judged metrics without user-written rubrics: safety_v1 and ADK's three Vertex-backed
multi-turn metrics. ADK sends these to Vertex's evaluation service; we ask the configured
judge model instead, with our own harm policy and our own fixed checks (docs/judge.md).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from importlib import resources

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
