"""The committed baseline file (default `.agenteval/baseline.json`); see docs/baseline.md.

Nested suite -> eval set -> case -> metric so that a PR diff of the file reads like the
suite itself. Fingerprints tell "the agent changed" from "the test changed".
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from ._base import StrictModel
from .judge import JudgeFingerprint
from .results import Status

BASELINE_VERSION = 1


class BaselineMetric(StrictModel):
    score: Optional[float] = None  # mean over runs
    runs: list[Optional[float]] = Field(default_factory=list)  # each run's score
    run_statuses: list[Status] = Field(default_factory=list)
    status: Status = Status.NOT_EVALUATED
    threshold: Optional[float] = None
    config_fingerprint: str = ""
    rubrics: dict[str, float] = Field(default_factory=dict)  # rubric id -> pass rate over runs
    # Runs that passed / failed this metric: what `num_runs: auto` weighs the case's runs now
    # against. Absent in baselines written before them: counted from run_statuses then.
    passes: Optional[int] = Field(default=None, ge=0)
    fails: Optional[int] = Field(default=None, ge=0)
    judge: Optional[str] = None  # judged metrics: the id of the judge's fingerprint in `Baseline.judges`
    # The recorded runs these scores came from, when not the case's `outputs` (a partial accept).
    outputs: Optional[str] = None

    def pass_counts(self) -> tuple[int, int]:
        if self.passes is not None and self.fails is not None:
            return self.passes, self.fails
        return self.run_statuses.count(Status.PASSED), self.run_statuses.count(Status.FAILED)


class BaselineCase(StrictModel):
    fingerprint: str
    status: Status
    metrics: dict[str, BaselineMetric] = Field(default_factory=dict)
    # Digest of the runs the scores came from, whose record is in the outputs file beside the
    # baseline (files/baseline_outputs.py): what a changed judge re-judges.
    outputs: Optional[str] = None


class Provenance(StrictModel):
    commit: Optional[str] = None
    created_at: str
    tool_version: str
    num_runs: int


class Baseline(StrictModel):
    schema_version: int = BASELINE_VERSION
    provenance: Provenance
    # suite -> eval_set_id -> eval_id -> case
    suites: dict[str, dict[str, dict[str, BaselineCase]]] = Field(default_factory=dict)
    judges: dict[str, JudgeFingerprint] = Field(default_factory=dict)  # id -> fingerprint, for the metrics' `judge`

    def case(self, suite: str, eval_set_id: str, eval_id: str) -> BaselineCase | None:
        return self.suites.get(suite, {}).get(eval_set_id, {}).get(eval_id)

    def outputs_of(self, case: BaselineCase, metric: str) -> Optional[str]:
        """The digest of the recorded runs a metric's scores came from, if recorded."""
        entry = case.metrics.get(metric)
        return (entry.outputs if entry else None) or case.outputs

    def judge_of(self, case: BaselineCase, metric: str) -> Optional[JudgeFingerprint]:
        """The judge that gave a metric's scores, if recorded (not before agenteval recorded it)."""
        entry = case.metrics.get(metric)
        return self.judges.get(entry.judge) if entry and entry.judge else None

    def keys(self) -> list[tuple[str, str, str]]:
        return [(s, e, c) for s, sets in self.suites.items() for e, cases in sets.items() for c in cases]
