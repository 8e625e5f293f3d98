"""The Judge: every LLM-judged metric asks it for samples of one prompt.

It owns the single concurrency bound, retries with exponential backoff and jitter
(honouring Retry-After), the total deadline, the on-disk cache and the token and cost
accounting, the same for every provider: routes.py says which provider answers a judge
model, providers/ hold one module per protocol. The samples of a prompt that are not cached
go out in one request (Gemini's `candidate_count`, OpenAI's `n`: at most the provider's
MAX_CANDIDATES); a model that rejects that is asked one sample per request from then on.

A sample is all or nothing: the metric's reader must find a complete verdict in it (every
rubric it asked about, each with a label of its vocabulary), else the sample failed. A failed
sample a new draw may fix (cut short, malformed, incomplete, no candidates) is drawn again
like a transient error, at most `max_retries` times; one blocked by a safety filter is not.
Only complete verdicts are cached, and every cache entry is read again by the same reader.
`ask` and `ask_many` never raise: a failure comes back as `JudgeAnswer.error`.

A request's images and files go with its prompt, all or none, as judge/media.py decides; every
answer says why they did not (`media_withheld`), and the digest of those sent is part of the
cache key.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Iterable, Optional, Sequence, Union

from ..core.judging import JudgeAnswer, MediaPart, Reader, Unreadable, any_text
from ..core.results_record import add_cost, total_usage
from ..files.judge_cache import CachedReply, DiskCache, cache_key
from ..schema import JudgeUsage
from ..schema.settings import JudgeSettings
from . import media as judge_media
from .access import JudgeAccess
from .costs import estimate_prompt_tokens, estimate_usd
from .limiter import AdaptiveLimiter
from .outcomes import BadReply, CallFailed, CallOutcome, Generated
from .providers import provider
from .routes import Route, Unresolved, resolve


@dataclass(frozen=True)
class _Prompt:
    metric: str
    model: str  # as the metric asked for it
    config: Optional[dict[str, Any]]
    text: str
    route: Route
    media: tuple[MediaPart, ...] = ()  # sent with the text (judge/media.py decided)


Fetched = Union[CachedReply, BadReply, CallFailed]  # one candidate from the model, or why there is none


@dataclass(frozen=True)
class Verdict:
    """A sample the metric's reader found complete: the reply (to cache) and what it read."""

    reply: CachedReply
    value: Any


Sampled = Union[Verdict, BadReply, CallFailed]


class Judge:
    def __init__(self, settings: JudgeSettings, access: JudgeAccess):
        self.settings = settings
        self._access = access
        self._routes: dict[str, Route | Unresolved] = {}
        # Per endpoint, why nothing can be asked there (no credentials, refused credentials):
        # every sample for it is not evaluated, with the reason, and no call is made.
        self._unavailable: dict[str, str] = {}
        self._cache = DiskCache(settings.cache_dir) if settings.cache else None
        self._usage: dict[str, JudgeUsage] = {}
        self._repeats: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._started: Optional[float] = None
        self._single_candidate_models: set[str] = set()  # models that rejected candidate_count > 1
        self._limiter: AdaptiveLimiter  # of `_loop`, set by _loop_state
        self._clients: dict[str, Any] = {}  # of `_loop`, per endpoint

    # ---- the entry points of metrics

    async def ask(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, sample: int, read: Reader[Any] = any_text,
        media: Sequence[MediaPart] = (),
    ) -> JudgeAnswer:
        """Sample number `sample` of `prompt`, as `read` reads it."""
        [answer] = await self._answer(metric, model, config, prompt, [sample], read, media)
        return answer

    async def ask_many(
        self, metric: str, model: str, config: Optional[dict[str, Any]], prompt: str, count: int, read: Reader[Any] = any_text,
        media: Sequence[MediaPart] = (),
    ) -> list[JudgeAnswer]:
        """Samples 0 .. count-1 of `prompt`, as `read` reads them; those not cached are asked for in one request."""
        return await self._answer(metric, model, config, prompt, range(count), read, media)

    def route(self, model: str) -> Route | Unresolved:
        """Which provider answers `model`, and how (routes.py), or why none does."""
        if model not in self._routes:
            try:
                found: Route | Unresolved = resolve(model, self.settings, self._access.env)
            except Unresolved as problem:
                found = problem
            self._routes[model] = found
        return self._routes[model]

    def unavailable(self, model: str) -> Optional[str]:
        """Why `model` cannot be asked at all now (no credentials, an unknown model), or None."""
        route = self.route(model)
        if isinstance(route, Unresolved):
            return str(route)
        if route.key not in self._unavailable:
            problem = route.problem or (self._access.problem if route.protocol == "gemini" and not route.base_url else None)
            if problem:
                self._unavailable[route.key] = problem
        return self._unavailable.get(route.key)

    def usage(self) -> dict[str, JudgeUsage]:
        """Each asking metric's share of the work so far, as the results file keeps it."""
        return {name: usage.model_copy(deep=True) for name, usage in sorted(self._usage.items())}

    def stats(self) -> JudgeUsage:
        """All of the work so far."""
        return total_usage(self._usage.values())

    # ---- samples: cache, repeats, failures

    async def _answer(
        self, metric: str, model: str, config: Optional[dict[str, Any]], text: str, samples: Iterable[int], read: Reader[Any],
        media: Sequence[MediaPart],
    ) -> list[JudgeAnswer]:
        route = self.route(model)
        if isinstance(route, Unresolved):
            return [JudgeAnswer(error=str(route)) for _ in samples]
        plan = judge_media.plan(self.settings, route, media)
        prompt = _Prompt(metric, model, config, text, route, plan.send)
        answers = await self._samples(prompt, samples, read)
        setting = judge_media.setting(self.settings, route)
        return [replace(answer, media_withheld=plan.withheld, media_setting=setting) for answer in answers]

    async def _samples(self, prompt: _Prompt, samples: Iterable[int], read: Reader[Any]) -> list[JudgeAnswer]:
        route, model = prompt.route, prompt.model
        keys = [self._next_key(prompt, sample) for sample in samples]
        answers = [self._cached(prompt, key, read) for key in keys]
        missing = [index for index, answer in enumerate(answers) if answer is None]
        unavailable = self.unavailable(model)
        if missing and unavailable:  # checked after the cache: a committed cache works offline
            return [answer or JudgeAnswer(error=unavailable, provider=route.provider) for answer in answers]
        for _ in missing:
            self._count(prompt.metric, hit=False)
        drawn = await self._draw(prompt, len(missing), read)
        settled = dict(zip(missing, (self._settle(prompt, keys[index], sampled) for index, sampled in zip(missing, drawn))))
        return [answer or settled[index] for index, answer in enumerate(answers)]

    def _next_key(self, prompt: _Prompt, sample: int) -> str:
        """Asking the same prompt and sample again in this judge's life is a repeat (another
        run of the same output) and draws a fresh sample, under a key of its own."""
        model, media = prompt.route.cache_model, judge_media.digest(prompt.media)
        base_key = cache_key(model, prompt.config, prompt.text, sample, 0, media)
        with self._lock:
            repeat = self._repeats[base_key]
            self._repeats[base_key] += 1
        return base_key if repeat == 0 else cache_key(model, prompt.config, prompt.text, sample, repeat, media)

    def _cached(self, prompt: _Prompt, key: str, read: Reader[Any]) -> Optional[JudgeAnswer]:
        """A cached reply the reader finds complete; an entry it cannot read (written by an
        older release, or by hand) is a miss with a warning, and removed."""
        hit = self._cache.get(key) if self._cache else None
        if hit is None:
            return None
        verdict = read(hit.text)
        if isinstance(verdict, Unreadable):
            assert self._cache is not None
            self._cache.discard(key, f"not a complete verdict ({verdict.why})")
            return None
        self._count(prompt.metric, hit=True)
        return JudgeAnswer(text=hit.text, verdict=verdict, cached=True, provider=prompt.route.provider, model_version=hit.model_version)

    def _settle(self, prompt: _Prompt, key: str, sampled: Sampled) -> JudgeAnswer:
        provider_name = prompt.route.provider
        if isinstance(sampled, Verdict):
            if self._cache:
                self._cache.put(key, sampled.reply)
            return JudgeAnswer(text=sampled.reply.text, verdict=sampled.value, provider=provider_name, model_version=sampled.reply.model_version)
        self._usage_of(prompt.metric).failures += 1
        if isinstance(sampled, BadReply):
            return JudgeAnswer(error=sampled.why, provider=provider_name)
        return JudgeAnswer(error=f"judge call failed: {sampled.message}", provider=provider_name)

    # ---- drawing samples until each is a complete verdict

    async def _draw(self, prompt: _Prompt, count: int, read: Reader[Any]) -> list[Sampled]:
        """`count` fresh samples, each a complete verdict or why not. The samples that came back
        unusable in a way a new draw may fix are drawn again together, at most max_retries times."""
        drawn: list[Sampled] = [BadReply("not drawn")] * count
        pending = list(range(count))
        for draw in range(1, self.settings.max_retries + 2):
            fetched = await self._fetch(prompt, len(pending))
            for index, candidate in zip(pending, fetched):
                drawn[index] = _read(candidate, read, draw)
            pending = [index for index in pending if _redraw(drawn[index])]
            if not pending or self.unavailable(prompt.model) or self._remaining() <= 0:
                break
        return drawn

    # ---- batching samples into requests

    async def _fetch(self, prompt: _Prompt, count: int) -> list[Fetched]:
        """`count` fresh samples: in requests of up to MAX_CANDIDATES candidates each, or
        one per request for a model that does not take candidate_count."""
        batch = 1 if prompt.model in self._single_candidate_models else provider(prompt.route.protocol).MAX_CANDIDATES
        return await self._fetch_in_requests(prompt, [min(batch, count - start) for start in range(0, count, batch)])

    async def _fetch_in_requests(self, prompt: _Prompt, sizes: list[int]) -> list[Fetched]:
        """One request per size, all in flight at once under the concurrency bound."""
        batches = await asyncio.gather(*(self._fetch_batch(prompt, size) for size in sizes))
        return [sampled for batch in batches for sampled in batch]

    async def _fetch_batch(self, prompt: _Prompt, size: int) -> list[Fetched]:
        outcome = await self._call_with_retries(prompt, size)
        if isinstance(outcome, CallFailed):
            if size > 1 and outcome.status == 400 and not outcome.credentials:
                # Most likely "multiple candidates is not enabled"; if the request is bad anyway,
                # the single requests report why.
                self._single_candidate_models.add(prompt.model)
                return await self._fetch(prompt, size)
            return [outcome] * size
        replies = [_as_reply(candidate, outcome) for candidate in outcome.candidates[:size]]
        missing = size - len(replies)
        if not missing:
            return replies
        if outcome.blocked:  # the prompt itself was blocked: asking again would be blocked too
            return replies + [BadReply(outcome.blocked, retryable=False)] * missing
        if size == 1:
            return [BadReply("the judge returned no candidates")]
        # Short of candidates: the rest one per request, in parallel, so a model that caps
        # candidates silently costs one more round trip, not one per missing sample.
        return replies + await self._fetch_in_requests(prompt, [1] * missing)

    # ---- calls, retries, deadline

    async def _call_with_retries(self, prompt: _Prompt, candidates: int) -> CallOutcome:
        state = self._loop_state(prompt.route)
        attempt = 0
        while True:
            unavailable = self.unavailable(prompt.model)
            if unavailable:  # the credentials failed on another call: this one would too
                return CallFailed(unavailable, credentials=True)
            remaining = self._remaining()
            if remaining <= 0:
                return CallFailed(f"judge deadline of {self.settings.deadline_seconds:g} s exceeded")
            outcome = await self._one_call(state, prompt, candidates, remaining)
            if isinstance(outcome, Generated) or not outcome.retryable or attempt >= self.settings.max_retries:
                return outcome
            delay = self._backoff(attempt, outcome.retry_after)
            if delay >= self._remaining():
                return CallFailed(f"{outcome.message} (no time left for a retry before the judge deadline)", outcome.status)
            await asyncio.sleep(delay)
            attempt += 1

    async def _one_call(self, state: tuple[Any, AdaptiveLimiter], prompt: _Prompt, candidates: int, remaining: float) -> CallOutcome:
        client, limiter = state
        if isinstance(client, CallFailed):  # the client could not be built (a credentials file, no LiteLLM)
            self._unavailable[prompt.route.key] = client.message
            return client
        await limiter.acquire()  # one request, one slot, however many candidates it asks for
        outcome: CallOutcome = CallFailed("judge call did not finish")
        try:
            timeout = min(self.settings.request_timeout_seconds, remaining)
            generating = provider(prompt.route.protocol).generate(client, prompt.route, prompt.config, prompt.text, candidates, prompt.media)
            outcome = await asyncio.wait_for(generating, timeout)
            if isinstance(outcome, Generated) and not outcome.tokens_in:  # no usage reported
                outcome = replace(outcome, tokens_in=estimate_prompt_tokens(prompt.text))
        except asyncio.TimeoutError:
            outcome = CallFailed(f"no answer within {timeout:g} s", retryable=True)
        finally:
            await limiter.release(throttled=isinstance(outcome, CallFailed) and outcome.status == 429)
        self._record_call(prompt.metric, prompt.route.model, outcome)
        if isinstance(outcome, CallFailed) and outcome.credentials:
            self._unavailable[prompt.route.key] = outcome.message  # every later sample says why, without a call
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

    def _loop_state(self, route: Route) -> tuple[Any, AdaptiveLimiter]:
        """Clients (one per endpoint) and the limiter (one for all) bind to the running event
        loop; each asyncio.run gets fresh ones."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._close_clients()
            self._loop = loop
            self._limiter = AdaptiveLimiter(self.settings.concurrency)
        if route.key not in self._clients:
            self._clients[route.key] = (route.protocol, provider(route.protocol).build_client(route, self._access, self.settings.request_timeout_seconds))
        return self._clients[route.key][1], self._limiter

    def _close_clients(self) -> None:
        for protocol, client in self._clients.values():
            if not isinstance(client, CallFailed):
                provider(protocol).close_quietly(client)
        self._clients = {}

    # ---- accounting

    def _usage_of(self, metric: str) -> JudgeUsage:
        with self._lock:
            return self._usage.setdefault(metric, JudgeUsage(estimated_cost_usd=0.0))

    def _count(self, metric: str, hit: bool) -> None:
        usage = self._usage_of(metric)
        if hit:
            usage.cache_hits += 1
        else:
            usage.cache_misses += 1

    def _record_call(self, metric: str, model: str, outcome: Any) -> None:
        usage = self._usage_of(metric)
        usage.calls += 1
        if isinstance(outcome, Generated):
            usage.tokens.input += outcome.tokens_in
            usage.tokens.output += outcome.tokens_out
            cost = estimate_usd(model, outcome.tokens_in, outcome.tokens_out, self.settings.prices)
            usage.estimated_cost_usd = add_cost(usage.estimated_cost_usd, cost)


def _as_reply(candidate: Union[str, BadReply], response: Generated) -> Fetched:
    """A candidate as a cacheable reply, carrying its even share of the request's tokens."""
    if isinstance(candidate, BadReply):
        return candidate
    share = len(response.candidates)
    return CachedReply(candidate, round(response.tokens_in / share), round(response.tokens_out / share), response.model_version)


def _read(fetched: Fetched, read: Reader[Any], draw: int) -> Sampled:
    """A fetched candidate as the metric reads it: a verdict, or why it is none (after `draw` draws)."""
    if isinstance(fetched, CachedReply):
        value = read(fetched.text)
        if not isinstance(value, Unreadable):
            return Verdict(fetched, value)
        fetched = BadReply(f"unreadable judge reply ({value.why}): {clip(fetched.text)}")
    if isinstance(fetched, BadReply) and draw > 1:
        return replace(fetched, why=f"{fetched.why} (after {draw} draws)")
    return fetched


def _redraw(sampled: Sampled) -> bool:
    """A sample that came back unusable in a way a new draw may fix."""
    return isinstance(sampled, BadReply) and sampled.retryable


def clip(text: Optional[str], limit: int = 120) -> str:
    text = (text or "").strip().replace("\n", " ")
    return repr(text if len(text) <= limit else text[:limit] + "...")
