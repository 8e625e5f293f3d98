"""hallucinations_v1: the share of a response's sentences its context supports.

ADK 2.13's procedure: the judge first splits each response into sentences, then labels
every sentence against the context (instructions, user prompt, tool definitions, the tool
calls and results and the agent's texts before it) as supported, unsupported,
contradictory, disputed or not_applicable. A step scores the share of supported +
not_applicable labels; an invocation the mean of its steps; the case the mean of its
invocations. With `evaluate_intermediate_nl_responses`, every text the agent emitted on
the way is a step of its own, judged against what came before it. A response the judge finds
no sentence in is a step with nothing to check (ADK leaves it out too).

Stricter than ADK: a labelling counts only with exactly one label of the five for every
sentence asked about (ADK scores the labels it could read); otherwise the judge draws it again.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from dataclasses import dataclass
from typing import Union

from ...schema import HallucinationsCriterion, Invocation, InvocationEvent, InvocationScore, MetricRun, text_of
from ..judging import Reader, Unreadable
from . import judge_context as context
from .base import MetricInput, not_evaluated, status_for
from .llm_judge import ask_samples, not_evaluated_turn, read_json_list, render_prompt, tool_steps

NAME = "hallucinations_v1"
POSITIVE = {"supported", "not_applicable"}
NEGATIVE = {"unsupported", "contradictory", "disputed"}


@dataclass(frozen=True)
class Step:
    response: str
    context: str


def _event_lines(events: list[InvocationEvent]) -> str:
    lines = []
    for event in events:
        for part in (event.content.parts if event.content else None) or []:
            if part.function_call:
                lines.append("tool call: " + json.dumps({"name": part.function_call.name, "args": part.function_call.args or {}}, default=str))
            if part.function_response:
                lines.append("tool output: " + json.dumps({"name": part.function_response.name, "response": part.function_response.response}, default=str))
            if part.text and not part.thought:
                lines.append(f"agent said: {part.text}")
    return "\n".join(lines) or "(nothing yet)"


def _agent_context(invocation: Invocation) -> str:
    """The part of ADK's context that is the same for every step of a turn: every agent's
    instructions, the request and every agent's tools (declarations can be tens of KB)."""
    return (
        f"Developer instructions:\n{context.all_instructions(invocation.app_details)}\n\n"
        f"User prompt:\n{text_of(invocation.user_content)}\n\n"
        f"Tool definitions (JSON declarations, by agent):\n{context.declarations(invocation.app_details)}\n\n"
    )


def _context(agent: str, earlier: str, grounded: list[InvocationEvent]) -> str:
    """ADK's context: the agent's part, the grounding metadata, and what happened before the response."""
    grounding = context.grounding(grounded)
    return (
        agent
        + (f"Grounding metadata (search results and their sources):\n{grounding}\n\n" if grounding else "")
        + f"What happened before this response:\n{earlier}"
    )


def steps_of(invocation: Invocation, intermediate: bool) -> list[Step]:
    events = context.events_of(invocation)
    agent = _agent_context(invocation)
    steps: list[Step] = []
    if intermediate:
        for index, event in enumerate(events):
            texts = [p.text for p in (event.content.parts if event.content else None) or [] if p.text and not p.thought]
            before = _event_lines(events[:index])
            # As in ADK, a text's own grounding is part of its context.
            grounded = events[: index + 1] if event.grounding_metadata else events[:index]
            steps.extend(Step(text, _context(agent, before, grounded)) for text in texts)
    final = text_of(invocation.final_response)
    if final:
        earlier = _event_lines(events) if events else tool_steps(invocation)
        steps.append(Step(final, _context(agent, earlier, events)))
    return steps


def read_sentences(text: str) -> Union[list[str], Unreadable]:
    """The sentences the judge split a response into (possibly none: nothing to check)."""
    sentences = read_json_list(text, "sentences", str)
    return sentences if isinstance(sentences, Unreadable) else [s for s in sentences if s.strip()]


Labels = list[dict[str, str]]  # per sentence, in order: the sentence, its label and the rationale


def labels_reader(count: int) -> Reader[Labels]:
    """A reply -> exactly `count` entries, each labelled with one of the five labels, or why not."""

    def read(text: str) -> Union[Labels, Unreadable]:
        entries = read_json_list(text, "sentences", dict)
        if isinstance(entries, Unreadable):
            return entries
        if len(entries) != count:
            return Unreadable(f"{len(entries)} labelled sentence(s) for the {count} asked about")
        labelled = [
            {"sentence": str(e.get("sentence", "")), "label": str(e.get("label", "")).strip().lower(), "rationale": str(e.get("rationale", ""))}
            for e in entries
        ]
        wrong = next((n for n, e in enumerate(labelled, start=1) if e["label"] not in POSITIVE | NEGATIVE), None)
        if wrong is not None:
            return Unreadable(f"sentence {wrong} is labelled {labelled[wrong - 1]['label']!r}, not one of {', '.join(sorted(POSITIVE | NEGATIVE))}")
        return labelled

    return read


Judged = Union[tuple[float, Labels], None, str]  # a step's score and labels, nothing to check, or why it failed


async def _judge_step(inp: MetricInput, step: Step, invocation: Invocation) -> Judged:
    """A step's sentences (split from its text alone), each labelled against its context and the turn's images and files."""
    assert isinstance(inp.criterion, HallucinationsCriterion)  # the registry reads it as one
    options = inp.criterion.judge_model_options
    split = await ask_samples(inp, NAME, options, render_prompt("segment_sentences", response=step.response), read_sentences, 1)
    if split.error:
        return f"sentence split: {split.error}"
    if not split.values[0]:
        return None
    sentences = "\n".join(f"{n}. {s}" for n, s in enumerate(split.values[0], start=1))
    prompt = render_prompt("label_sentences", context=step.context, sentences=sentences)
    labelled = await ask_samples(inp, NAME, options, prompt, labels_reader(len(split.values[0])), 1, turns=(invocation,))
    if labelled.error:
        return f"sentence labels: {labelled.error}"
    labels = labelled.values[0]
    return statistics.mean(1 if e["label"] in POSITIVE else 0 for e in labels), labels


async def _judge_invocation(inp: MetricInput, invocation: Invocation) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, HallucinationsCriterion)
    steps = steps_of(invocation, criterion.evaluate_intermediate_nl_responses)
    if not steps:
        return not_evaluated_turn("no text response to check")
    outcomes = await asyncio.gather(*(_judge_step(inp, step, invocation) for step in steps))
    failed = [o for o in outcomes if isinstance(o, str)]
    if failed:  # stricter than ADK, which drops a failed step: a judge failure never moves a score
        return not_evaluated_turn(failed[0])
    scored = [o for o in outcomes if o is not None and not isinstance(o, str)]  # failures returned above
    if not scored:
        return not_evaluated_turn("the judge found no sentence to check")
    score = statistics.mean(s for s, _ in scored)
    labels = [label for _, step_labels in scored for label in step_labels]
    return InvocationScore(score=score, status=status_for(score, criterion.threshold), details={"sentences": labels})


async def evaluate(inp: MetricInput) -> MetricRun:
    if not inp.actual:
        return not_evaluated("the agent produced no invocation")
    turns = list(await asyncio.gather(*(_judge_invocation(inp, invocation) for invocation in inp.actual)))
    scores = [t.score for t in turns if t.score is not None]
    if not scores:
        return MetricRun(per_invocation=turns, reason="; ".join(sorted({t.reason for t in turns if t.reason})))
    overall = statistics.mean(scores)
    needs = (*context.APP_DETAILS, context.TOOL_RESPONSES, context.INTERMEDIATE_TEXTS)
    missing = context.missing_context(inp.actual, needs, inp.unreported)
    run = MetricRun(score=overall, status=status_for(overall, inp.criterion.threshold), per_invocation=turns, judged_without=missing)
    return context.settle_media(run, inp.media_notes)
