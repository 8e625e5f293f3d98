"""A judge metric from the user's own prompt template: the team writes the question, its fields
and the answers it allows; our judge asks it (every provider, num_samples, cache, retries, the
all-or-nothing reply rule) and the gate judges the scores like any other.

The template names fields in braces, as Vertex's and agents-cli's prompt templates do
(`{prompt}`, `{response}`, `{reference}`, ...; `{{` and `}}` are literal braces); FIELDS lists
them. The scale maps each answer the judge may give to a score: labels (`pass: 1, fail: 0`) or
ratings (`"1" .. "5"`, scored as their numbers). We add one paragraph of our own asking for
the answer as JSON; a reply whose `rating` is not one of the answers is drawn again. Each turn is
judged on its own; a turn's samples combine as the built-in judges' do: a majority where the
scores are 0 and 1 (a tie is 0, ADK's rule), else their mean. The template's text and the scale
are hashed into the judge's fingerprint, so an edit to either is told apart from a change of
the agent (core/judge_change.py re-judges the baseline's recorded outputs).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from ...schema import Invocation, InvocationScore, LlmAsAJudgeCriterion, MetricRun, Rubric, text_of
from ...schema.prompt_template import FIELD_PATTERN, NEEDS_EXPECTED, template_fields
from ..judging import Unreadable
from .base import MetricInput, MetricSpec, adk_mean, not_evaluated, status_for
from .llm_judge import ask_samples, dialogue, judged_turns, majority, not_evaluated_turn, read_json_reply, response_text, tool_steps


def render(template: str, values: Mapping[str, str]) -> str:
    def fill(match: re.Match[str]) -> str:
        token = match.group(0)
        return token[0] if match.group(1) is None else values[match.group(1)]

    return FIELD_PATTERN.sub(fill, template)


@dataclass(frozen=True)
class Scale:
    """The answers the judge may give, each with its score."""

    scores: Mapping[str, float]

    @classmethod
    def of_labels(cls, labels: Mapping[str, float]) -> Scale:
        return cls({_folded(label): float(score) for label, score in labels.items()})

    @classmethod
    def of_ratings(cls, ratings: Mapping[str, Any]) -> Scale:
        """Vertex's rating_scores: each rating (a number, as text) with what it means."""
        return cls({_folded(rating): float(rating) for rating in ratings})

    @property
    def low(self) -> float:
        return min(self.scores.values())

    @property
    def high(self) -> float:
        return max(self.scores.values())

    @property
    def binary(self) -> bool:
        return set(self.scores.values()) <= {0.0, 1.0}

    def read(self, text: str) -> Union[tuple[float, str], Unreadable]:
        """A reply's rating as its score, with its explanation."""
        reply = read_json_reply(text)
        if isinstance(reply, Unreadable):
            return reply
        rating = reply.get("rating")
        score = self.scores.get(_folded(rating)) if isinstance(rating, (str, int, float)) and not isinstance(rating, bool) else None
        if score is None:
            return Unreadable(f'"rating" is {rating!r}, not one of {", ".join(self.scores)}')
        explanation = reply.get("explanation")
        return score, explanation if isinstance(explanation, str) else ""


def _folded(answer: object) -> str:
    """An answer as the scale keys it: `4`, `4.0` and " 4 " are one rating; labels fold case."""
    text = str(answer).strip().strip("*`\"'").lower()
    try:
        number = float(text)
    except ValueError:
        return text
    return f"{number:g}"


@dataclass(frozen=True)
class TemplateMetric:
    name: str
    template: str
    scale: Scale
    description: str = ""
    fields: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(template_fields(self.template)))

    @property
    def needs_expected(self) -> bool:
        return bool(NEEDS_EXPECTED & set(self.fields))

    @property
    def prompt_hash(self) -> str:
        """What the judge's fingerprint holds of this metric: the template, the scale and our reply paragraph."""
        data = json.dumps({"template": self.template, "scale": dict(sorted(self.scale.scores.items())), "reply": REPLY_FORMAT},
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def prompt(self, values: Mapping[str, str]) -> str:
        answers = ", ".join(json.dumps(answer) for answer in self.scale.scores)
        return render(self.template, values) + REPLY_FORMAT.replace("$answers", answers)


# Our words, added after the user's template: the answer as JSON, the rating one of the scale's answers.
REPLY_FORMAT = ('\n\nGive your answer as one JSON object and nothing else: {"rating": <one of $answers>, '
                '"explanation": "<one or two sentences: why>"}')


def _rubric_lines(rubrics: Optional[list[Rubric]]) -> list[str]:
    return [r.rubric_content.text_property for r in rubrics or [] if r.rubric_content and r.rubric_content.text_property]


def _values(metric: TemplateMetric, inp: MetricInput, turn: int, expected: Optional[Invocation]) -> dict[str, str]:
    actual = inp.actual[turn]
    include = inp.criterion.include_intermediate_responses_in_final
    every = {
        "prompt": lambda: text_of(actual.user_content),
        "response": lambda: response_text(actual, include),
        "reference": lambda: response_text(expected, include) if expected else "",
        "tool_calls": lambda: tool_steps(actual),
        "expected_tool_calls": lambda: tool_steps(expected) if expected else "",
        "intermediate_responses": lambda: response_text(actual, True).removesuffix(text_of(actual.final_response)).strip(),
        "conversation": lambda: dialogue(inp.actual[: turn + 1]),
        "rubrics": lambda: "\n".join(_rubric_lines(inp.case.rubrics) + _rubric_lines(actual.rubrics)) or "(no rubrics)",
    }
    return {name: every[name]() for name in metric.fields}


async def _judge_turn(metric: TemplateMetric, inp: MetricInput, turn: int, expected: Optional[Invocation]) -> InvocationScore:
    criterion = inp.criterion
    assert isinstance(criterion, LlmAsAJudgeCriterion)
    prompt = metric.prompt(_values(metric, inp, turn, expected))
    shown = inp.actual[: turn + 1] if "conversation" in metric.fields else [inp.actual[turn]]
    samples = await ask_samples(inp, metric.name, criterion.judge_model_options, prompt, metric.scale.read,
                                turns=[*shown, *([expected] if expected else [])])
    if samples.error:
        return not_evaluated_turn(samples.error)
    scores = [score for score, _ in samples.values]
    score = majority(scores) if metric.scale.binary else adk_mean(scores)
    explanation = next((why for _, why in samples.values if why), "")
    details: dict[str, Any] = {"ratings": scores, **({"explanation": explanation} if explanation else {})}
    return InvocationScore(score=score, status=status_for(score, criterion.threshold), details=details)


def template_spec(metric: TemplateMetric) -> MetricSpec:
    """The metric as a registry row: judged, its template's hash in the judge's fingerprint."""

    async def evaluate(inp: MetricInput) -> MetricRun:
        if not inp.actual:
            return not_evaluated("the agent produced no invocation")
        expected: list[Optional[Invocation]] = [None] * len(inp.actual)
        if metric.needs_expected:
            if inp.expected is None or len(inp.expected) != len(inp.actual):
                have = "no expected conversation" if inp.expected is None else f"{len(inp.expected)} expected turn(s)"
                return not_evaluated(f"the template names {{reference}} or {{expected_tool_calls}}: it needs an expected turn "
                                     f"for each of the agent's {len(inp.actual)}, and the case has {have}")
            expected = list(inp.expected)
        return await judged_turns(inp, (_judge_turn(metric, inp, turn, expected[turn]) for turn in range(len(inp.actual))))

    description = metric.description or "Your judge metric from a prompt template."
    return MetricSpec(metric.name, LlmAsAJudgeCriterion, evaluate, description, needs_expected=metric.needs_expected, judged=True,
                      user_code_hash=metric.prompt_hash,
                      user_interval=(metric.scale.low, metric.scale.high))
