"""`num_runs: auto`: after each round, which cases to run again and why; at the end, each
case's note on the runs it got (pure). The rule itself is in sequential.py; the plain-words
account in docs/gate.md, "Adaptive runs".
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schema import CaseResult, Results
from ..schema.baseline import Baseline
from ..schema.project import AdaptiveRuns
from ..schema.settings import GateSettings
from .gate import Pair, metric_pairs, noisy, sequential_evidence


@dataclass(frozen=True)
class Rerun:
    key: str
    why: str
    priority: float  # higher first when the budget cannot cover every unsure case


@dataclass(frozen=True)
class RoundPlan:
    reruns: tuple[Rerun, ...]
    decided: str = ""  # the evidence already fails the gate: no round can undo that


def _why(pair: Pair) -> str:
    counts = f"baseline passed {pair.baseline_passes}/{pair.baseline_passes + pair.baseline_fails}, now {pair.candidate_passes}/{pair.candidate_passes + pair.candidate_fails}"
    if pair.candidate_passes and pair.candidate_fails:
        return f"flaky ({counts})"
    if pair.baseline_passed and pair.candidate_fails:
        return f"flipped against the baseline ({counts})"
    return f"failing more often than its baseline ({counts})"


def _deterministic_reruns(pairs: list[Pair]) -> list[Rerun]:
    """No noise seen yet: a flip is a break, unless a single baseline run and a single run now
    cannot tell a break from noise; one more run does."""
    return [
        Rerun(p.case, _why(p) + "; one baseline run cannot tell noise from a break", 1.0)
        for p in pairs
        if p.baseline_passed and not p.candidate_passed and p.baseline_passes + p.baseline_fails < 2 and p.candidate_passes + p.candidate_fails < 2
    ]


def plan_round(results: Results, baseline: Baseline | None, settings: GateSettings) -> RoundPlan:
    """The cases whose next run could change the verdict, most doubtful first."""
    if baseline is None:
        return RoundPlan(())
    pairs = metric_pairs(results, baseline)
    wanted: dict[str, Rerun] = {}
    for name, metric in sorted(pairs.items()):
        if not noisy(metric, baseline, name, auto=True):
            found = _deterministic_reruns(metric)
        else:
            evidence = sequential_evidence(name, pairs, settings, baseline)
            if evidence.regressed:
                return RoundPlan((), f"{name} regressed (sequential evidence {evidence.evidence:.3g} ≥ {evidence.bar:g})")
            by_key = {p.case: p for p in metric}
            found = [Rerun(c.counts.key, _why(by_key[c.counts.key]), c.chance_dropped) for c in evidence.unsure(settings.power)]
        for rerun in found:
            if rerun.key not in wanted or rerun.priority > wanted[rerun.key].priority:
                wanted[rerun.key] = Rerun(rerun.key, f"{name}: {rerun.why}", rerun.priority)
    broken = {c.key for c in results.cases if c.run_errors}  # a failed run fails the case: not noise to average away
    return RoundPlan(tuple(sorted((r for r in wanted.values() if r.key not in broken), key=lambda r: (-r.priority, r.key))))


def within_limits(reruns: tuple[Rerun, ...], cases: dict[str, CaseResult], limits: dict[str, AdaptiveRuns], room: dict[str, int]) -> tuple[list[Rerun], list[Rerun]]:
    """(to run, left out): each case below its suite's max_runs, each suite within its budget."""
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
