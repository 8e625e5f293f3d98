"""response_evaluation_score: ADK's legacy coherence metric, judged by the configured judge.

google-adk 2.13 sends each invocation (prompt, reference, response) to Vertex AI's COHERENCE
metric, a score from 1 to 5; the case scores the mean over the invocations Vertex scored, and
passes at `score >= threshold`. It needs the expected conversation, one expected turn per actual
turn. We ask the judge model for the same 1-to-5 rating with our own scale
(prompts/coherence.md); each invocation scores the mean of its `num_samples` ratings (one by
default, as Vertex gives one). A rating that is not a whole number from 1 to 5 is drawn again.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Union

from ...schema import CoherenceCriterion, Invocation, InvocationScore, MetricRun, text_of
from ..judging import Unreadable
from .base import MetricInput, adk_mean, paired
from .llm_judge import TurnJudge, judged_turns, read_json_reply, response_text

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


COHERENCE = TurnJudge(NAME, "coherence", read_rating, adk_mean, lambda ratings: {"ratings": ratings})


def _judge_turn(inp: MetricInput, actual: Invocation) -> Awaitable[InvocationScore]:
    criterion = inp.criterion
    assert isinstance(criterion, CoherenceCriterion)
    return COHERENCE.score(inp, criterion.judge_model_options, criterion.threshold, (actual,), prompt=text_of(actual.user_content),
                           response=response_text(actual, criterion.include_intermediate_responses_in_final))


async def evaluate(inp: MetricInput) -> MetricRun:
    pairs = paired(inp)  # as ADK: the expected conversation is required, turn for turn
    if isinstance(pairs, MetricRun):
        return pairs
    return await judged_turns(inp, (_judge_turn(inp, actual) for actual, _ in pairs))
