"""A results file's record, made from its cases (pure: the caller says when)."""

from __future__ import annotations

from .. import __version__
from ..schema import AdaptiveInfo, CaseResult, Results, RunStats, ShardInfo


def results_of(
    cases: list[CaseResult],
    *,
    created_at: str,
    num_runs: int,
    suites: list[str] | None = None,
    stats: RunStats | None = None,
    warnings: list[str] | None = None,
    shard: ShardInfo | None = None,
    commit: str | None = None,
    case_filter: list[str] | None = None,
    adaptive: AdaptiveInfo | None = None,
) -> Results:
    return Results(
        tool_version=__version__,
        created_at=created_at,
        num_runs=num_runs,
        suites=suites or sorted({c.suite for c in cases}) or ["default"],
        shard=shard,
        case_filter=case_filter,
        commit=commit,
        stats=stats or RunStats(),
        adaptive=adaptive,
        warnings=warnings or [],
        cases=cases,
    )
