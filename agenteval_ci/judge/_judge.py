"""The Judge: every LLM-judged metric asks it for one sample of one prompt.

It owns the single concurrency bound, retries with exponential backoff and jitter
(honouring Retry-After), the total deadline, the on-disk cache and the token and cost
accounting. `ask` never raises: a failure comes back as `JudgeAnswer.error`.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from ..schema.settings import JudgeSettings
from .cache import CachedReply, DiskCache, cache_key
from .outcomes import CallFailed, GeneratedText
from .costs import estimate_usd
from .limiter import AdaptiveLimiter


@dataclass(frozen=True)
class JudgeAnswer:
    text: Optional[str] = None
    error: Optional[str] = None  # why there is no text: the sample is not evaluated
    cached: bool = False


@dataclass
class MetricUsage:
    calls: int = 0  # HTTP attempts that reached the model (retries included)
    cache_hits: int = 0
    cache_misses: int = 0
    failures: int = 0  # samples left without a reply after all retries
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Optional[float] = 0.0  # None once a model without a known price was used


@dataclass
class JudgeStats:
    calls: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated_cost_usd: Optional[float] = 0.0
    per_metric: dict[str, MetricUsage] = field(default_factory=dict)


class Judge:
    def __init__(self, settings: JudgeSettings, env: dict[str, str], unavailable: Optional[str] = None):
        self.settings = settings
        self.unavailable = unavailable  # e.g. no credentials: every sample is not evaluated
        self._env = env
        self._cache = DiskCache(settings.cache_dir) if settings.cache else None
        self._usage: dict[str, MetricUsage] = {}
        self._repeats: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._started: Optional[float] = None

    # ---- the one entry point of metrics

    async def ask(self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, sample: int) -> JudgeAnswer:
        """One sample of `prompt`. Asking the same prompt and sample again in this judge's life
        is a repeat (another run of the same output) and draws a fresh sample."""
        base_key = cache_key(model, config, prompt, sample, 0)
        with self._lock:
            repeat = self._repeats[base_key]
            self._repeats[base_key] += 1
        key = base_key if repeat == 0 else cache_key(model, config, prompt, sample, repeat)
        if self._cache and (hit := self._cache.get(key)):
            self._count(metric, hit=True)
            return JudgeAnswer(text=hit.text, cached=True)
        if self.unavailable:  # checked after the cache: a committed cache works offline
            return JudgeAnswer(error=self.unavailable)
        self._count(metric, hit=False)
        outcome = await self._call_with_retries(metric, model, config, prompt)
        if isinstance(outcome, CallFailed):
            self._usage_of(metric).failures += 1
            return JudgeAnswer(error=f"judge call failed: {outcome.message}")
        if self._cache:
            self._cache.put(key, CachedReply(outcome.text, outcome.tokens_in, outcome.tokens_out))
        return JudgeAnswer(text=outcome.text)

    def stats(self) -> JudgeStats:
        total = JudgeStats(per_metric={name: MetricUsage(**vars(u)) for name, u in self._usage.items()})
        for usage in self._usage.values():
            total.calls += usage.calls
            total.cache_hits += usage.cache_hits
            total.cache_misses += usage.cache_misses
            total.failures += usage.failures
            total.tokens_in += usage.tokens_in
            total.tokens_out += usage.tokens_out
            total.estimated_cost_usd = _add_cost(total.estimated_cost_usd, usage.cost_usd)
        return total

    # ---- calls, retries, deadline

    async def _call_with_retries(self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str):
        state = self._loop_state()
        attempt = 0
        while True:
            remaining = self._remaining()
            if remaining <= 0:
                return CallFailed(f"judge deadline of {self.settings.deadline_seconds:g} s exceeded")
            outcome = await self._one_call(state, metric, model, config, prompt, remaining)
            if isinstance(outcome, GeneratedText) or not outcome.retryable or attempt >= self.settings.max_retries:
                return outcome
            delay = self._backoff(attempt, outcome.retry_after)
            if delay >= self._remaining():
                return CallFailed(f"{outcome.message} (no time left for a retry before the judge deadline)", outcome.status)
            await asyncio.sleep(delay)
            attempt += 1

    async def _one_call(self, state, metric, model, config, prompt, remaining: float):
        client, limiter = state
        await limiter.acquire()
        outcome: Any = CallFailed("judge call did not finish")
        try:
            timeout = min(self.settings.request_timeout_seconds, remaining)
            outcome = await asyncio.wait_for(client_module().generate(client, model, config, prompt), timeout)
        except asyncio.TimeoutError:
            outcome = CallFailed(f"no answer within {timeout:g} s", retryable=True)
        finally:
            await limiter.release(throttled=isinstance(outcome, CallFailed) and outcome.status == 429)
        self._record_call(metric, model, outcome)
        return outcome

    def _backoff(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return retry_after
        ceiling = min(self.settings.backoff_max_seconds, self.settings.backoff_initial_seconds * 2**attempt)
        return random.uniform(ceiling / 2, ceiling)  # jitter so throttled callers do not retry in lockstep

    def _remaining(self) -> float:
        if self._started is None:
            self._started = time.monotonic()
        return self.settings.deadline_seconds - (time.monotonic() - self._started)

    def _loop_state(self) -> tuple[Any, AdaptiveLimiter]:
        """Client and limiter bind to the running event loop; each asyncio.run gets fresh ones."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None:
                client_module().close_quietly(self._state[0])
            self._loop = loop
            self._state = (
                client_module().build_client(self._env, self.settings.base_url, self.settings.request_timeout_seconds),
                AdaptiveLimiter(self.settings.concurrency),
            )
        return self._state

    # ---- accounting

    def _usage_of(self, metric: str) -> MetricUsage:
        with self._lock:
            return self._usage.setdefault(metric, MetricUsage())

    def _count(self, metric: str, hit: bool) -> None:
        usage = self._usage_of(metric)
        if hit:
            usage.cache_hits += 1
        else:
            usage.cache_misses += 1

    def _record_call(self, metric: str, model: str, outcome: Any) -> None:
        usage = self._usage_of(metric)
        usage.calls += 1
        if isinstance(outcome, GeneratedText):
            usage.tokens_in += outcome.tokens_in
            usage.tokens_out += outcome.tokens_out
            cost = estimate_usd(model, outcome.tokens_in, outcome.tokens_out, self.settings.prices)
            usage.cost_usd = _add_cost(usage.cost_usd, cost)


def client_module() -> Any:
    """google.genai is imported on the first real call, not when a command merely might judge."""
    from . import client

    return client


def _add_cost(total: Optional[float], more: Optional[float]) -> Optional[float]:
    return None if total is None or more is None else total + more
