"""What one run of a suite cost in the agent's model calls, and its change against the baseline."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass

from ...schema.baseline import Baseline
from ..digest import ScoredCase, ScoredResults
from .noise import increase_of
from .pairs import Pairs, candidate_mean, missing_figure, pairs_of
from .verdict import finite


@dataclass(frozen=True)
class SuiteCost:
    """What one run of the suite cost in the agent's model calls (the cases' mean cost per run,
    summed), and against the baseline over the cases both have priced."""

    suite: str
    cost: float | None  # every case now; None when some case's cost is unknown (`unknown` says why)
    unknown: str = ""
    cases: int = 0  # paired with the baseline
    baseline: float | None = None  # those cases in the baseline ...
    paired: float | None = None  # ... and now
    change: float | None = None  # paired / baseline - 1


def suite_costs(results: ScoredResults, baseline: Baseline | None) -> tuple[SuiteCost, ...]:
    """Per suite whose agent reported its model usage (a Python agent may report none)."""
    found = (_suite_cost(results, baseline, suite) for suite in sorted({c.suite for c in results.cases}))
    return tuple(cost for cost in found if cost is not None)


def _suite_cost(results: ScoredResults, baseline: Baseline | None, suite: str) -> SuiteCost | None:
    """A case at a time (a suite may have 100,000s): the first case without a cost, and a count."""
    def cases() -> Iterator[ScoredCase]:
        return (c for c in results.cases if c.suite == suite)

    if not any(r.cost_usd is not None or r.unpriced_models for c in cases() for r in c.runs):
        return None  # no model call reported its usage: nothing to price, nothing to say
    means, missing, first = array("d"), 0, ""
    for case in cases():
        if case.run_errors:
            continue
        mean = candidate_mean(case, "cost_usd")[0]
        if mean is None:
            missing += 1
            first = first or f"{case.key}: {missing_figure(case, 'cost_usd')}"
        else:
            means.append(mean)
    cost = None if missing or not means else sum(means)
    pairs = pairs_of(results, baseline, suite, "cost_usd")[0] if baseline else Pairs()
    before = sum(p.delta.baseline for p in pairs) if pairs else None
    after = sum(p.delta.candidate for p in pairs) if pairs else None
    change = finite(increase_of(before, after)) if before is not None and after is not None else None
    unknown = f"{missing} case(s) without a cost (first: {first})" if missing else ""
    return SuiteCost(suite, cost, unknown, len(pairs), before, after, change)
