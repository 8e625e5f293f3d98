"""Rubric-judged metrics: final response quality, tool use quality, multi-turn trajectory.

ADK 2.13's rules: the rubrics are the criterion's plus the case's and the invocation's of
the metric's `type` (others are dropped, and we warn); duplicate ids or no rubrics leave
the case NOT_EVALUATED. Each sample says yes/no per rubric; a majority vote per rubric
decides (a tie is no); an invocation scores the mean of its verdicts and the case the
micro-average of all verdicts. Per-rubric scores keep the judge's rationale.

Stricter than ADK: a sample counts only with exactly one yes/no verdict for every rubric it
was asked about (ADK scores what it could read); otherwise the judge draws it again.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import unicodedata
from dataclasses import dataclass
from typing import Awaitable, Callable, Optional, Union

from ...schema import (
    Invocation,
    InvocationScore,
    MetricRun,
    Rubric,
    RubricsBasedCriterion,
    RubricVerdict,
    Status,
    text_of,
)
from ..judging import Reader, Unreadable
from . import judge_context as context
from .base import MetricInput, not_evaluated, status_for
from .judge_context import APP_DETAILS, INTERMEDIATE_TEXTS, TOOL_RESPONSES
from .llm_judge import (
    ask_samples,
    dialogue,
    majority,
    not_evaluated_turn,
    read_json_list,
    read_label,
    render_prompt,
    response_text,
    tool_steps,
)


@dataclass(frozen=True)
class RubricSet:
    rubrics: list[Rubric]
    warnings: list[str]


class DuplicateRubric(ValueError):
    pass


def effective_rubrics(criterion: RubricsBasedCriterion, rubric_type: str, inp: MetricInput, turn: Optional[int]) -> RubricSet:
    """The criterion's rubrics, then the case's and the turn's (expected, then actual) of `rubric_type`."""
    scoped = [("case", inp.case.rubrics or [])]
    if turn is not None:
        if inp.expected is not None and turn < len(inp.expected):
            scoped.append((f"turn {turn + 1}", inp.expected[turn].rubrics or []))
        scoped.append((f"turn {turn + 1} (actual)", inp.actual[turn].rubrics or []))
    chosen = {r.rubric_id: r for r in criterion.rubrics}
    if len(chosen) != len(criterion.rubrics):
        raise DuplicateRubric("the criterion lists a rubric_id twice")
    warnings = []
    for scope, rubrics in scoped:
        for rubric in rubrics:
            if rubric.type != rubric_type:
                found = f"type {rubric.type!r}" if rubric.type else "no type"
                warnings.append(f"{scope} rubric {rubric.rubric_id!r} ignored: it has {found}, this metric reads type {rubric_type!r}")
            elif rubric.rubric_id in chosen:
                raise DuplicateRubric(f"rubric_id {rubric.rubric_id!r} of the {scope} is already defined")
            else:
                chosen[rubric.rubric_id] = rubric
    return RubricSet(list(chosen.values()), warnings)


def _normalized(text: object) -> str:
    text = unicodedata.normalize("NFKC", str(text or "")).lower()
    return re.sub(r"\s+", " ", text).strip(" *_`#>-\"'.")


def rubric_list(rubrics: list[Rubric]) -> str:
    return "\n".join(f"- id: {r.rubric_id} | {r.rubric_content.text_property}" for r in rubrics)


RubricVerdicts = dict[str, tuple[float, str]]  # rubric_id -> (1.0 yes / 0.0 no, the judge's rationale)


def rubric_reader(rubrics: list[Rubric]) -> Reader[RubricVerdicts]:
    """A reply -> one yes/no verdict and rationale for every rubric asked about, or why not.
    Entries are matched by id, else by their text; entries for rubrics not asked about are
    ignored (as ADK ignores them); a rubric missing, answered twice or with another label
    makes the whole reply unreadable."""
    by_id = {r.rubric_id: r.rubric_id for r in rubrics}
    by_text = {_normalized(r.rubric_content.text_property): r.rubric_id for r in rubrics}

    def read(text: str) -> Union[RubricVerdicts, Unreadable]:
        entries = read_json_list(text, "rubrics", dict)
        if isinstance(entries, Unreadable):
            return entries
        verdicts: RubricVerdicts = {}
        for entry in entries:
            rubric_id = by_id.get(str(entry.get("id")).strip()) or by_text.get(_normalized(entry.get("property")))
            if not rubric_id:
                continue
            if rubric_id in verdicts:
                return Unreadable(f"rubric {rubric_id!r} is answered twice")
            verdict = read_label(entry.get("verdict"), f"the verdict on rubric {rubric_id!r}", ("yes", "true"), ("no", "false"))
            if isinstance(verdict, Unreadable):
                return verdict
            verdicts[rubric_id] = (verdict, str(entry.get("rationale") or ""))
        missing = [r.rubric_id for r in rubrics if r.rubric_id not in verdicts]
        if missing:
            return Unreadable(f"no verdict on rubric(s) {', '.join(map(repr, missing))}")
        return verdicts

    return read


async def judge_rubrics(inp: MetricInput, metric: str, prompt: str, rubrics: list[Rubric], turns: list[Invocation]) -> InvocationScore:
    """All samples of one prompt (about `turns`, whose media go with it), then a majority vote per rubric."""
    criterion = inp.criterion
    assert isinstance(criterion, RubricsBasedCriterion) or hasattr(criterion, "judge_model_options")
    samples = await ask_samples(inp, metric, criterion.judge_model_options, prompt, rubric_reader(rubrics), turns=turns)
    if samples.error:
        return not_evaluated_turn(samples.error)
    verdicts = []
    for rubric in rubrics:
        votes = [sample[rubric.rubric_id] for sample in samples.values]  # every sample has every rubric
        verdict = majority([v for v, _ in votes])
        rationale = next((why for v, why in votes if v == verdict), None)
        verdicts.append(RubricVerdict(rubric_id=rubric.rubric_id, score=verdict, rationale=rationale))
    score = statistics.mean(v.score for v in verdicts if v.score is not None)
    return InvocationScore(score=score, status=status_for(score, criterion.threshold), rubric_scores=verdicts)


def summarize(turns: list[InvocationScore], threshold: float, warnings: list[str]) -> MetricRun:
    """ADK's summary: per-rubric mean over turns, and the micro-average of every verdict."""
    by_rubric: dict[str, list[RubricVerdict]] = {}
    for turn in turns:
        for verdict in turn.rubric_scores or []:
            by_rubric.setdefault(verdict.rubric_id, []).append(verdict)
    all_scores = [v.score for vs in by_rubric.values() for v in vs if v.score is not None]
    overall = statistics.mean(all_scores) if all_scores else None
    per_rubric = [_merge(rubric_id, verdicts) for rubric_id, verdicts in by_rubric.items()]
    failures = sorted({t.reason for t in turns if t.reason})
    reason = "; ".join([*failures, *dict.fromkeys(warnings)]) or None
    return MetricRun(
        score=overall,
        status=status_for(overall, threshold),
        reason=reason,
        per_invocation=turns,
        rubric_scores=per_rubric or None,
    )


def _merge(rubric_id: str, verdicts: list[RubricVerdict]) -> RubricVerdict:
    scores = [v.score for v in verdicts if v.score is not None]
    rationales = [v.rationale for v in verdicts if v.rationale]
    rationale = rationales[0] if len(verdicts) == 1 else " | ".join(dict.fromkeys(rationales)) or None
    return RubricVerdict(rubric_id=rubric_id, score=statistics.mean(scores) if scores else None, rationale=rationale)


# ---- the per-invocation rubric metrics


def _grounding_section(invocation: Invocation) -> str:
    found = context.grounding(context.events_of(invocation))
    return f"### Grounding the model was given (search results and their sources)\n{found}\n\n" if found else ""


def _final_response_prompt(inp: MetricInput, invocation: Invocation, rubrics: list[Rubric]) -> str:
    """ADK's inputs: the responding agent's instructions, every agent's tools, the request,
    the tool steps, the grounding metadata and the (optionally extended) final answer."""
    return render_prompt(
        "rubric_final_response",
        instructions=context.responding_agent_instructions(invocation),
        tools=context.declarations(invocation.app_details),
        user=text_of(invocation.user_content),
        steps=tool_steps(invocation),
        grounding=_grounding_section(invocation),
        response=response_text(invocation, inp.criterion.include_intermediate_responses_in_final),
        rubrics=rubric_list(rubrics),
    )


def _tool_use_prompt(inp: MetricInput, invocation: Invocation, rubrics: list[Rubric]) -> str:
    """ADK's inputs (every agent's tools, the request, the tool steps), plus every agent's
    instructions: they say when to use which tool."""
    return render_prompt(
        "rubric_tool_use",
        instructions=context.all_instructions(invocation.app_details),
        tools=context.declarations(invocation.app_details),
        user=text_of(invocation.user_content),
        steps=tool_steps(invocation),
        rubrics=rubric_list(rubrics),
    )


def _final_response_needs(criterion: RubricsBasedCriterion) -> tuple[str, ...]:
    """The agent's context, the tool steps, and its texts on the way when the answer includes them."""
    texts = (INTERMEDIATE_TEXTS,) if criterion.include_intermediate_responses_in_final else ()
    return (*APP_DETAILS, TOOL_RESPONSES, *texts)


def per_invocation_metric(
    name: str, rubric_type: str, build_prompt: Callable[..., str], needs: Callable[[RubricsBasedCriterion], tuple[str, ...]]
) -> Callable[[MetricInput], Awaitable[MetricRun]]:
    async def evaluate(inp: MetricInput) -> MetricRun:
        criterion = inp.criterion
        assert isinstance(criterion, RubricsBasedCriterion)
        try:
            sets = [effective_rubrics(criterion, rubric_type, inp, turn) for turn in range(len(inp.actual))]
        except DuplicateRubric as problem:
            return not_evaluated(f"duplicate rubric: {problem}")
        if not inp.actual:
            return not_evaluated("the agent produced no invocation")
        if any(not s.rubrics for s in sets):
            return not_evaluated(f"no rubrics: give them in the criterion or as case/invocation rubrics of type {rubric_type!r}")
        turns = await asyncio.gather(
            *(judge_rubrics(inp, name, build_prompt(inp, inv, s.rubrics), s.rubrics, [inv]) for inv, s in zip(inp.actual, sets))
        )
        run = summarize(list(turns), criterion.threshold, [w for s in sets for w in s.warnings])
        return context.flag_blind(run, context.missing_context(inp.actual, needs(criterion), inp.unreported), inp.media_notes)

    return evaluate


JudgedMetric = Callable[[MetricInput], Awaitable[MetricRun]]

evaluate_final_response_quality: JudgedMetric = per_invocation_metric(
    "rubric_based_final_response_quality_v1", "FINAL_RESPONSE_QUALITY", _final_response_prompt, _final_response_needs
)
evaluate_tool_use_quality: JudgedMetric = per_invocation_metric(
    "rubric_based_tool_use_quality_v1", "TOOL_USE_QUALITY", _tool_use_prompt, lambda _: (*APP_DETAILS, TOOL_RESPONSES)
)


# ---- judged on the whole conversation at the last turn


async def judge_conversation(inp: MetricInput, metric: str, rubrics: list[Rubric], warnings: list[str], tools: str) -> MetricRun:
    """ADK's multi-turn shape: earlier turns NOT_EVALUATED, the last turn carries the verdicts.
    The judge sees every agent's instructions over all turns, and `tools` as the metric renders them."""
    if not inp.actual:
        return not_evaluated("the agent produced no invocation")
    prompt = render_prompt(
        "rubric_conversation",
        instructions=context.conversation_instructions(inp.actual),
        tools=tools,
        dialogue=dialogue(inp.actual),
        rubrics=rubric_list(rubrics),
    )
    earlier = [
        InvocationScore(status=Status.NOT_EVALUATED, reason="judged on the whole conversation at the last turn")
        for _ in inp.actual[:-1]
    ]
    final = await judge_rubrics(inp, metric, prompt, rubrics, inp.actual)
    run = summarize([final], inp.criterion.threshold, warnings)
    # The dialogue shows every turn's tool steps and the agent's texts on the way.
    missing = context.missing_in_conversation(inp.actual, (*APP_DETAILS, TOOL_RESPONSES, INTERMEDIATE_TEXTS), inp.unreported)
    return context.flag_blind(run.model_copy(update={"per_invocation": [*earlier, final]}), missing, inp.media_notes)


async def evaluate_multi_turn_trajectory_rubrics(inp: MetricInput) -> MetricRun:
    criterion = inp.criterion
    assert isinstance(criterion, RubricsBasedCriterion)
    try:
        found = effective_rubrics(criterion, "TRAJECTORY_QUALITY", inp, len(inp.actual) - 1 if inp.actual else None)
    except DuplicateRubric as problem:
        return not_evaluated(f"duplicate rubric: {problem}")
    if not found.rubrics:
        return not_evaluated("no rubrics: give them in the criterion or as case/invocation rubrics of type 'TRAJECTORY_QUALITY'")
    # ADK's trajectory rubric lists each tool by name and description only.
    tools = context.conversation_tool_summaries(inp.actual)
    return await judge_conversation(inp, "rubric_based_multi_turn_trajectory_quality_v1", found.rubrics, found.warnings, tools)
