"""The judge against the loopback fake Gemini server, through the real google-genai client."""

from __future__ import annotations

import asyncio
import time

from agenteval_ci.judge import make_judge, with_judge_usage
from agenteval_ci.judge.limiter import AdaptiveLimiter
from agenteval_ci.schema import RunStats
from agenteval_ci.schema.settings import ModelPrice
from tests.fakes.gemini import FakeGemini, Fault, text_reply
from tests.judge.helpers import fast_settings, judge_for

MODEL = "gemini-2.5-flash"


def ask_singly(judge, prompts: list[str], samples: int = 1):
    """Every sample through `Judge.ask`, one request each (batching: test_candidates.py)."""

    async def all_of_them():
        return await asyncio.gather(
            *(judge.ask("metric", MODEL, None, prompt, i) for prompt in prompts for i in range(samples))
        )

    return asyncio.run(all_of_them())


def test_reply_text_tokens_and_cost(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("fine", prompt_tokens=1000, output_tokens=200)) as fake:
        judge = judge_for(fake, tmp_path, prices={MODEL: ModelPrice(input=1.0, output=10.0)})
        [answer] = ask_singly(judge, ["grade this"])
    assert answer.text == "fine" and answer.error is None
    assert fake.requests[0].prompt_text == "grade this" and fake.requests[0].model == MODEL
    stats = judge.stats()
    assert (stats.calls, stats.cache_misses, stats.tokens.input, stats.tokens.output) == (1, 1, 1000, 200)
    assert abs(stats.estimated_cost_usd - 0.003) < 1e-12
    run_stats = with_judge_usage(RunStats(), judge.usage())
    assert run_stats.judge_calls == 1 and run_stats.judge_tokens.input == 1000 and run_stats.estimated_cost_usd == stats.estimated_cost_usd
    [(metric, usage)] = run_stats.judge_by_metric.items()  # the per-metric share, as the results file keeps it
    assert (usage.calls, usage.cache_misses, usage.tokens.input, usage.tokens.output) == (1, 1, 1000, 200)
    assert usage.estimated_cost_usd == stats.estimated_cost_usd


def test_second_judge_reads_every_reply_from_the_cache(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("cached?")) as fake:
        ask_singly(judge_for(fake, tmp_path), ["a", "b"], samples=3)
        assert len(fake.requests) == 6
        warm = judge_for(fake, tmp_path)
        answers = ask_singly(warm, ["a", "b"], samples=3)
        assert len(fake.requests) == 6  # zero new requests
    assert all(a.cached and a.text == "cached?" for a in answers)
    assert (warm.stats().calls, warm.stats().cache_hits, warm.stats().cache_misses) == (0, 6, 0)


def test_a_repeat_of_the_same_prompt_draws_a_fresh_sample(tmp_path):
    replies = iter(["first", "second", "third"])
    with FakeGemini(responder=lambda r: text_reply(next(replies))) as fake:
        judge = judge_for(fake, tmp_path)
        [one] = ask_singly(judge, ["same prompt"])
        [two] = ask_singly(judge, ["same prompt"])  # another run of an identical output
        assert len(fake.requests) == 2
        rerun = judge_for(fake, tmp_path)
        assert [a.text for a in ask_singly(rerun, ["same prompt", "same prompt"])] == ["first", "second"]
    assert (one.text, two.text) == ("first", "second")


def test_no_cache_setting_always_calls(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("x")) as fake:
        ask_singly(make_judge(fast_settings(tmp_path, cache=False), fake.env()), ["p"])
        ask_singly(make_judge(fast_settings(tmp_path, cache=False), fake.env()), ["p"])
        assert len(fake.requests) == 2
    assert not (tmp_path / "judge").exists()


def test_without_credentials_every_sample_says_why(tmp_path):
    judge = make_judge(fast_settings(tmp_path), env={})
    [answer] = ask_singly(judge, ["p"])
    assert answer.text is None and "no judge credentials: set GOOGLE_API_KEY or GEMINI_API_KEY" in answer.error


def test_429_with_retry_after_is_honoured_then_succeeds(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("ok")) as fake:
        fake.fail_next(Fault(429, "slow down", retry_after=0.3))
        started = time.monotonic()
        [answer] = ask_singly(judge_for(fake, tmp_path), ["p"])
        elapsed = time.monotonic() - started
    assert answer.text == "ok" and len(fake.requests) == 2
    assert elapsed >= 0.3  # waited as told, not our 10 ms backoff


def test_500s_are_retried_until_the_retry_budget_runs_out(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("ok")) as fake:
        fake.fail_next(*[Fault(500, "backend exploded")] * 3)
        [answer] = ask_singly(judge_for(fake, tmp_path, max_retries=2), ["p"])
        assert len(fake.requests) == 3
    assert answer.text is None and "HTTP 500" in answer.error and "backend exploded" in answer.error
    assert not list(tmp_path.rglob("*.json"))  # a failure is never cached


def test_client_errors_are_not_retried(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("ok"), api_key="right") as fake:
        judge = make_judge(fast_settings(tmp_path), {**fake.env(), "GOOGLE_API_KEY": "wrong"})
        [answer] = ask_singly(judge, ["p"])
        assert len(fake.requests) == 0  # the fake rejects before recording; one attempt only
    assert "judge credentials refused: HTTP 400" in answer.error and "API key not valid" in answer.error
    assert judge.stats().calls == 1


def test_a_bad_request_is_not_retried(tmp_path):
    with FakeGemini(responder=lambda r: Fault(400, "Invalid JSON payload received.")) as fake:
        judge = judge_for(fake, tmp_path)
        [answer] = ask_singly(judge, ["p"])
        assert len(fake.requests) == 1
    assert answer.error == "judge call failed: HTTP 400: Invalid JSON payload received."


def test_a_hang_past_the_timeout_is_retried(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("ok")) as fake:
        fake.fail_next(Fault(hang=3.0))
        [answer] = ask_singly(judge_for(fake, tmp_path, request_timeout_seconds=0.3), ["p"])
    assert answer.text == "ok" and len(fake.requests) == 2


def test_the_deadline_stops_a_dead_endpoint(tmp_path):
    with FakeGemini(responder=lambda r: Fault(hang=5.0)) as fake:
        started = time.monotonic()
        answers = ask_singly(judge_for(fake, tmp_path, request_timeout_seconds=0.2, deadline_seconds=0.7), ["a", "b"], samples=2)
        elapsed = time.monotonic() - started
    assert elapsed < 2.0
    assert all(a.text is None and a.error for a in answers)
    assert any("deadline" in a.error or "no answer within" in a.error for a in answers)


def test_a_malformed_body_is_retried_like_a_dropped_connection(tmp_path):
    with FakeGemini(responder=lambda r: text_reply("ok")) as fake:
        fake.fail_next(Fault(malformed=True))
        answers = ask_singly(judge_for(fake, tmp_path, concurrency=1), ["a", "b"])
        assert len(fake.requests) == 3
    assert [a.text for a in answers] == ["ok", "ok"]


def test_concurrency_never_exceeds_the_bound(tmp_path):
    fake = FakeGemini(responder=lambda r: text_reply("ok"), latency=0.05)
    with fake:
        ask_singly(judge_for(fake, tmp_path, concurrency=4), [f"prompt {i}" for i in range(12)], samples=2)
    assert len(fake.requests) == 24
    assert fake.max_in_flight == 4


def test_429s_are_retried_until_answered(tmp_path):
    """(The limiter halving on 429 is tested in test_limiter_halves_on_429_and_grows_back.)"""
    with FakeGemini(responder=lambda r: text_reply("ok"), latency=0.02) as fake:
        fake.fail_next(*[Fault(429, retry_after=0.05)] * 4)
        judge = judge_for(fake, tmp_path, concurrency=8)
        answers = ask_singly(judge, [f"p{i}" for i in range(16)])
    assert all(a.text == "ok" for a in answers)
    assert judge.stats().calls == 20  # 16 answers + the 4 throttled attempts


def test_limiter_halves_on_429_and_grows_back():
    async def scenario():
        limiter = AdaptiveLimiter(8)
        await limiter.acquire()
        await limiter.release(throttled=True)
        after_429 = limiter.limit
        for _ in range(3):
            await limiter.acquire()
            await limiter.release(throttled=False)
        return after_429, limiter.limit

    assert asyncio.run(scenario()) == (4, 7)
