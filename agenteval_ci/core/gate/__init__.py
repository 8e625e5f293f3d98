"""The noise-aware gate: compare a results file with a baseline and decide (pure, no I/O).

Plain-words design in docs/gate.md. In short: the case is the unit (repeats are averaged
within a case); per metric a seeded paired bootstrap over cases gives the delta's CI and an
exact sign test counts per-case pass->fail flips, Bonferroni-corrected over metrics; a case
that passed every baseline run and failed every candidate run is a hard break, tested with
Fisher's exact test and Holm's correction over all case x metric pairs. When no case shows
run-to-run noise (deterministic agents, or a single run), any newly failing case fails.
With `num_runs: auto` a sequential rule (sequential.py) replaces the fixed-sample tests of
metrics that show noise, since the runs were chosen by peeking at them.

The package, by job: records.py (what the gate says), statistics.py (its tests), pairing.py (a
metric's cases paired with the baseline), inference.py (per metric), case_outcomes.py (per case),
outcome_store.py (where the outcomes are kept), verdict.py (`compare`: all of it put together).
"""

from __future__ import annotations

from .case_outcomes import case_outcome, evaluated, lost_evidence, removed_cases
from .inference import metric_summaries, noisy, planned_population, sequential_evidence
from .outcome_store import OutcomeList, OutcomeTuple, importance
from .pairing import FALL, Pair, Paired, case_key, comparable, each_pair, gated, metric_pairs, paired_metrics
from .records import OUTCOMES, Advisory, CaseMetric, CaseOutcome, CaseOutcomes, Comparison, MetricSummary, RubricSummary
from .statistics import BOOTSTRAP_WORK, bootstrap_means, hard_break_p, holm, mean, quantile, sign_test_p
from .verdict import compare, unevidenced

__all__ = [
    "Advisory",
    "BOOTSTRAP_WORK",
    "CaseMetric",
    "CaseOutcome",
    "CaseOutcomes",
    "CaseOutcomes",
    "Comparison",
    "FALL",
    "MetricSummary",
    "OUTCOMES",
    "OutcomeList",
    "OutcomeTuple",
    "Pair",
    "Paired",
    "RubricSummary",
    "bootstrap_means",
    "case_key",
    "case_outcome",
    "comparable",
    "compare",
    "each_pair",
    "evaluated",
    "gated",
    "hard_break_p",
    "holm",
    "importance",
    "lost_evidence",
    "mean",
    "metric_pairs",
    "metric_summaries",
    "noisy",
    "paired_metrics",
    "planned_population",
    "quantile",
    "removed_cases",
    "sequential_evidence",
    "sign_test_p",
    "unevidenced",
]
