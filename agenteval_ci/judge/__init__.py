"""LLM judge: the only package that talks to google.genai (see docs/judge.md).

    judge = make_judge(settings, os.environ)  # before the agent is imported; always a Judge, even without credentials
    answer = await judge.ask(metric, model, config, prompt, sample, read)
    answers = await judge.ask_many(metric, model, config, prompt, count, read)  # samples 0..count-1, one request
    answer.verdict                            # what `read` made of the reply: only complete verdicts come back
    stats = judge.stats()                     # calls, cache hits/misses, tokens, cost, per metric
    run_stats = with_judge_stats(run_stats, stats)
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.judging import JudgeAnswer, Reader, Unreadable, any_text
from ..schema import JudgeUsage, RunStats, TokenCounts
from ..schema.settings import JudgeSettings
from ._judge import Judge, JudgeStats, MetricUsage
from .access import NO_CREDENTIALS, JudgeAccess

__all__ = [
    "Judge", "JudgeAnswer", "JudgeStats", "MetricUsage", "NO_CREDENTIALS", "Reader", "Unreadable", "any_text",
    "make_judge", "with_judge_stats",
]


def make_judge(settings: JudgeSettings, env: Mapping[str, str]) -> Judge:
    """A Judge for a run, its endpoint and credentials read from `env` now: make it before the
    agent is imported, so nothing the agent does to os.environ reaches it. Without credentials
    every judged sample is NOT_EVALUATED with the reason."""
    return Judge(settings, JudgeAccess.from_env(env, settings.base_url))


def with_judge_stats(stats: RunStats, judge_stats: JudgeStats) -> RunStats:
    """`stats` with the judge's figures copied in (the results file's RunStats fields)."""
    return stats.model_copy(
        update={
            "judge_calls": judge_stats.calls,
            "judge_cache_hits": judge_stats.cache_hits,
            "judge_cache_misses": judge_stats.cache_misses,
            "judge_tokens": TokenCounts(input=judge_stats.tokens_in, output=judge_stats.tokens_out),
            "estimated_cost_usd": judge_stats.estimated_cost_usd,
            "judge_by_metric": {
                name: JudgeUsage(
                    calls=u.calls,
                    cache_hits=u.cache_hits,
                    cache_misses=u.cache_misses,
                    failures=u.failures,
                    tokens=TokenCounts(input=u.tokens_in, output=u.tokens_out),
                    estimated_cost_usd=u.cost_usd,
                )
                for name, u in sorted(judge_stats.per_metric.items())
            },
        }
    )
