"""LLM judge: the only package that talks to google.genai (see docs/judge.md).

    judge = make_judge(settings, os.environ)  # before the agent is imported; always a Judge, even without credentials
    answer = await judge.ask(metric, model, config, prompt, sample, read)
    answers = await judge.ask_many(metric, model, config, prompt, count, read)  # samples 0..count-1, one request
    answer.verdict                            # what `read` made of the reply: only complete verdicts come back
    judge.stats()                             # calls, cache hits/misses, failures, tokens, cost: a JudgeUsage
    run_stats = with_judge_usage(run_stats, judge.usage())  # per metric, into the results file's RunStats
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.judging import JudgeAnswer, Reader, Unreadable, any_text
from ..core.results_record import with_judge_usage
from ..schema.settings import JudgeSettings
from ._judge import Judge
from .access import NO_CREDENTIALS, JudgeAccess

__all__ = [
    "Judge", "JudgeAnswer", "NO_CREDENTIALS", "Reader", "Unreadable", "any_text",
    "make_judge", "with_judge_usage",
]


def make_judge(settings: JudgeSettings, env: Mapping[str, str]) -> Judge:
    """A Judge for a run, its endpoint and credentials read from `env` now: make it before the
    agent is imported, so nothing the agent does to os.environ reaches it. Without credentials
    every judged sample is NOT_EVALUATED with the reason."""
    return Judge(settings, JudgeAccess.from_env(env, settings.base_url))
