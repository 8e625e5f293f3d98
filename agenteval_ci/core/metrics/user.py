"""The user's own metrics: one protocol for every form (ADK's code_config, agents-cli's
custom_function, a program in any language), registered as data beside the built-in REGISTRY.

Running the user's code is I/O and lives outside the core (files/user_metrics.py); what comes
back is checked here, and anything but a finite number inside the declared interval leaves the
metric NOT_EVALUATED for that run with the reason: a user's metric never crashes a run and never
passes by accident.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Awaitable, Optional, Protocol, Sequence, Union

from ...schema import BaseCriterion, InvocationScore, MetricRun, Status
from .base import MetricInput, MetricSpec, not_evaluated, scored_turn, status_for


@dataclass(frozen=True)
class Reply:
    """What a user's metric said about one run, unchecked: an overall value, optionally one
    value per turn, optionally an explanation."""

    score: object
    per_turn: Optional[Sequence[object]] = None
    explanation: object = None


@dataclass(frozen=True)
class Unscored:
    """The metric gave no usable answer (it raised, timed out, printed garbage): why."""

    reason: str


class UserCode(Protocol):
    """How one form of user metric is run on one run of a case (files/user_metrics.py)."""

    def __call__(self, inp: MetricInput) -> Awaitable[Union[Reply, Unscored]]: ...


@dataclass(frozen=True)
class Bounds:
    """The values the metric declares it gives (ADK's metric_info interval, [0, 1] by default)."""

    low: float = 0.0
    high: float = 1.0
    open_low: bool = False
    open_high: bool = False

    def holds(self, value: float) -> bool:
        above = value > self.low if self.open_low else value >= self.low
        below = value < self.high if self.open_high else value <= self.high
        return above and below

    def __str__(self) -> str:
        return f"{'(' if self.open_low else '['}{self.low:g}, {self.high:g}{')' if self.open_high else ']'}"


@dataclass(frozen=True)
class UserMetric:
    """A user's metric as configured: its form, its interval, the hash of its code."""

    name: str
    form: str  # code_config | custom_function | custom_function_file | command
    bounds: Bounds
    code_hash: str  # the source, the file, or the command and its program: what a metric edit changes
    run: UserCode
    description: str = ""


def user_spec(metric: UserMetric) -> MetricSpec:
    """The metric as a registry row: scored like a built-in one, through the same MetricSpec."""

    async def evaluate(inp: MetricInput) -> MetricRun:
        reply = await metric.run(inp)
        if isinstance(reply, Unscored):
            return not_evaluated(reply.reason)
        return checked(reply, metric.bounds, inp.criterion, len(inp.actual))

    description = metric.description or f"Your metric ({metric.form})."
    bounds = metric.bounds
    interval = (bounds.low, bounds.high) if math.isfinite(bounds.low) and math.isfinite(bounds.high) else None
    return MetricSpec(metric.name, BaseCriterion, evaluate, description, user_code_hash=metric.code_hash, user_interval=interval)


def checked(reply: Reply, bounds: Bounds, criterion: BaseCriterion, turns: int) -> MetricRun:
    """A reply as a MetricRun, `score >= threshold` as for built-ins; NOT_EVALUATED with the
    reason when any value is not a finite number inside `bounds`."""
    overall = _value(reply.score, bounds)
    if isinstance(overall, str):
        return not_evaluated(f"the score {overall}")
    per_invocation = _per_turn(reply.per_turn, bounds, criterion.threshold, turns)
    if isinstance(per_invocation, str):
        return not_evaluated(per_invocation)
    details = {"explanation": _explanation(reply.explanation)} if reply.explanation not in (None, "") else None
    status = status_for(overall, criterion.threshold)
    return MetricRun(score=overall, status=status, per_invocation=per_invocation, details=details)


def _value(raw: object, bounds: Bounds) -> Union[float, str]:
    """A finite number inside `bounds`, or what is wrong with `raw` (a bool is not a number)."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return f"is not a number: {_shown(raw)}"
    value = float(raw)
    if not math.isfinite(value):
        return f"is not finite: {value}"
    if not bounds.holds(value):
        return f"{value:g} is outside the declared interval {bounds}"
    return value


def _per_turn(raw: Optional[Sequence[object]], bounds: Bounds, threshold: float, turns: int) -> Union[list[InvocationScore], str]:
    if raw is None:
        return []
    if len(raw) != turns:
        return f"gave {len(raw)} per-turn score(s) for {turns} turn(s)"
    scores: list[InvocationScore] = []
    for index, item in enumerate(raw):
        if item is None:  # a turn the metric did not score
            scores.append(InvocationScore(status=Status.NOT_EVALUATED, reason="the metric gave no score for this turn"))
            continue
        value = _value(item, bounds)
        if isinstance(value, str):
            return f"the score of turn {index + 1} {value}"
        scores.append(scored_turn(value, threshold))
    return scores


def _explanation(raw: object) -> str:
    text = raw if isinstance(raw, str) else repr(raw)
    return text[:2000]


def _shown(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["Bounds", "Reply", "Unscored", "UserCode", "UserMetric", "checked", "user_spec"]
