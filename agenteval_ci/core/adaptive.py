"""`num_runs: auto`: after each round, which cases to run again and why; at the end, each
case's note on the runs it got (pure). The rule itself is in sequential.py; the plain-words
account in docs/gate.md, "Adaptive runs", and for a first baseline in docs/baseline.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..schema import CaseResult, Results, Status
from ..schema.baseline import Baseline
from ..schema.project import AdaptiveRuns
from ..schema.settings import GateSettings
from .baseline import planned_runs
from .budgets import budget_reruns
from .gate import Pair, metric_pairs, sequential_evidence
from .sequential import CaseEvidence, Counts, MetricEvidence, chance_flaky, fit_prior

BROAD = 0.15  # while a drop on several cases is not ruled out, this share of the cases runs again per round
FIRST_BASELINE_RUNS = 5  # a first baseline runs every case this often (within min_runs..max_runs) ...
FIRST_BASELINE_BUDGET = 8.0  # ... then some cases more, up to max_runs, within this mean per case


@dataclass(frozen=True)
class Rerun:
    key: str
    why: str
    priority: float  # higher first when the budget cannot cover every case asked for
    fallback: bool = False  # run only once no other case asked for can run (every one at max_runs)


@dataclass(frozen=True)
class RoundPlan:
    reruns: tuple[Rerun, ...]
    decided: str = ""  # the evidence already fails the gate: no round can undo that


def _counts(pair: Pair) -> str:
    return f"history passed {pair.history}, now {pair.candidate_passes}/{pair.candidate_passes + pair.candidate_fails}"


def _doubt(pair: Pair, evidence: MetricEvidence, case: CaseEvidence) -> str:
    chance = f"{_counts(pair)}; chance it dropped {evidence.chance(case):.0%}"
    if pair.candidate_passes and pair.candidate_fails:
        return f"flaky now ({chance})"
    if pair.candidate_fails and pair.history.passes:
        return f"failed against its history ({chance})"
    if pair.candidate_passes:
        return f"too few runs yet to rule out a drop ({chance})"
    return f"passes less often than its history ({chance})"


def _metric_reruns(name: str, pairs: list[Pair], evidence: MetricEvidence) -> list[Rerun]:
    """The doubtful cases (the flips and the drops) and, while a drop on several cases is not
    ruled out, a share of the others: those whose next run tells most about whether they dropped.
    A suite too small to look for a drop on several cases looks for one this way only while some
    case is doubtful, as a fallback: once the doubtful cases have max_runs, the budget left looks
    for hidden drops instead of ending the rounds unsure. (In larger suites the search has had
    its runs, and a fallback there made 3-run baselines false-alarm more: docs/gate.md.)"""
    by_key = {p.case: p for p in pairs}
    doubtful = evidence.doubtful()
    found = [Rerun(c.counts.key, f"{name}: {_doubt(by_key[c.counts.key], evidence, c)}", _value(evidence, c)) for c in doubtful]
    if evidence.open or (doubtful and evidence.small):
        asked = {c.counts.key for c in doubtful}
        settled = [c for c in evidence.cases if c.counts.key not in asked]
        telling = sorted(settled, key=lambda c: (-evidence.telling(c), c.counts.key))[: math.ceil(BROAD * len(evidence.cases))]
        why = ("a drop on several cases is not ruled out yet, and its next run tells most" if evidence.open
               else "the doubtful cases have max_runs, and its next run tells most about a drop elsewhere")
        found += [Rerun(c.counts.key, f"{name}: {why} ({_counts(by_key[c.counts.key])})", _value(evidence, c), not evidence.open) for c in telling]
    return found


def _value(evidence: MetricEvidence, case: CaseEvidence) -> float:
    """What a run of this case is worth, which decides who runs when the budget cannot cover all:
    how much its next run tells, times its chance of being one that dropped (a coin-toss case
    tells little per run, however doubtful)."""
    return evidence.chance(case) * case.information


def plan_round(results: Results, baseline: Baseline | None, settings: GateSettings) -> RoundPlan:
    """The cases whose next run could change the verdict, most doubtful first."""
    if baseline is None:
        return plan_first_baseline(results, settings.power)
    pairs = metric_pairs(results, baseline)
    wanted: dict[str, Rerun] = {}
    for name in sorted(pairs):
        evidence = sequential_evidence(name, pairs, settings, baseline)
        if evidence.regressed:
            return RoundPlan((), f"{name} regressed (sequential evidence {evidence.evidence:.3g} ≥ {evidence.bar:g})")
        for rerun in _metric_reruns(name, pairs[name], evidence):
            if rerun.key not in wanted or _before(rerun, wanted[rerun.key]):
                wanted[rerun.key] = rerun
    over, decided = budget_reruns(results, baseline, settings)  # gate.budgets: core/budgets/reruns.py
    if decided:
        return RoundPlan((), decided)
    for extra in over:
        rerun = Rerun(extra.key, extra.why, extra.priority)
        if extra.key not in wanted or _before(rerun, wanted[extra.key]):
            wanted[extra.key] = rerun
    return RoundPlan(_ordered(results, wanted))


def _before(rerun: Rerun, other: Rerun) -> bool:
    """Which of two metrics' reasons to re-run a case stands: one that is no fallback, then the higher priority."""
    return (not rerun.fallback, rerun.priority) > (not other.fallback, other.priority)


def _ordered(results: Results, wanted: dict[str, Rerun]) -> tuple[Rerun, ...]:
    broken = {c.key for c in results.cases if c.run_errors}  # a failed run fails the case: not noise to average away
    return tuple(sorted((r for r in wanted.values() if r.key not in broken), key=lambda r: (-r.priority, r.key)))


# ---------------------------------------------------------------- a first baseline


def first_round_runs(limits: AdaptiveRuns) -> int:
    """Runs of every case in a first baseline: enough agreeing runs to call a case deterministic."""
    return min(limits.max_runs, max(limits.min_runs, FIRST_BASELINE_RUNS))


def _statuses(case: CaseResult, name: str) -> list[Status]:
    return [r.status for r in case.metrics[name].runs if r.status in (Status.PASSED, Status.FAILED)]


def plan_first_baseline(results: Results, power: float = GateSettings().power) -> RoundPlan:
    """No baseline to compare with: learn the pass rates. A case whose runs disagree is flaky:
    it runs again to learn how often it passes (the closest to a coin toss first). A case whose
    runs agree has shown as much as its runs can, unless the suite's spread of pass rates
    (fitted to every case's first round) says agreeing cases are still likely flaky (above
    1 - power): then it runs again too, to tell flaky from deterministic."""
    wanted: dict[str, Rerun] = {}
    names = sorted({n for c in results.cases for n, m in c.metrics.items() if m.threshold is not None})
    for name in names:
        cases = [c for c in results.cases if name in c.metrics]
        planned = [_statuses(c, name)[: planned_runs(c)] for c in cases]
        prior = fit_prior([Counts(p.count(Status.PASSED), p.count(Status.FAILED)) for p in planned])
        for case in cases:
            statuses = _statuses(case, name)
            counts = Counts(statuses.count(Status.PASSED), statuses.count(Status.FAILED))
            if counts.passes and counts.fails:
                rate = counts.passes / counts.runs
                rerun = Rerun(case.key, f"{name}: its runs disagree (passed {counts}), so its pass rate is worth learning for the baseline", 2 - abs(rate - 0.5))
            elif counts.runs and (flaky := chance_flaky(prior, counts)) > 1 - power:
                rerun = Rerun(case.key, f"{name}: its runs agree ({counts} passed), but in this suite that is still {flaky:.0%} likely to be luck", flaky)
            else:
                continue
            if case.key not in wanted or rerun.priority > wanted[case.key].priority:
                wanted[case.key] = rerun
    return RoundPlan(_ordered(results, wanted))


# ---------------------------------------------------------------- budget and notes


def within_limits(reruns: tuple[Rerun, ...], cases: dict[str, CaseResult], limits: dict[str, AdaptiveRuns], room: dict[str, int]) -> tuple[list[Rerun], list[Rerun]]:
    """(to run, left out): each case below its suite's max_runs, each suite within its budget;
    the fallbacks only when no other case asked for is below max_runs."""
    chosen, left = _taken([r for r in reruns if not r.fallback], cases, limits, room)
    if chosen or left:
        return chosen, left
    return _taken([r for r in reruns if r.fallback], cases, limits, room)


def _taken(reruns: list[Rerun], cases: dict[str, CaseResult], limits: dict[str, AdaptiveRuns], room: dict[str, int]) -> tuple[list[Rerun], list[Rerun]]:
    chosen, left = [], []
    for rerun in reruns:
        case = cases[rerun.key]
        if len(case.runs) >= limits[case.suite].max_runs:
            continue
        if room[case.suite] <= 0:
            left.append(rerun)
            continue
        room[case.suite] -= 1
        chosen.append(rerun)
    return chosen, left


def case_note(case: CaseResult, why: str | None, end: str, compared: bool, rerun: bool) -> str:
    runs = f"{len(case.runs)} run{'s' if len(case.runs) != 1 else ''}"
    if why:
        return f"{runs}: {'re-run as' if rerun else 'unsure as'} {why}; {end}"
    if case.run_errors:
        return f"{runs}: a run failed, which no re-run can excuse"
    return f"{runs}: settled after the first round" if compared else f"{runs}: no baseline case to compare with"
