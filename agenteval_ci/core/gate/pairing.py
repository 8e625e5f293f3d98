"""A metric's cases paired with their baseline: the same test, both sides evaluated."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...schema import Status
from ...schema.baseline import Baseline, BaselineCase, BaselineMetric
from ...schema.settings import GateSettings
from ..digest import ScoredCase, ScoredMetric, ScoredResults
from ..judge_fingerprint import tolerance_scale
from ..sequential import CaseCounts, Counts
from .statistics import hard_break_p, mean

FALL = 1e-9  # any_drop: a fall smaller than this is the rounding of equal scores' means


@dataclass(frozen=True)
class Pair:
    """One metric on one case that both sides scored under the same test and config."""

    case: str
    baseline: float
    candidate: float
    baseline_passes: int
    baseline_fails: int
    candidate_passes: int
    candidate_fails: int
    baseline_passed: bool
    candidate_passed: bool
    noisy: bool  # runs disagree on at least one side
    history: Counts  # every run of the baseline's history of this case (num_runs: auto weighs it)
    suite: str = ""
    scale: float = 1.0  # the tolerance's multiplier for this metric (judge_fingerprint.tolerance_scale)

    @property
    def delta(self) -> float:
        return self.candidate - self.baseline

    @property
    def counts(self) -> CaseCounts:
        return CaseCounts(self.case, self.history, Counts(self.candidate_passes, self.candidate_fails))

    @property
    def is_hard_break(self) -> bool:
        return self.baseline_fails == 0 and self.baseline_passes > 0 and self.candidate_passes == 0 and self.candidate_fails > 0


def case_key(case: ScoredCase) -> str:
    return case.key


def gated(metric: ScoredMetric | BaselineMetric) -> bool:
    return metric.threshold is not None and metric.status != Status.INFORMATIONAL


def _pair(key: str, old: BaselineMetric, new: ScoredMetric, suite: str = "") -> Pair | None:
    old_scores = [s for s in old.runs if s is not None]
    new_scores = [r.score for r in new.runs if r.score is not None]
    if old.score is None or new.score is None:
        return None
    new_statuses = [r.status for r in new.runs]
    baseline_passes, baseline_fails = old.pass_counts()
    return Pair(
        case=key,
        baseline=mean(old_scores) if old_scores else old.score,
        candidate=new.score,
        baseline_passes=baseline_passes,
        baseline_fails=baseline_fails,
        candidate_passes=new_statuses.count(Status.PASSED),
        candidate_fails=new_statuses.count(Status.FAILED),
        baseline_passed=old.status == Status.PASSED,
        candidate_passed=new.status == Status.PASSED,
        noisy=len(set(old_scores)) > 1 or len(set(new_scores)) > 1,
        history=Counts(*old.history_counts()),
        suite=suite,
        scale=tolerance_scale(new.judge),
    )


def comparable(old: BaselineCase, case: ScoredCase, name: str) -> bool:
    previous = old.metrics.get(name)
    return previous is not None and old.fingerprint == case.fingerprint and previous.config_fingerprint == case.metrics[name].config_fingerprint


def each_pair(results: ScoredResults, baseline: Baseline) -> Iterator[tuple[str, Pair]]:
    """(metric, pair) of every case in turn: made one at a time, never all held."""
    for case in results.cases:
        old = baseline.case(case.suite, case.eval_set_id, case.eval_id)
        if old is None:
            continue
        for name, metric in case.metrics.items():
            if gated(metric) and comparable(old, case, name):
                pair = _pair(case_key(case), old.metrics[name], metric, case.suite)
                if pair is not None:
                    yield name, pair


def metric_pairs(results: ScoredResults, baseline: Baseline) -> dict[str, list[Pair]]:
    """Every pair, by metric (num_runs: auto's re-run planner reads them whole)."""
    pairs: dict[str, list[Pair]] = {}
    for name, pair in each_pair(results, baseline):
        pairs.setdefault(name, []).append(pair)
    return pairs


@dataclass
class Paired:
    """What the gate's tests read of one metric's pairs, added a pair at a time: the scores as
    arrays of floats (8 bytes a case; the bootstrap draws from them as from a list, and `sum`
    adds them as it adds a list), the flips as counts, and case keys only of the cases that
    may count as regressions. `num_runs: auto` keeps each case's run counts for the sequential
    rule (its suites are run live, by agents: never the 100,000-case recorded kind)."""

    tolerance: float
    keep_counts: bool = False
    baseline: array[float] = field(default_factory=lambda: array("d"))
    candidate: array[float] = field(default_factory=lambda: array("d"))
    deltas: array[float] = field(default_factory=lambda: array("d"))
    down: int = 0  # passed in the baseline, fails now
    up: int = 0
    newly_failing: set[str] = field(default_factory=set)
    worsened: set[str] = field(default_factory=set)
    noisy: bool = False  # runs disagree on at least one side of some case
    breaks: dict[str, float] = field(default_factory=dict)  # case -> Fisher's p of its every-run break
    counts: list[CaseCounts] = field(default_factory=list)
    fallen: dict[str, float] = field(default_factory=dict)  # any_drop: case -> its fall, noise or not

    def add(self, pair: Pair, any_drop: bool = False) -> None:
        self.baseline.append(pair.baseline)
        self.candidate.append(pair.candidate)
        self.deltas.append(pair.delta)
        self.down += pair.baseline_passed and not pair.candidate_passed
        self.up += pair.candidate_passed and not pair.baseline_passed
        if pair.baseline_passed and not pair.candidate_passed:
            self.newly_failing.add(pair.case)
        if pair.delta < -self.tolerance:
            self.worsened.add(pair.case)
        self.noisy = self.noisy or pair.noisy
        if pair.is_hard_break:
            self.breaks[pair.case] = hard_break_p(pair.baseline_passes, pair.candidate_fails)
        else:
            self.breaks.pop(pair.case, None)  # a repeated case: its last pair stands, as in a dict
        if self.keep_counts:
            self.counts.append(pair.counts)
        if any_drop and pair.delta < -FALL:
            self.fallen[pair.case] = pair.delta
        else:
            self.fallen.pop(pair.case, None)

    def __len__(self) -> int:
        return len(self.deltas)


def paired_metrics(results: ScoredResults, baseline: Baseline, settings: GateSettings) -> dict[str, Paired]:
    """Each metric's pairs, tallied in one pass over the cases."""
    paired: dict[str, Paired] = {}
    auto = results.adaptive is not None
    for name, pair in each_pair(results, baseline):
        if name not in paired:
            paired[name] = Paired(settings.for_metric(name).tolerance * pair.scale, keep_counts=auto)
        paired[name].add(pair, settings.any_drop_of(pair.suite, name))
    return paired
