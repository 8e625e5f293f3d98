"""What one run of a suite cost in the agent's model calls, and its change against the baseline."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from ...schema.baseline import Baseline
from ..digest import ScoredResults
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


@dataclass
class _Tally:
    """A suite's cases' costs, as one pass over every case finds them."""

    priced: bool = False  # some run reported its model usage (a cost, or a model without a price)
    means: array[float] = field(default_factory=lambda: array("d"))  # each case's mean cost per run
    missing: int = 0  # cases without a cost
    first: str = ""  # the first of them, and why


def suite_costs(results: ScoredResults, baseline: Baseline | None) -> tuple[SuiteCost, ...]:
    """Per suite whose agent reported its model usage (a Python agent may report none). One pass
    over the cases: a suite may have 100,000s, each read from disk as it is asked for."""
    tallies: dict[str, _Tally] = {}
    for case in results.cases:
        tally = tallies.setdefault(case.suite, _Tally())
        tally.priced = tally.priced or any(r.cost_usd is not None or r.unpriced_models for r in case.runs)
        if case.run_errors:
            continue
        mean = candidate_mean(case, "cost_usd")[0]
        if mean is None:
            tally.missing += 1
            tally.first = tally.first or f"{case.key}: {missing_figure(case, 'cost_usd')}"
        else:
            tally.means.append(mean)
    return tuple(_suite_cost(results, baseline, suite, tallies[suite]) for suite in sorted(tallies) if tallies[suite].priced)


def _suite_cost(results: ScoredResults, baseline: Baseline | None, suite: str, tally: _Tally) -> SuiteCost:
    cost = None if tally.missing or not tally.means else sum(tally.means)
    pairs = pairs_of(results, baseline, suite, "cost_usd")[0] if baseline else Pairs()
    before = sum(p.delta.baseline for p in pairs) if pairs else None
    after = sum(p.delta.candidate for p in pairs) if pairs else None
    change = finite(increase_of(before, after)) if before is not None and after is not None else None
    unknown = f"{tally.missing} case(s) without a cost (first: {tally.first})" if tally.missing else ""
    return SuiteCost(suite, cost, unknown, len(pairs), before, after, change)
