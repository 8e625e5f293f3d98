"""final_response_match_v2: does the judge find the response equivalent to the reference?

ADK 2.13's rules: each sample says valid or invalid; the majority decides (a tie is
invalid); the case score is the share of valid invocations among the evaluated ones.
A sample without a valid/invalid verdict is drawn again (ADK lets it abstain); an invocation
with a sample that still has none is NOT_EVALUATED.
"""

from __future__ import annotations

import asyncio

from ...schema import Invocation, InvocationScore, LlmAsAJudgeCriterion, MetricRun, text_of
from .base import MetricInput, mean_run, paired, status_for
from .judge_context import flag_blind, response_texts_missing
from .llm_judge import INVALID_LABELS, VALID_LABELS, ask_samples, majority, not_evaluated_turn, read_field_label, render_prompt, response_text

NAME = "final_response_match_v2"
read_verdict = read_field_label("verdict", yes=VALID_LABELS, no=INVALID_LABELS)  # ADK's words


async def _judge_turn(inp: MetricInput, actual: Invocation, expected: Invocation) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, LlmAsAJudgeCriterion)
    include = criterion.include_intermediate_responses_in_final
    prompt = render_prompt(
        NAME,
        prompt=text_of(expected.user_content),
        reference=response_text(expected, include),
        response=response_text(actual, include),
    )
    samples = await ask_samples(inp.judge, NAME, criterion.judge_model_options, prompt, read_verdict)
    if samples.error:
        return not_evaluated_turn(samples.error)
    score = majority(samples.values)
    return InvocationScore(
        score=score,
        status=status_for(score, criterion.threshold),
        details={"votes": ["valid" if v == 1.0 else "invalid" for v in samples.values]},
    )


async def evaluate(inp: MetricInput) -> MetricRun:
    pairs = paired(inp)
    if isinstance(pairs, MetricRun):
        return pairs
    turns = await asyncio.gather(*(_judge_turn(inp, actual, expected) for actual, expected in pairs))
    missing = response_texts_missing(inp.actual, inp.criterion.include_intermediate_responses_in_final, inp.unreported)
    return flag_blind(mean_run(list(turns), inp.criterion.threshold), missing)
