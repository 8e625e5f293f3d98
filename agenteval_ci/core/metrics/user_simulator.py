"""per_turn_user_simulator_quality_v1: did the simulated user keep to its scenario?

ADK's semantics: turn 1 passes when it equals the starting prompt (whitespace-trimmed);
every later turn is judged against the plan (and persona) given the conversation before
it, `num_samples` votes, majority wins, a tie counts as invalid; then the judge is asked
whether the stop signal would have been right after the last turn, and if not the last
turn fails. The score is passed turns / all turns.

Deliberate differences: a sample without a valid/invalid verdict is drawn again (ADK lets it
abstain from the vote), and when the judge gives no verdict for a turn, or cannot be reached,
the run is NOT_EVALUATED with the reason, never a lower score.
"""

from __future__ import annotations

import asyncio
import re
from typing import Union

from ...schema import Invocation, InvocationScore, MetricRun, Status, text_of
from ...schema.eval_config import LlmBackedUserSimulatorCriterion
from ..judging import Unreadable
from ..simulation import conversation_history, resolve_persona, turn_quality_prompt
from .base import NO_SIMULATED_USER, MetricInput, not_evaluated, status_for
from .llm_judge import INVALID_LABELS, VALID_LABELS, ask_samples, majority, read_json_reply, read_label

NAME = "per_turn_user_simulator_quality_v1"
_IS_VALID = re.compile(r'"is_valid"\s*:\s*\[?\s*"?([A-Za-z_ ]+)', re.IGNORECASE)


def read_verdict(text: str) -> Union[float, Unreadable]:
    """1.0 (valid) or 0.0 (invalid), or why the reply has neither."""
    reply = read_json_reply(text)
    if not isinstance(reply, Unreadable) and "is_valid" in reply:
        return read_label(reply["is_valid"], '"is_valid"', VALID_LABELS, INVALID_LABELS)
    match = _IS_VALID.search(text)  # JSON-ish replies ("True", trailing commas) as ADK reads them
    return read_label(match.group(1) if match else None, '"is_valid"', VALID_LABELS, INVALID_LABELS)


def _first_turn(invocation: Invocation, starting_prompt: str, threshold: float) -> InvocationScore:
    score = 1.0 if text_of(invocation.user_content).strip() == starting_prompt.strip() else 0.0
    reason = None if score else "the first user turn is not the scenario's starting_prompt"
    return InvocationScore(score=score, status=status_for(score, threshold), reason=reason)


async def _judge_turn(inp: MetricInput, candidate: str, before: list[Invocation]) -> InvocationScore | str:
    """The turn's verdict, or why the judge could not give one (a failed call, no judge)."""
    criterion = inp.criterion
    assert isinstance(criterion, LlmBackedUserSimulatorCriterion)
    scenario = inp.case.conversation_scenario
    assert scenario is not None
    prompt = turn_quality_prompt(
        scenario.conversation_plan,
        conversation_history(before),
        candidate,
        criterion.stop_signal,
        resolve_persona(scenario.user_persona),
    )
    samples = await ask_samples(inp, NAME, criterion.judge_model_options, prompt, read_verdict)
    if samples.error:
        return samples.error
    score = majority(samples.values)
    return InvocationScore(score=score, status=status_for(score, criterion.threshold))


async def evaluate(inp: MetricInput) -> MetricRun:
    scenario = inp.case.conversation_scenario
    if scenario is None:
        return not_evaluated(f"{NAME} judges a simulated user; {NO_SIMULATED_USER}")
    if not inp.actual:
        return not_evaluated("the conversation has no turn")
    assert isinstance(inp.criterion, LlmBackedUserSimulatorCriterion)  # the registry reads it as one
    threshold = inp.criterion.threshold
    later = [_judge_turn(inp, text_of(inv.user_content), inp.actual[:i]) for i, inv in enumerate(inp.actual) if i > 0]
    stop_check = _judge_turn(inp, inp.criterion.stop_signal, inp.actual)
    *judged, stop = await asyncio.gather(*later, stop_check)
    failures = [v for v in [*judged, stop] if isinstance(v, str)]
    if failures:
        return not_evaluated(failures[0])
    turns = [_first_turn(inp.actual[0], scenario.starting_prompt, threshold), *(v for v in judged if isinstance(v, InvocationScore))]
    if isinstance(stop, InvocationScore) and stop.status == Status.FAILED:  # as ADK: the last turn fails
        turns[-1] = stop.model_copy(update={"reason": "the judge found the conversation should not end after this turn"})
    passed = sum(t.score for t in turns if t.status == Status.PASSED and t.score is not None)
    score = passed / len(turns)
    return MetricRun(score=score, status=status_for(score, threshold), per_invocation=turns)
