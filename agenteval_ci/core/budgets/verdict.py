"""One budget of one suite judged (breached, within, unsure, no baseline, not measured, figures
lost), every budget of the results compared, and the words reports use for them."""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from ...schema.baseline import Baseline
from ...schema.settings import GateSettings, percent
from ..digest import ScoredResults
from ..figures import FIGURES
from .noise import ALPHA_SPENT, Rise, increase_of, runs_to_settle, total_bound, typical_rise
from .pairs import SAME, CaseDelta, Pair, pairs_of

CASES_SHOWN = 10  # per-case deltas kept per budget, the largest rises first

@dataclass(frozen=True)
class Looks:
    """When the budgets are tested, and at what share of alpha. Fixed runs: once, on every run,
    at all of it. `num_runs: auto`: at most twice, each on a fixed share of the data, so that
    the re-runs a doubtful budget asks for cannot spend its alpha twice: on every case's first
    `first` runs (the first round) and on its first `last` runs (the most the run budget pays for
    every case), each at half of alpha. Between the two the budget only decides whether to go on."""

    first: int = 0  # 0: fixed runs, one look on every run
    last: int = 0

    def share(self, runs: int) -> float:
        """Alpha's share for a look on every case's first `runs` runs."""
        if not self.first or self.last <= self.first:
            return 1.0
        return 0.5 if runs in (self.first, self.last) else 0.0


def looks_of(results: ScoredResults) -> Looks:
    adaptive = results.adaptive
    if adaptive is None:
        return Looks()
    return Looks(adaptive.min_runs, max(adaptive.min_runs, min(adaptive.max_runs, int(adaptive.run_budget))))


@dataclass(frozen=True)
class BudgetSummary:
    suite: str
    key: str
    budget: float  # the allowed increase, 0.1 for +10%
    verdict: str  # breached | within | unsure (num_runs: auto, not the last look) | no baseline | not measured | figures lost
    cases: int  # paired cases
    baseline_total: float | None  # the paired cases' mean figures, summed: per run of the suite
    candidate_total: float | None
    increase: float | None  # candidate_total / baseline_total - 1; None from nothing (a total of 0) to something
    bound: float | None  # the lower end of the increase's 1 - alpha interval (informational)
    mode: str  # stochastic | deterministic
    drivers: tuple[CaseDelta, ...] = ()  # cases whose figure rose by more than the budget, largest first
    over: tuple[str, ...] = ()  # ... every such case's key, when the budget is breached
    reason: str = ""
    lost: tuple[str, ...] = ()  # cases whose baseline has the figure and whose runs now have none: why
    typical: float | None = None  # the typical case's rise (what the breach is judged on): geometric means, - 1
    typical_bound: float | None = None  # ... and the lower end of its 1 - alpha interval

    @property
    def breached(self) -> bool:
        return self.verdict == "breached"

    @property
    def doubtful(self) -> bool:
        """Within, but only because the rise over the budget is not beyond noise (the reason says what would settle it)."""
        return self.verdict == "within" and self.mode == "stochastic" and self.typical is not None and self.typical > self.budget + SAME

    @property
    def what(self) -> str:
        return FIGURES[self.key].what


NOT_MEASURED = "not measured"
FIGURES_LOST = "figures lost"  # the baseline has the figure, and no case has it now: not "no baseline"
_USAGE = ("its model calls' token usage (ADK's events; a Python callable's or an HTTP agent's reply: `usage`, "
          "with `model` to price it; or its traces)")
_REPORTED_BY = {"invocation_duration_v1": "its turns' durations"}


def budget_summary(suite: str, key: str, budget: float, pairs: Collection[Pair], lost: list[str], alpha: float,
                   last_look: bool = True, looks: Looks = Looks(), power: float = 0.9, unmeasured: str = "") -> BudgetSummary:
    """Deterministic: any case's rise beyond the budget breaches it. Otherwise the typical case's
    rise must be beyond the budget and beyond noise (one-sided: did it rise?). The suite's total
    is reported beside it (what the bill says), with its own bound. `unmeasured`: why no run of
    the suite has the figure now (a budget no evidence can hold, not one that passed)."""
    if not pairs and lost:
        why = (f"the baseline has {FIGURES[key].what} for {len(lost)} case(s) and no run has it now (first: {lost[0]}); "
               f"the agent must report {_REPORTED_BY.get(key, _USAGE)} again: the baseline's figures stay the reference")
        return BudgetSummary(suite, key, budget, FIGURES_LOST, 0, None, None, None, None, "stochastic", reason=why, lost=tuple(lost))
    if not pairs and unmeasured:
        why = (f"no run of the suite reported {FIGURES[key].what} (first: {unmeasured}); the agent must report "
               f"{_REPORTED_BY.get(key, _USAGE)}, or drop this budget for the suite (`suite_budgets: {{{suite}: {{{key}: null}}}}`)")
        return BudgetSummary(suite, key, budget, NOT_MEASURED, 0, None, None, None, None, "stochastic", reason=why, lost=tuple(lost))
    if not pairs:
        why = ("no case of the baseline has this figure for the same test: accept a baseline made with this budget set "
               "(from runs that report the figure: a model's usage, a price, turn durations)")
        return BudgetSummary(suite, key, budget, "no baseline", 0, None, None, None, None, "stochastic", reason=why, lost=tuple(lost))
    before, after = sum(p.delta.baseline for p in pairs), sum(p.delta.candidate for p in pairs)
    increase = increase_of(before, after)
    deterministic = not any(p.noisy for p in pairs) and any(p.repeated for p in pairs)
    def rose() -> Iterator[CaseDelta]:  # the cases whose figure rose by more than the budget
        return (p.delta for p in pairs if p.delta.rise > budget + SAME)

    over = sum(1 for _ in rose())
    runs = look_runs(pairs, looks)
    share = looks.share(runs)
    rise = typical_rise(pairs, alpha * share, runs if looks.first else None)
    bound = None if deterministic else total_bound(pairs, increase, alpha)
    unsure = False
    if deterministic:
        breached = bool(over) or increase > budget + SAME
        reason = (f"{over} case(s) rose by more than {percent(budget)}, and no case's runs vary (deterministic)" if breached else "")
    else:
        beyond = rise.typical > budget + SAME
        breached = beyond and rise.bound is not None and rise.bound > 0
        unsure = not breached and (beyond or (not last_look and rise.plausible(budget, power)))
        reason = _noisy_reason(pairs, rise, budget, alpha, breached, beyond, looks, runs)
    verdict = "breached" if breached else "unsure" if unsure and not last_look else "within"
    return BudgetSummary(
        suite, key, budget, verdict, len(pairs), before, after, finite(increase), finite(bound), "deterministic" if deterministic else "stochastic",
        drivers=tuple(heapq.nsmallest(CASES_SHOWN, rose(), key=lambda d: (-(d.candidate - d.baseline), d.case))),
        over=tuple(sorted(d.case for d in rose())) if breached else (), reason=reason, lost=tuple(lost),
        typical=rise.typical, typical_bound=rise.bound,
    )


def look_runs(pairs: Collection[Pair], looks: Looks) -> int:
    """The runs now every case is judged on at this look: the fewest any case whose runs vary
    has (a case whose runs agree is not run again), at most the last look's."""
    if not looks.first:
        return max(len(p.now) for p in pairs)
    varying = [len(p.now) for p in pairs if not p.settled]
    return min(min(varying, default=looks.last), looks.last)


def _noisy_reason(pairs: Collection[Pair], rise: Rise, budget: float, alpha: float, breached: bool, beyond: bool, looks: Looks, runs: int) -> str:
    share = looks.share(runs)
    words = (f"the typical case rose {pct(rise.typical)} ({1 - alpha * share:.{0 if share == 1 else 1}%} bound {pct(rise.bound)})" if share
             else f"the typical case rose {pct(rise.typical)} (judged at {looks.first} or {looks.last} runs per case; its cases have {runs})")
    if breached:
        return f"over the budget and beyond noise: {words}"
    if not beyond:
        return ""
    return f"unsure: over the budget by the estimate but not beyond noise: {words}; {_what_settles(pairs, rise, alpha)}"


def _what_settles(pairs: Collection[Pair], rise: Rise, alpha: float) -> str:
    if len(pairs) < 2:  # the bar is Student's t over the cases: one case has no spread to judge by
        return "one case has the figure on both sides, too few to tell a rise from noise: more cases with it would"
    needed = runs_to_settle(pairs, rise, alpha)
    if needed:
        return f"about {needed} run(s) per case would settle it if the rise is real (`num_runs: {needed}`, or `num_runs: auto`)"
    return "more runs now cannot settle it: the baseline's own runs are too few (accept a baseline run with a higher num_runs)"


def finite(value: float | None) -> float | None:
    """JSON has no infinity: a rise from nothing is None, and says so where shown."""
    return None if value is None or math.isinf(value) else value


def pct(value: float | None) -> str:
    if value is None:
        return "–"
    return "+inf%" if math.isinf(value) else f"{value:+.1%}"


def compare_budgets(results: ScoredResults, baseline: Baseline | None, settings: GateSettings, *, last_look: bool = True) -> tuple[BudgetSummary, ...]:
    """Every budget of every suite in the results, against the baseline (none without one)."""
    if baseline is None:
        return ()
    suites = sorted(set(results.suites) | {c.suite for c in results.cases})
    found = []
    for suite in suites:
        budgets = settings.budgets_for(suite)
        if not budgets:
            continue
        alpha = (1 - settings.confidence) * ALPHA_SPENT / len(budgets)
        for key, budget in sorted(budgets.items()):
            pairs, lost, unmeasured = pairs_of(results, baseline, suite, key)
            found.append(budget_summary(suite, key, budget, pairs, lost, alpha, last_look, looks_of(results), settings.power, unmeasured))
    return tuple(found)


def over_budget_cases(budgets: Iterable[BudgetSummary]) -> dict[str, list[str]]:
    """Case key -> the budgets it breached (as `key +x%`)."""
    cases: dict[str, list[str]] = {}
    for summary in budgets:
        by_case = {d.case: d for d in summary.drivers}
        for key in sorted(summary.over):
            rise = f" {pct(by_case[key].rise)}" if key in by_case else ""
            cases.setdefault(key, []).append(f"{summary.key}{rise}")
    return cases


def budget_reasons(budgets: Iterable[BudgetSummary]) -> tuple[list[str], list[str]]:
    """(why the gate fails, figures missing now: those the baseline had, and budgets no run measured)."""
    failed, lost = [], []
    for s in budgets:
        if s.breached:
            shown = ", ".join(f"{d.case} {fmt_figure(s.key, d.baseline)} → {fmt_figure(s.key, d.candidate)} ({pct(d.rise)})" for d in s.drivers[:3])
            failed.append(f"{s.suite}: over budget on {s.key} ({s.what}, summed over {s.cases} case(s)): {fmt_figure(s.key, s.baseline_total)} → "
                          f"{fmt_figure(s.key, s.candidate_total)}, {change_text(s.increase)} against {percent(s.budget)} allowed; {s.reason}"
                          + (f"; most: {shown}" if shown else ""))
        if s.lost:
            lost.append(f"{s.suite}: {len(s.lost)} case(s) lost the budgeted figure {s.key} (first: {s.lost[0]})")
        elif s.verdict == NOT_MEASURED:
            lost.append(f"{s.suite}: the budget on {s.key} was not measured: {s.reason}")
    return failed, lost


def fmt_figure(key: str, value: float | None) -> str:
    """A figure as reports show it: its unit's decimals, thousands separated, dollars marked."""
    if value is None:
        return "–"
    return f"${value:,.{FIGURES[key].digits}f}" if key == "cost_usd" else f"{value:,.{FIGURES[key].digits}f}"


def change_text(increase: float | None) -> str:
    """A suite's change in words; None is a rise from nothing."""
    return "up from nothing" if increase is None else pct(increase)
