"""response_evaluation_score: ADK's legacy coherence metric, judged by the configured judge.

google-adk 2.13 sends each invocation (prompt, reference, response) to Vertex AI's COHERENCE
metric, a score from 1 to 5; the case scores the mean over the invocations Vertex scored, and
passes at `score >= threshold`. It needs the expected conversation, one expected turn per actual
turn. We ask the judge model for the same 1-to-5 rating with our own scale
(prompts/coherence.md); each invocation scores the mean of its `num_samples` ratings (one by
default, as Vertex gives one). A rating that is not a whole number from 1 to 5 is drawn again.
"""

from __future__ import annotations

import asyncio
from typing import Union

from ...schema import CoherenceCriterion, Invocation, InvocationScore, MetricRun, text_of
from ..judging import Unreadable
from .base import MetricInput, adk_mean, mean_run, paired, status_for
from .judge_context import flag_blind, response_texts_missing
from .llm_judge import ask_samples, not_evaluated_turn, read_json_reply, render_prompt, response_text

NAME = "response_evaluation_score"
SCALE = range(1, 6)


def read_rating(text: str) -> Union[float, Unreadable]:
    """The reply's `score`: a whole number from 1 to 5 (a numeric string or 4.0 is read too)."""
    reply = read_json_reply(text)
    if isinstance(reply, Unreadable):
        return reply
    value = reply.get("score")
    try:
        rating = float(str(value).strip().strip("*`\"'")) if not isinstance(value, bool) and value is not None else None
    except ValueError:
        rating = None
    if rating is None or not rating.is_integer() or int(rating) not in SCALE:
        return Unreadable(f'"score" is {value!r}, not a whole number from 1 to 5')
    return rating


async def _judge_turn(inp: MetricInput, actual: Invocation) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, CoherenceCriterion)
    prompt = render_prompt(
        "coherence",
        prompt=text_of(actual.user_content),
        response=response_text(actual, criterion.include_intermediate_responses_in_final),
    )
    samples = await ask_samples(inp.judge, NAME, criterion.judge_model_options, prompt, read_rating)
    if samples.error:
        return not_evaluated_turn(samples.error)
    score = adk_mean(samples.values)
    return InvocationScore(score=score, status=status_for(score, criterion.threshold), details={"ratings": samples.values})


async def evaluate(inp: MetricInput) -> MetricRun:
    pairs = paired(inp)  # as ADK: the expected conversation is required, turn for turn
    if isinstance(pairs, MetricRun):
        return pairs
    turns = await asyncio.gather(*(_judge_turn(inp, actual) for actual, _ in pairs))
    missing = response_texts_missing(inp.actual, inp.criterion.include_intermediate_responses_in_final, inp.unreported)
    return flag_blind(mean_run(list(turns), inp.criterion.threshold), missing)
