"""The committed baseline file (default `.agenteval/baseline.json`); see docs/baseline.md.

Nested suite -> eval set -> case -> metric so that a PR diff of the file reads like the
suite itself. Fingerprints tell "the agent changed" from "the test changed". Each gated metric
keeps a history of its accepted runs, so that evidence on a case's flakiness accumulates over
accepts instead of being reset by each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pydantic import Field, FiniteFloat, field_validator, model_validator

from ._base import StrictModel
from .judge import JudgeFingerprint
from .results import Status

BASELINE_VERSION = 2  # 2: metrics keep a `history`; version 1's `passes`/`fails` are read into it
HISTORY_WINDOW = 30  # runs of history kept per case and metric: the newest accepts, each whole
_BATCH = r"(?:[PF]+(?:\+[PF]+)?|\+[PF]+)"
_HISTORY = re.compile(rf"(?:{_BATCH}(?: {_BATCH})*)?")


@dataclass(frozen=True)
class RunBatch:
    """One accept's runs of one metric on one case, in run order: P passed, F failed (runs not
    evaluated are left out). `planned` runs were fixed before any outcome was seen (a fixed
    num_runs, the first round of num_runs: auto); `chosen` ones were re-runs chosen by the outcome."""

    planned: str
    chosen: str = ""

    @classmethod
    def parse(cls, text: str) -> RunBatch:
        planned, _, chosen = text.partition("+")
        return cls(planned, chosen)

    def __str__(self) -> str:
        return self.planned + (f"+{self.chosen}" if self.chosen else "")

    @property
    def runs(self) -> str:
        return self.planned + self.chosen


def outcomes(statuses: list[Status]) -> str:
    return "".join("P" if s == Status.PASSED else "F" for s in statuses if s in (Status.PASSED, Status.FAILED))


class BaselineMetric(StrictModel):
    # Every number is finite: we never write NaN or Infinity, so one read here is a hand edit or a
    # corrupted file, and a comparison with it would decide nothing.
    # The last accepted results' planned runs (the re-runs of num_runs: auto were chosen by their
    # outcome and would overstate the pass rate): their mean score, each run, and ADK's status.
    score: Optional[FiniteFloat] = None
    runs: list[Optional[FiniteFloat]] = Field(default_factory=list)
    run_statuses: list[Status] = Field(default_factory=list)
    status: Status = Status.NOT_EVALUATED
    threshold: Optional[FiniteFloat] = None
    config_fingerprint: str = ""
    rubrics: dict[str, FiniteFloat] = Field(default_factory=dict)  # rubric id -> pass rate over those runs
    # Every accepted run, oldest accept first, at most HISTORY_WINDOW runs: batches separated by
    # spaces, "PPF+PP" = planned runs, then after "+" the re-runs chosen by their outcome.
    history: str = Field(default="", max_length=20_000)
    accepted_from: Optional[str] = None  # the results the newest batch came from: accepting them again replaces it
    # Version 1 only: runs that passed / failed; read into `history` as one planned batch.
    passes: Optional[int] = Field(default=None, ge=0)
    fails: Optional[int] = Field(default=None, ge=0)
    judge: Optional[str] = None  # judged metrics: the id of the judge's fingerprint in `Baseline.judges`
    # The recorded runs these scores came from, when not the case's `outputs` (a partial accept).
    outputs: Optional[str] = None

    @field_validator("history")
    @classmethod
    def _history_parses(cls, value: str) -> str:
        if not _HISTORY.fullmatch(value):
            raise ValueError('batches of P and F separated by single spaces, each "PLANNED" or "PLANNED+CHOSEN"')
        return value

    @model_validator(mode="after")
    def _version_1_counts(self) -> BaselineMetric:
        """A version-1 metric: its counts (else its run statuses) become its history's one batch,
        as little evidence as they are."""
        if not self.history:
            ordered = outcomes(self.run_statuses)
            counted = (self.passes or 0, self.fails or 0)
            legacy = self.passes is not None or self.fails is not None
            if legacy and (ordered.count("P"), ordered.count("F")) != counted:
                ordered = "P" * counted[0] + "F" * counted[1]
            self.history = ordered
        self.passes = self.fails = None
        return self

    def batches(self) -> list[RunBatch]:
        return [RunBatch.parse(b) for b in self.history.split()]

    def history_counts(self) -> tuple[int, int]:
        """(passes, fails) over every run of the history."""
        runs = "".join(b.runs for b in self.batches())
        return runs.count("P"), runs.count("F")

    def planned_counts(self) -> tuple[int, int]:
        """(passes, fails) over the history's planned runs: what the suite's prior is fitted to."""
        runs = "".join(b.planned for b in self.batches())
        return runs.count("P"), runs.count("F")

    def pass_counts(self) -> tuple[int, int]:
        """(passes, fails) of the last accepted planned runs: a fixed-size sample."""
        return self.run_statuses.count(Status.PASSED), self.run_statuses.count(Status.FAILED)


class BaselineCase(StrictModel):
    fingerprint: str
    status: Status
    metrics: dict[str, BaselineMetric] = Field(default_factory=dict)
    # Budgeted figures (gate.budgets, and cost_usd): each planned run's figure, None where a run
    # had none (docs/baseline.md, "Figures"). Kept only for the figures the project budgets.
    figures: dict[str, list[Optional[FiniteFloat]]] = Field(default_factory=dict)
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
