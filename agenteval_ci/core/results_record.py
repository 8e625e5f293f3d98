"""A results file's record, made from its cases (pure: the caller says when), and the one
way judge usage adds up: per metric, over a run, over merged shards."""

from __future__ import annotations

from collections.abc import Iterable

from .. import __version__
from ..schema import AdaptiveInfo, CaseResult, JudgeUsage, Results, RunStats, ShardInfo, TokenCounts


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


def add_cost(total: float | None, more: float | None) -> float | None:
    """Unknown anywhere (a model without a price) is unknown in the sum."""
    return None if total is None or more is None else total + more


def total_cost(costs: Iterable[float | None]) -> float | None:
    total: float | None = 0.0
    for cost in costs:
        total = add_cost(total, cost)
    return total


def total_usage(usages: Iterable[JudgeUsage]) -> JudgeUsage:
    total = JudgeUsage(estimated_cost_usd=0.0)
    for usage in usages:
        total.calls += usage.calls
        total.cache_hits += usage.cache_hits
        total.cache_misses += usage.cache_misses
        total.failures += usage.failures
        total.tokens = TokenCounts(input=total.tokens.input + usage.tokens.input, output=total.tokens.output + usage.tokens.output)
        total.estimated_cost_usd = add_cost(total.estimated_cost_usd, usage.estimated_cost_usd)
    return total


def with_judge_usage(stats: RunStats, per_metric: dict[str, JudgeUsage]) -> RunStats:
    """`stats` with the judge's work in: the totals and each metric's share."""
    total = total_usage(per_metric.values())
    return stats.model_copy(
        update={
            "judge_calls": total.calls,
            "judge_cache_hits": total.cache_hits,
            "judge_cache_misses": total.cache_misses,
            "judge_tokens": total.tokens,
            "estimated_cost_usd": total.estimated_cost_usd,
            "judge_by_metric": dict(sorted(per_metric.items())),
        }
    )
