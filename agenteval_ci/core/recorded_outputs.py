"""A case's recorded runs as the baseline keeps them for re-judging, named by their digest."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from ..schema import CaseResult, RunRecord
from ..schema.recorded_outputs import RecordedCase


class WithRuns(Protocol):
    """A case's runs, whole or as digests (planned_runs counts them)."""

    @property
    def runs(self) -> Sequence[Any]: ...
    @property
    def planned_runs(self) -> int | None: ...


class WithRecordedRuns(WithRuns, Protocol):
    """A case with its runs whole: a CaseResult, or a results reader's summary of its line."""

    @property
    def fingerprint(self) -> str: ...
    @property
    def runs(self) -> Sequence[RunRecord]: ...


def planned_runs(case: WithRuns) -> int:
    """How many of the case's runs were planned before any outcome was seen (all, unless a
    num_runs: auto round chose more)."""
    return len(case.runs) if case.planned_runs is None else min(case.planned_runs, len(case.runs))


# What a judge reads of a run (no timings, no costs): what the baseline records of it.
_RECORDED_FIELDS = {"index", "invocations", "error", "unreported", "final_session_state"}


def recorded_runs(case: WithRecordedRuns) -> list[RunRecord]:
    """The runs the case's baseline scores come from, its planned runs (core/baseline.py's
    planned view: re-runs chosen by outcome would bias them), with what a judge reads of them (no timings)."""
    return [RunRecord(**{name: getattr(run, name) for name in _RECORDED_FIELDS}) for run in case.runs[:planned_runs(case)]]


def outputs_digest(case: WithRecordedRuns) -> str:
    """Names the recorded runs: the same runs of the same case, the same digest. Each run's
    recorded fields are serialized from the run itself (the bytes of recorded_runs' copy of it,
    without making the copy)."""
    digest = hashlib.sha256(case.fingerprint.encode())
    for run in case.runs[:planned_runs(case)]:
        digest.update(run.__pydantic_serializer__.to_json(run, include=_RECORDED_FIELDS, exclude_none=True))
    return digest.hexdigest()[:16]


def recorded_case(case: CaseResult) -> RecordedCase:
    return RecordedCase(
        digest=outputs_digest(case), suite=case.suite, eval_set_id=case.eval_set_id, eval_id=case.eval_id,
        fingerprint=case.fingerprint, eval_case=case.eval_case, runs=recorded_runs(case),
    )


def as_case_result(record: RecordedCase) -> CaseResult:
    """A recorded case as a results case to score again: no metrics yet."""
    from ..schema import Status

    return CaseResult(suite=record.suite, eval_set_id=record.eval_set_id, eval_id=record.eval_id, fingerprint=record.fingerprint,
                      status=Status.NOT_EVALUATED, runs=record.runs, eval_case=record.eval_case)
