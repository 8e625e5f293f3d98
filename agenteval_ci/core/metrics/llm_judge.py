"""What every LLM-judged metric shares: prompts, sampling, reply parsing, majority votes,
and the turns and tool steps a judge sees (the agent's own context: `judge_context`).

Metrics receive the judge through `MetricInput.judge` (see `agenteval_ci.judge`) and never
import google.genai. Each metric hands the judge a reader that finds a complete verdict in a
reply or says why there is none (`Unreadable`): the judge draws such a sample again and never
caches it. A sample that still fails leaves its invocation NOT_EVALUATED with the reason; it
never counts as a 0, and a verdict is never read from part of a reply.
"""

from __future__ import annotations

import asyncio
import json
import re
import string
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Generic, Optional, TypeVar, Union

from ...schema import (
    FunctionCall,
    FunctionResponse,
    IntermediateData,
    Invocation,
    InvocationEvents,
    InvocationScore,
    JudgeModelOptions,
    MetricRun,
    Status,
    text_of,
)
from ..judging import Judge, Reader, Unreadable
from .base import MetricInput, mean_run, status_for
from .judge_context import flag_blind, media_of, response_texts_missing

T = TypeVar("T")
NO_JUDGE = "no judge configured for LLM-judged metrics"


@lru_cache(maxsize=None)
def _template(name: str) -> string.Template:
    return string.Template(resources.files(__package__).joinpath("prompts", f"{name}.md").read_text(encoding="utf-8"))


def render_prompt(name: str, **fields: str) -> str:
    """Our prompt `prompts/<name>.md` (package data beside this module) with its $fields filled in."""
    return _template(name).substitute(fields)


# ---- judge replies

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


# ADK's labels (llm_as_judge_utils.Label) of a valid / invalid response.
VALID_LABELS = ("valid", "true")
INVALID_LABELS = ("invalid", "false", "almost", "partially_valid", "partially valid", "partially")


def read_json_reply(text: str) -> Union[dict[str, Any], Unreadable]:
    """The JSON object in a judge reply (code fences and prose around it allowed), or why there is none."""
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        return Unreadable("no JSON object")
    try:
        value = json.loads(body[start : end + 1])
    except ValueError as error:
        return Unreadable(f"malformed JSON: {error}")
    return value if isinstance(value, dict) else Unreadable("no JSON object")


def read_json_list(text: str, field_name: str, of: type) -> Union[list[Any], Unreadable]:
    """The list under `field_name` of a JSON reply, every item of type `of`, or why there is none."""
    reply = read_json_reply(text)
    if isinstance(reply, Unreadable):
        return reply
    items = reply.get(field_name)
    if not isinstance(items, list) or not all(isinstance(item, of) for item in items):
        return Unreadable(f'no "{field_name}" list of {of.__name__} items')
    return items


def yes_no(value: Any, yes: tuple[str, ...] = ("yes", "true"), no: tuple[str, ...] = ("no", "false")) -> Optional[float]:
    """1.0 / 0.0 for a recognised verdict, None for anything else."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    label = str(value).strip().strip("*`\"'.").lower()
    return 1.0 if label in yes else 0.0 if label in no else None


def read_label(value: Any, what: str, yes: tuple[str, ...], no: tuple[str, ...]) -> Union[float, Unreadable]:
    """1.0 / 0.0 for a label of the metric's vocabulary (`yes_no`'s leniency on case and
    emphasis), or why `value` is none of them."""
    score = yes_no(value, yes, no)
    if score is None:
        shown = "missing" if value is None else repr(value)
        return Unreadable(f"{what} is {shown}, not one of {', '.join(yes + no)}")
    return score


def read_field_label(field_name: str, yes: tuple[str, ...], no: tuple[str, ...]) -> Reader[float]:
    """A reader of replies like {"<field_name>": "<one of yes or no>", ...}."""

    def read(text: str) -> Union[float, Unreadable]:
        reply = read_json_reply(text)
        if isinstance(reply, Unreadable):
            return reply
        return read_label(reply.get(field_name), f'"{field_name}"', yes, no)

    return read


@dataclass(frozen=True)
class Samples(Generic[T]):
    """Every sample's verdict, or the first reason one has none."""

    values: list[T]
    error: Optional[str] = None


async def ask_samples(
    inp: MetricInput,
    metric: str,
    options: JudgeModelOptions,
    prompt: str,
    read: Reader[T],
    num_samples: Optional[int] = None,
    turns: Sequence[Invocation] = (),
) -> Samples[T]:
    """`num_samples` judge samples of one prompt, asked for in one request and each read
    whole by `read` (see `Judge.ask_many`). The images and files of `turns` (the turns the
    prompt shows) go with it; what the judge did with them is noted in `inp.media_notes`."""
    judge: Judge | None = inp.judge
    if judge is None:
        return Samples([], NO_JUDGE)
    count = num_samples or options.num_samples
    media = media_of(turns)
    answers = await judge.ask_many(metric, options.judge_model, options.judge_model_config, prompt, count, read, media)
    for index, answer in enumerate(answers):
        if answer.error:
            return Samples([], f"sample {index + 1} of {count}: {answer.error}")
    # Only a verdict is judged with or without the media: a failed request judged nothing.
    inp.media_notes.note(media, next((answer.media_withheld for answer in answers if answer.media_withheld), None))
    return Samples([answer.verdict for answer in answers])


def majority(votes: Sequence[Optional[float]]) -> Optional[float]:
    """ADK's vote: yes only with more yes than no (a tie is no); no votes at all is None."""
    positives = sum(1 for v in votes if v == 1.0)
    negatives = sum(1 for v in votes if v is not None and v != 1.0)
    if not positives and not negatives:
        return None
    return 1.0 if positives > negatives else 0.0


@dataclass(frozen=True)
class TurnJudge:
    """One turn's question to the judge, as the per-turn judged metrics ask it: a prompt
    template, the reader of each sample's verdict, how the samples make the turn's score, and
    what of them the turn's details keep."""

    metric: str  # the judge's records name the metric
    template: str  # prompts/<template>.md
    read: Reader[float]
    combine: Callable[[list[float]], Optional[float]]
    details: Optional[Callable[[list[float]], dict[str, Any]]] = None

    async def score(
        self, inp: MetricInput, options: JudgeModelOptions, threshold: float, turns: Sequence[Invocation], **fields: str
    ) -> InvocationScore:
        """The turn's score; `turns`: the turns its prompt shows, whose images and files go with it."""
        samples = await ask_samples(inp, self.metric, options, render_prompt(self.template, **fields), self.read, turns=turns)
        if samples.error:
            return not_evaluated_turn(samples.error)
        score = self.combine(samples.values)
        return InvocationScore(score=score, status=status_for(score, threshold), details=self.details(samples.values) if self.details else None)


async def judged_turns(inp: MetricInput, turns: Iterable[Awaitable[InvocationScore]]) -> MetricRun:
    """The turns judged at once, their mean the run's score, flagged where the judge could not
    read a response the agent did not report."""
    scored = await asyncio.gather(*turns)
    missing = response_texts_missing(inp.actual, inp.criterion.include_intermediate_responses_in_final, inp.unreported)
    return flag_blind(mean_run(list(scored), inp.criterion.threshold), missing, inp.media_notes)


def not_evaluated_turn(reason: str) -> InvocationScore:
    return InvocationScore(status=Status.NOT_EVALUATED, reason=reason)


# ---- what the judge sees of an invocation


def response_text(invocation: Invocation, include_intermediate: bool = False) -> str:
    """The final response, optionally after the agent's intermediate texts (ADK's rule)."""
    if not include_intermediate:
        return text_of(invocation.final_response)
    texts: list[str] = []
    data = invocation.intermediate_data
    if isinstance(data, InvocationEvents):
        texts = [text_of(e.content) for e in data.invocation_events]
    elif isinstance(data, IntermediateData):
        texts = ["\n".join(p.text for p in parts if p.text) for _, parts in data.intermediate_responses]
    texts.append(text_of(invocation.final_response))
    return "\n".join(t for t in texts if t)


def _call_json(call: Union[FunctionCall, FunctionResponse]) -> dict[str, Any]:
    if isinstance(call, FunctionCall):
        return {"call": call.name, "args": call.args or {}}
    return {"result_of": call.name, "result": call.response}


def tool_steps(invocation: Invocation) -> str:
    """The invocation's tool calls and their results, in order, as JSON lines."""
    data = invocation.intermediate_data
    steps: list[Union[FunctionCall, FunctionResponse]] = []
    if isinstance(data, InvocationEvents):
        for event in data.invocation_events:
            for part in (event.content.parts if event.content else None) or []:
                steps.extend(x for x in (part.function_call, part.function_response) if x)
    elif isinstance(data, IntermediateData):
        steps = [*data.tool_uses, *data.tool_responses]
    if not steps:
        return "(no tool calls)"
    return "\n".join(json.dumps(_call_json(s), ensure_ascii=False, default=str) for s in steps)


def dialogue(invocations: list[Invocation]) -> str:
    """The whole conversation, turn by turn, with the agent's tool calls and results."""
    lines = []
    for number, invocation in enumerate(invocations, start=1):
        lines.append(f"[turn {number}] USER: {text_of(invocation.user_content)}")
        steps = tool_steps(invocation)
        if steps != "(no tool calls)":
            lines.extend(f"[turn {number}] AGENT TOOL STEP: {step}" for step in steps.splitlines())
        lines.append(f"[turn {number}] AGENT: {response_text(invocation, include_intermediate=True)}")
    return "\n".join(lines)
