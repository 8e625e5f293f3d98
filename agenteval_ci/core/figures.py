"""The figures a budget is kept on: each run's tokens, model and tool calls, seconds and cost
per turn or per run (pure; docs/gate.md, "Budgets"). Its own module so that a run's digest
(core/digest.py) can compute them without the budgets' statistics, which read digests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from ..schema import Invocation, RunRecord
from ..schema.settings import GateSettings
from .metrics.efficiency import TokenBreakdown, duration_breakdown, inference_call_count, token_breakdown


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _token_mean(breakdowns: list[TokenBreakdown], direction: str) -> float | None:
    """token_usage_v1's figure: per turn, a count a turn's calls left out is zero for that turn,
    None only when no turn reported it."""
    counts = [getattr(b, direction) for b in breakdowns]
    return sum(c or 0 for c in counts) / len(counts) if any(c is not None for c in counts) else None


def _tokens(direction: str) -> Callable[[list[Invocation]], float | None]:
    return lambda invocations: _token_mean([token_breakdown(i) for i in invocations], direction)


def _per_turn(value_of: Callable[[Invocation], float | None]) -> Callable[[list[Invocation]], float | None]:
    return lambda invocations: _mean(value_of(i) for i in invocations)


@dataclass(frozen=True)
class Figure:
    what: str  # in words, for reports
    of_turns: Callable[[list[Invocation]], float | None] | None  # per turn, as ADK's metric; None: of the run
    digits: int  # shown with this many decimals
    tokens: str | None = None  # a token figure: this count of each turn's token_breakdown (run_figures shares them)


FIGURES: dict[str, Figure] = {
    "token_usage_v1": Figure("tokens per turn", _tokens("total_tokens"), 0, tokens="total_tokens"),
    "input_tokens": Figure("input tokens per turn", _tokens("input_tokens"), 0, tokens="input_tokens"),
    "output_tokens": Figure("output tokens per turn", _tokens("output_tokens"), 0, tokens="output_tokens"),
    "inference_call_count_v1": Figure("model calls per turn", _per_turn(inference_call_count), 2),
    "tool_call_count_v1": Figure("tool calls per turn", _per_turn(lambda i: float(len(i.tool_calls))), 2),
    "invocation_duration_v1": Figure("seconds per turn", _per_turn(lambda i: duration_breakdown(i).total_seconds), 2),
    "cost_usd": Figure("USD per run", None, 6),  # the whole conversation: what a run of the case costs
}
FIGURE_KEYS = tuple(FIGURES)  # the order a run's digest keeps its figures in


class WithRuns(Protocol):
    """A case as its figures are read: a ScoredCase, or anything with its runs."""

    @property
    def runs(self) -> Sequence[object]: ...


class FiguredRun(Protocol):
    """A run's digest (core/digest.py): its figures computed from its turns when it was made."""

    def figure(self, key: str) -> float | None: ...


def run_figure(run: object, key: str) -> float | None:
    """One run's figure; None for a failed run (its failure fails the gate on its own), a run
    with no turns, or a figure the run did not report (a model call's usage, a price). A run's
    digest answers with the figure computed when it was made (by this function, of the whole run)."""
    if not isinstance(run, RunRecord):
        return cast(FiguredRun, run).figure(key)
    if run.error or not run.invocations:
        return None
    if key == "cost_usd":
        return run.cost_usd
    of_turns = FIGURES[key].of_turns
    return of_turns(run.invocations) if of_turns else None


def run_figures(run: RunRecord) -> tuple[float | None, ...]:
    """Every figure of a run, in FIGURE_KEYS' order, each as run_figure gives it; the turns'
    token breakdowns are worked out once for the three token figures (a run's digest asks all)."""
    if run.error or not run.invocations:
        return (None,) * len(FIGURE_KEYS)
    breakdowns = [token_breakdown(i) for i in run.invocations]
    return tuple(_token_mean(breakdowns, f.tokens) if f.tokens else run_figure(run, key) for key, f in FIGURES.items())


def kept_figures(settings: GateSettings) -> list[str]:
    """The figures a baseline keeps per run: every budgeted one, and cost_usd (the PR comment
    shows the suite's cost per run, baseline -> PR)."""
    return sorted({*settings.budget_keys(), "cost_usd"})


def rounded(value: float | None) -> float | None:
    """As a baseline keeps it: 6 significant digits, so an accept's diff stays readable."""
    return None if value is None else float(f"{value:.6g}")


def case_figures(case: WithRuns, keys: Iterable[str], runs: int | None = None) -> dict[str, list[float | None]]:
    """The figures of a case's first `runs` runs (all by default), for a baseline."""
    chosen = case.runs if runs is None else case.runs[:runs]
    found = {key: [rounded(run_figure(r, key)) for r in chosen] for key in keys}
    return {key: values for key, values in found.items() if any(v is not None for v in values)}
