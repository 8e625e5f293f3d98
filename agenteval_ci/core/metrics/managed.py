"""agents-cli's managed metrics, scored by Google's Gen AI evaluation service.

agents-cli (google-agents-cli 1.11) hands a `metrics_to_run` name it does not define itself to
Vertex AI's evals client, which resolves it to a predefined metric spec (managed_specs.MANAGED_SPECS:
the latest version the client knows, or the version its loader pins)
and sends each eval case to `evaluateInstances` as one instance: the prompt, the agent's
final response, the reference response when the case has one, and the agent's events as
`agent_eval_data`. We build the same instance from each turn the agent ran and ask the judge,
whose `vertex_eval` provider (judge/providers/vertex_eval.py) posts it. The single-turn
metrics score each turn and the case scores their mean, as our per-turn metrics do; the
MULTI_TURN_ ones judge the whole conversation once, at its last turn.

A result without a score (the service's per-metric error, a reply without one) is no verdict:
it is drawn again like any judge reply, then the turn is NOT_EVALUATED with the reason.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Optional, Union

from ...schema import Content, IntermediateData, Invocation, InvocationEvents, InvocationScore, MetricRun, Status
from ...schema.eval_config import ManagedCriterion
from ..judging import Unreadable
from .base import MetricInput, adk_mean, mean_run, not_evaluated, status_for
from .judge_context import flag_blind, missing_context
from .llm_judge import ask_samples, not_evaluated_turn

EXPLANATION_LIMIT = 500  # characters of the service's explanation kept with a turn's score


@dataclass(frozen=True)
class ServiceScore:
    score: float
    explanation: str


def read_result(text: str) -> Union[ServiceScore, Unreadable]:
    """A metric result's score (a finite number), or why it has none: the service's error for
    this metric, or no score at all."""
    try:
        result = json.loads(text)
    except ValueError as error:
        return Unreadable(f"malformed metric result: {error}")
    if not isinstance(result, dict):
        return Unreadable("the metric result is not an object")
    failure = result.get("error")
    if isinstance(failure, dict) and failure.get("code"):
        return Unreadable(f"the evaluation service's error {failure.get('code')}: {failure.get('message', '')}")
    score = result.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        return Unreadable(f"no score in the metric result (score is {score!r})")
    return ServiceScore(float(score), str(result.get("explanation") or "")[:EXPLANATION_LIMIT])


# ---- the instance, as the released client builds it

def _content(content: Content) -> dict[str, Any]:
    return content.model_dump(mode="json", exclude_none=True)


def _instance_data(contents: list[Content]) -> dict[str, Any]:
    return {"contents": {"contents": [_content(content) for content in contents]}}


def _event(author: str, content: Content) -> dict[str, Any]:
    return {"author": author, "content": _content(content)}


def _steps(invocation: Invocation) -> list[dict[str, Any]]:
    """The agent's events between the user's message and its final response."""
    data = invocation.intermediate_data
    if isinstance(data, InvocationEvents):
        return [_event(event.author, event.content) for event in data.invocation_events if event.content]
    if not isinstance(data, IntermediateData):
        return []
    events = [_event(author, Content(parts=parts, role="model")) for author, parts in data.intermediate_responses]
    calls = [{"function_call": call.model_dump(mode="json", exclude_none=True)} for call in data.tool_uses]
    answers = [{"function_response": answer.model_dump(mode="json", exclude_none=True)} for answer in data.tool_responses]
    if calls:
        events.append({"author": "model", "content": {"role": "model", "parts": calls}})
    if answers:
        events.append({"author": "tool", "content": {"role": "user", "parts": answers}})
    return events


def _turn(index: int, invocation: Invocation) -> dict[str, Any]:
    events = [_event("user", invocation.user_content), *_steps(invocation)]
    if invocation.final_response:
        events.append(_event("model", invocation.final_response))
    return {"turn_index": index, "turn_id": f"turn_{index}", "events": events}


def request_body(spec: str, turns: list[Invocation], reference: Optional[Content]) -> str:
    """The evaluateInstances body for `turns` (the last one's response is graded)."""
    last = turns[-1]
    instance: dict[str, Any] = {
        "prompt": _instance_data([turn.user_content for turn in turns]),
        "agent_eval_data": {"turns": [_turn(index, turn) for index, turn in enumerate(turns)]},
    }
    if last.final_response:
        instance["response"] = _instance_data([last.final_response])
    if reference:
        instance["reference"] = _instance_data([reference])
    body = {"metrics": [{"predefined_metric_spec": {"metric_spec_name": spec}}], "instance": instance}
    return json.dumps(body, sort_keys=True, ensure_ascii=False)


# ---- scoring

async def _score(inp: MetricInput, name: str, turns: list[Invocation], reference: Optional[Content]) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, ManagedCriterion)
    options = criterion.judge_model_options
    spec = options.judge_model.partition("/")[2]
    samples = await ask_samples(inp, name, options, request_body(spec, turns, reference), read_result, turns=turns)
    if samples.error:
        return not_evaluated_turn(samples.error)
    score = adk_mean([sample.score for sample in samples.values])
    explanations = [sample.explanation for sample in samples.values if sample.explanation]
    return InvocationScore(score=score, status=status_for(score, criterion.threshold), details={"explanations": explanations})


def _reference(inp: MetricInput, index: int) -> Optional[Content]:
    if inp.expected is None or len(inp.expected) != len(inp.actual):
        return None
    return inp.expected[index].final_response


async def _per_turn(inp: MetricInput, name: str, needs_reference: bool) -> MetricRun:
    if needs_reference and inp.expected is not None and len(inp.expected) != len(inp.actual):
        return not_evaluated(f"the agent produced {len(inp.actual)} invocation(s) but the case expects {len(inp.expected)}")
    turns = await asyncio.gather(*(_score_turn(inp, name, index, needs_reference) for index in range(len(inp.actual))))
    return _flagged(inp, mean_run(list(turns), inp.criterion.threshold))


def _flagged(inp: MetricInput, run: MetricRun) -> MetricRun:
    """The service's instance is text: a conversation's images and files were not judged."""
    return flag_blind(run, missing_context(inp.actual, (), inp.unreported), inp.media_notes)


async def _score_turn(inp: MetricInput, name: str, index: int, needs_reference: bool) -> InvocationScore:
    reference = _reference(inp, index)
    if needs_reference and reference is None:
        return not_evaluated_turn(f"{name} needs the case's reference response (the expected turn's final_response)")
    return await _score(inp, name, [inp.actual[index]], reference)


async def _whole_conversation(inp: MetricInput, name: str) -> MetricRun:
    earlier = [InvocationScore(status=Status.NOT_EVALUATED, reason="judged on the whole conversation at the last turn") for _ in inp.actual[:-1]]
    final = await _score(inp, name, list(inp.actual), _reference(inp, len(inp.actual) - 1))
    run = mean_run([final], inp.criterion.threshold)
    return _flagged(inp, run.model_copy(update={"per_invocation": [*earlier, final]}))


def metric(name: str, needs_reference: bool) -> Callable[[MetricInput], Awaitable[MetricRun]]:
    """The managed metric `name` (a row of managed_specs.MANAGED_SPECS)."""

    async def evaluate(inp: MetricInput) -> MetricRun:
        if not inp.actual:
            return not_evaluated("the agent produced no invocation")
        if name.startswith("multi_turn_"):
            return await _whole_conversation(inp, name)
        return await _per_turn(inp, name, needs_reference)

    return evaluate
