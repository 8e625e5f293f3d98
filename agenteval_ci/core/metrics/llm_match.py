"""final_response_match_v2: does the judge find the response equivalent to the reference?

ADK 2.13's rules: each sample says valid or invalid; the majority decides (a tie is
invalid); the case score is the share of valid invocations among the evaluated ones.
A sample without a valid/invalid verdict is drawn again (ADK lets it abstain); an invocation
with a sample that still has none is NOT_EVALUATED.
"""

from __future__ import annotations

from collections.abc import Awaitable

from ...schema import Invocation, InvocationScore, LlmAsAJudgeCriterion, MetricRun, text_of
from .base import MetricInput, paired
from .llm_judge import INVALID_LABELS, VALID_LABELS, TurnJudge, judged_turns, majority, read_field_label, response_text

NAME = "final_response_match_v2"
read_verdict = read_field_label("verdict", yes=VALID_LABELS, no=INVALID_LABELS)  # ADK's words
MATCH = TurnJudge(NAME, NAME, read_verdict, majority, lambda votes: {"votes": ["valid" if v == 1.0 else "invalid" for v in votes]})


def _judge_turn(inp: MetricInput, actual: Invocation, expected: Invocation) -> Awaitable[InvocationScore]:
    criterion = inp.criterion
    assert isinstance(criterion, LlmAsAJudgeCriterion)
    include = criterion.include_intermediate_responses_in_final
    return MATCH.score(inp, criterion.judge_model_options, criterion.threshold, (actual, expected), prompt=text_of(expected.user_content),
                       reference=response_text(expected, include), response=response_text(actual, include))


async def evaluate(inp: MetricInput) -> MetricRun:
    pairs = paired(inp)
    if isinstance(pairs, MetricRun):
        return pairs
    return await judged_turns(inp, (_judge_turn(inp, actual, expected) for actual, expected in pairs))
