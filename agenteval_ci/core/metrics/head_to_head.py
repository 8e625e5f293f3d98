"""head_to_head_v1: the PR's final response against the baseline's recorded one, turn by turn.

Each turn goes to the judge twice, the baseline's answer shown first, then the PR's; an order
names an answer when three quarters of its samples do, and the two orders must agree for a win or a loss
(core/head_to_head.py has the rule and the suite's test). Both orders are asked together and a
turn is judged only when every sample of both came back readable: one missing sample leaves the
turn not evaluated, never half judged. Without the baseline's recorded answers for the case
(no baseline, a new or changed case, an old baseline without recorded outputs) the metric is not
evaluated, with the reason.
"""

from __future__ import annotations

import asyncio
from typing import Union, cast

from ...schema import Invocation, InvocationScore, LlmAsAJudgeCriterion, MetricRun, RubricVerdict, Status, text_of
from ..head_to_head import HEAD_TO_HEAD, ORDERS_AGREE, Order, order_verdict, turn_verdict
from ..judging import Unreadable
from .base import MetricInput, not_evaluated
from .judge_context import flag_blind, response_texts_missing
from .llm_judge import ask_samples, not_evaluated_turn, read_json_reply, render_prompt, response_text

NAME = HEAD_TO_HEAD
_POSITIONS: dict[str, Order] = {"a": "first", "b": "second", "tie": "tie"}


def read_better(text: str) -> Union[Order, Unreadable]:
    """The reply's {"better": "A" | "B" | "tie"} as the position it names."""
    reply = read_json_reply(text)
    if isinstance(reply, Unreadable):
        return reply
    label = str(reply.get("better", "")).strip().strip("*`\"'.").lower()
    if label not in _POSITIONS:
        shown = "missing" if "better" not in reply else repr(reply["better"])
        return Unreadable(f'"better" is {shown}, not one of A, B, tie')
    return _POSITIONS[label]


async def _judge_turn(inp: MetricInput, now: Invocation, before: Invocation) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, LlmAsAJudgeCriterion)
    include = criterion.include_intermediate_responses_in_final
    request, ours, theirs = text_of(now.user_content), response_text(now, include), response_text(before, include)
    options = criterion.judge_model_options
    baseline_first, pr_first = await asyncio.gather(
        ask_samples(inp, NAME, options, render_prompt("head_to_head", prompt=request, first=theirs, second=ours), read_better, turns=(now, before)),
        ask_samples(inp, NAME, options, render_prompt("head_to_head", prompt=request, first=ours, second=theirs), read_better, turns=(now, before)),
    )
    if baseline_first.error or pr_first.error:
        return not_evaluated_turn(baseline_first.error or pr_first.error or "")
    verdict = turn_verdict(order_verdict(cast(list[Order], baseline_first.values)), order_verdict(cast(list[Order], pr_first.values)))
    details = {
        "outcome": verdict.outcome,
        "position_disagreement": verdict.position_disagreement,
        "baseline_first": list(baseline_first.values),
        "pr_first": list(pr_first.values),
        "pr_response": ours,
        "baseline_response": theirs,
    }
    return InvocationScore(score=verdict.score, status=Status.PASSED, details=details)


def _unpaired(inp: MetricInput) -> MetricRun | list[tuple[Invocation, Invocation]]:
    if inp.baseline is None:
        return not_evaluated(f"no recorded baseline answer to compare with: {inp.baseline_missing or 'no baseline'}")
    if len(inp.baseline) != len(inp.actual):
        return not_evaluated(f"the baseline's recorded run has {len(inp.baseline)} turn(s), this run {len(inp.actual)}")
    return list(zip(inp.actual, inp.baseline))


async def evaluate(inp: MetricInput) -> MetricRun:
    pairs = _unpaired(inp)
    if isinstance(pairs, MetricRun):
        return pairs
    turns = list(await asyncio.gather(*(_judge_turn(inp, now, before) for now, before in pairs)))
    judged = [t for t in turns if t.score is not None]
    if len(judged) < len(turns):  # every turn or none: a case's record is never a part of it
        reason = next(t.reason for t in turns if t.score is None)
        return MetricRun(per_invocation=turns, reason=reason)
    score = sum(t.score for t in judged if t.score is not None) / len(judged)
    agree = 0.0 if any((t.details or {}).get("position_disagreement") for t in judged) else 1.0
    run = MetricRun(score=score, status=Status.PASSED, per_invocation=turns, rubric_scores=[RubricVerdict(rubric_id=ORDERS_AGREE, score=agree)])
    missing = response_texts_missing(inp.actual, inp.criterion.include_intermediate_responses_in_final, inp.unreported)
    return flag_blind(run, missing, inp.media_notes)
