"""What the gate says: per metric, per rubric and per case, and the comparison as a whole."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from ...schema import Status
from ..budgets import BudgetSummary, SuiteCost
from ..head_to_head import HeadToHead
from ..judge_change import JudgeChange

OUTCOMES = (
    "regressed", "over_budget", "newly_failing", "worsened", "unevaluated", "fixed", "flaky", "improved", "unchanged", "incomparable", "new", "removed",
)
@dataclass(frozen=True)
class RubricSummary:
    rubric_id: str
    baseline_rate: float | None
    candidate_rate: float | None
    cases: int


@dataclass(frozen=True)
class MetricSummary:
    name: str
    verdict: str  # regressed | improved | unchanged | no baseline
    cases: int  # comparable cases used for inference
    baseline_mean: float | None
    candidate_mean: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    mode: str  # stochastic | deterministic
    flips_down: int = 0  # case passed in the baseline, fails now
    flips_up: int = 0
    flip_p: float | None = None
    hard_breaks: int = 0  # credible per-case breaks
    candidate_passed: int = 0
    candidate_failed: int = 0
    reason: str = ""
    rubrics: tuple[RubricSummary, ...] = ()
    evidence: float | None = None  # num_runs: auto: the sequential evidence of a drop
    evidence_bar: float | None = None  # ... and the value that fails the gate
    unsure: tuple[str, ...] = ()  # ... cases still unsure when the runs ended, most doubtful first
    leaning: bool = False  # ... and the evidence leans toward a drop: the gate fails
    settle: str = ""  # ... what would settle the most doubtful case


@dataclass(frozen=True, slots=True)  # one per gated metric of every case: small
class CaseMetric:
    name: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    baseline_status: str | None
    candidate_status: str
    threshold: float | None
    comparable: bool
    counted: bool = False  # this metric made the case a regression


@dataclass(frozen=True, slots=True)  # one per case: small
class CaseOutcome:
    suite: str
    eval_set_id: str
    eval_id: str
    outcome: str
    status: str | None  # candidate case status; None for removed
    baseline_status: str | None
    metrics: tuple[CaseMetric, ...] = ()
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.eval_set_id}/{self.eval_id}"

    @property
    def counted(self) -> list[str]:
        """The metrics that made this case a regression."""
        return [m.name for m in self.metrics if m.counted]

    @property
    def worse_metrics(self) -> list[str]:
        """The metrics that matter for this case: those counted as regressions, else those failing."""
        return self.counted or [m.name for m in self.metrics if m.candidate_status == Status.FAILED.value]


class CaseOutcomes(Protocol):
    """Every case's outcome of a comparison, read most important first (`importance`). Where
    they are kept is the caller's choice: in memory (`OutcomeList`, sealed as an `OutcomeTuple`),
    or on disk for a big suite (files/spilled_outcomes.py)."""

    def add(self, case: CaseOutcome) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[CaseOutcome]: ...
    def __getitem__(self, index: int) -> CaseOutcome: ...
    def of(self, outcome: str) -> Iterator[CaseOutcome]:
        """Those of one outcome, most important first."""
        ...
    def with_key(self, key: str) -> list[CaseOutcome]:
        """Those of one case key (one, unless a results file repeats a case), most important first."""
        ...


@dataclass(frozen=True)
class Comparison:
    verdict: str  # passed | failed
    exit_code: int
    regressions: int  # cases the gate counts as regressed
    fail_on: str
    has_baseline: bool
    reasons: tuple[str, ...]
    metrics: tuple[MetricSummary, ...]
    cases: CaseOutcomes  # most important first
    counts: dict[str, int] = field(default_factory=dict)
    confidence: float = 0.95
    tolerance: float = 0.05
    baseline_edited: bool = False
    accepted_by: str = ""  # the verdict used the PR's own baseline, accepted by this writer
    warnings: tuple[str, ...] = ()  # what the gate saw but was told not to fail on (gate.not_evaluated: warn)
    budgets: tuple[BudgetSummary, ...] = ()  # gate.budgets, per suite and figure (core/budgets/)
    costs: tuple[SuiteCost, ...] = ()  # the agent's model cost per run of each suite, baseline -> PR
    judge_changes: tuple[JudgeChange, ...] = ()  # judged metrics whose judge differs from the baseline's
    policy: tuple[str, ...] = ()  # gate.metrics' rules that differ from the defaults, in words (core/policy.py)
    advisories: tuple[Advisory, ...] = ()  # the metrics that warn or only report, each part judged apart
    head_to_head: tuple[HeadToHead, ...] = ()  # head_to_head_v1 against the baseline's recorded answers (core/head_to_head.py)


@dataclass(frozen=True)
class Advisory:
    """The metrics of one non-blocking severity, compared as the gate compares the blocking ones:
    `warn` says what would have failed (its `reasons`), `report` only shows (no verdict)."""

    severity: str  # warn | report
    reasons: tuple[str, ...]  # warn: what fails here, never failing the check
    metrics: tuple[MetricSummary, ...]
    cases: tuple[CaseOutcome, ...]  # warn: its cases that regressed, newly fail, worsened or lost evidence
