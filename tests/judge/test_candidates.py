"""All samples of a prompt in one request (candidate_count), against the fake Gemini server:
per-sample caching, the fallback for models without candidate_count, short and empty
candidates, the concurrency bound and faults."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import pytest

from agenteval_ci.judge import make_judge
from agenteval_ci.schema import Status
from agenteval_ci.schema.settings import ModelPrice
from tests.fakes.gemini import FakeGemini, Fault, text_reply
from tests.judge.helpers import fast_settings, judge_for, score, turn

MODEL = "gemini-2.5-flash"
MATCH = "final_response_match_v2"


def numbered(prompt_tokens: int = 10, output_tokens: int = 5):
    """Replies 'sample 0', 'sample 1', ... in the order the fake asks for candidates."""
    counter = itertools.count()
    return lambda request: text_reply(f"sample {next(counter)}", prompt_tokens, output_tokens)


def no_text_reply(finish_reason: str) -> dict:
    return {"candidates": [{"finishReason": finish_reason}], "usageMetadata": {"promptTokenCount": 10}}


def ask_all(judge, prompts: list[str], count: int, config=None):
    async def all_of_them():
        return await asyncio.gather(*(judge.ask_many("metric", MODEL, config, prompt, count) for prompt in prompts))

    return asyncio.run(all_of_them())


def texts(answers) -> list:
    return [a.text if a.text is not None else a.error for a in answers]


def test_one_request_carries_every_sample_and_bills_the_prompt_once(tmp_path):
    with FakeGemini(responder=numbered(prompt_tokens=1000, output_tokens=200)) as fake:
        judge = judge_for(fake, tmp_path, prices={MODEL: ModelPrice(input=1.0, output=10.0)})
        [answers] = ask_all(judge, ["grade this"], 5)
    assert [r.candidate_count for r in fake.requests] == [5]
    assert texts(answers) == [f"sample {k}" for k in range(5)]
    stats = judge.stats()
    assert (stats.calls, stats.cache_misses, stats.tokens.input, stats.tokens.output) == (1, 5, 1000, 1000)
    assert abs(stats.estimated_cost_usd - (1000 * 1.0 + 1000 * 10.0) / 1e6) < 1e-12
    entries = [json.loads(p.read_text()) for p in (tmp_path / "judge").rglob("*.json")]
    assert sorted(e["text"] for e in entries) == [f"sample {k}" for k in range(5)]
    assert {(e["tokens_in"], e["tokens_out"]) for e in entries} == {(200, 200)}  # each sample's share


def test_a_metric_scores_every_sample_of_the_one_request(tmp_path):
    verdicts = iter(["valid", "invalid", "valid", "valid", "invalid"])
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 5}}
    with FakeGemini(responder=lambda r: text_reply(json.dumps({"verdict": next(verdicts)}))) as fake:
        run = score(MATCH, criterion, [turn("Hi", "The light is off.")], judge_for(fake, tmp_path), [turn("Hi", "Off.")])
    assert [r.candidate_count for r in fake.requests] == [5]
    assert run.per_invocation[0].details == {"votes": ["valid", "invalid", "valid", "valid", "invalid"]}
    assert run.score == 1.0 and run.status == Status.PASSED


def test_more_than_eight_samples_go_in_requests_of_at_most_eight(tmp_path):
    with FakeGemini(responder=numbered()) as fake:
        [answers] = ask_all(judge_for(fake, tmp_path), ["p"], 11)
    assert sorted(r.candidate_count for r in fake.requests) == [3, 8]
    assert sorted(texts(answers), key=lambda t: int(t.split()[1])) == [f"sample {k}" for k in range(11)]


def test_cached_samples_are_not_asked_again_and_the_rest_share_one_request(tmp_path):
    with FakeGemini(responder=numbered()) as fake:
        [first] = ask_all(judge_for(fake, tmp_path), ["p"], 3)
        warm = judge_for(fake, tmp_path)
        [answers] = ask_all(warm, ["p"], 5)
        assert [r.candidate_count for r in fake.requests] == [3, 2]
        again = judge_for(fake, tmp_path)
        ask_all(again, ["p"], 5)
        assert len(fake.requests) == 2  # every sample cached: zero calls
    assert [a.cached for a in answers] == [True, True, True, False, False]
    assert texts(answers) == texts(first) + ["sample 3", "sample 4"]
    assert (warm.stats().calls, warm.stats().cache_hits, warm.stats().cache_misses) == (1, 3, 2)
    assert (again.stats().calls, again.stats().cache_hits) == (0, 5)


def test_a_repeat_of_the_prompt_draws_fresh_samples_in_one_request(tmp_path):
    with FakeGemini(responder=numbered()) as fake:
        judge = judge_for(fake, tmp_path)
        [one] = ask_all(judge, ["same"], 2)
        [two] = ask_all(judge, ["same"], 2)  # another run of an identical output
    assert [r.candidate_count for r in fake.requests] == [2, 2]
    assert (texts(one), texts(two)) == (["sample 0", "sample 1"], ["sample 2", "sample 3"])


def test_a_model_without_candidate_count_falls_back_to_one_request_per_sample(tmp_path):
    with FakeGemini(responder=numbered(), multiple_candidates=False) as fake:
        judge = judge_for(fake, tmp_path)
        [first] = ask_all(judge, ["p1"], 3)
        assert [r.candidate_count for r in fake.requests] == [3, 1, 1, 1]  # rejected, then one by one
        [second] = ask_all(judge, ["p2"], 3)
        assert [r.candidate_count for r in fake.requests[4:]] == [1, 1, 1]  # remembered for the model
    assert sorted(texts(first) + texts(second)) == [f"sample {k}" for k in range(6)]
    stats = judge.stats()
    assert (stats.calls, stats.cache_misses, stats.failures) == (7, 6, 0)


def test_a_metric_completes_with_correct_scores_on_a_model_without_candidate_count(tmp_path):
    def verdict(request):
        return text_reply(json.dumps({"verdict": "invalid" if "turn-two" in request.prompt_text else "valid"}))

    actual = [turn("turn-one", "x"), turn("turn-two", "y")]
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 3}}
    with FakeGemini(responder=verdict, multiple_candidates=False) as fake:
        run = score(MATCH, criterion, actual, judge_for(fake, tmp_path), actual)
    assert [t.score for t in run.per_invocation] == [1.0, 0.0] and run.score == 0.5
    batched = [r for r in fake.requests if r.candidate_count > 1]
    assert 1 <= len(batched) <= 2  # both turns may ask before the first rejection is known
    assert len(fake.requests) - len(batched) == 6


def test_a_refused_key_is_a_credentials_failure_not_a_candidate_count_fallback(tmp_path):
    with FakeGemini(responder=numbered(), api_key="right") as fake:
        judge = make_judge(fast_settings(tmp_path), {**fake.env(), "GOOGLE_API_KEY": "wrong"})
        [answers] = ask_all(judge, ["p"], 2)
        [later] = ask_all(judge, ["q"], 1)
    assert all("judge credentials refused: HTTP 400" in a.error and "API key not valid" in a.error for a in answers + later)
    assert judge.stats().calls == 1 and judge.stats().failures == 2  # the batch once; later samples fail without a call


def test_fewer_candidates_than_asked_are_made_up_one_request_each(tmp_path):
    with FakeGemini(responder=numbered(), max_candidates=2) as fake:
        judge = judge_for(fake, tmp_path)
        [answers] = ask_all(judge, ["p"], 5)
    assert sorted(r.candidate_count for r in fake.requests) == [1, 1, 1, 5]
    assert sorted(texts(answers)) == [f"sample {k}" for k in range(5)]
    assert texts(answers)[:2] == ["sample 0", "sample 1"]
    assert judge.stats().calls == 4 and judge.stats().failures == 0


def test_a_blocked_candidate_fails_only_its_sample_and_is_not_drawn_again(tmp_path):
    replies = iter([text_reply("yes"), no_text_reply("SAFETY"), text_reply("also yes")])
    with FakeGemini(responder=lambda r: next(replies)) as fake:
        judge = judge_for(fake, tmp_path)
        [answers] = ask_all(judge, ["p"], 3)
        fake.responder = lambda r: text_reply("second try")
        [again] = ask_all(judge_for(fake, tmp_path), ["p"], 3)
        assert [r.candidate_count for r in fake.requests] == [3, 1]  # only the failed sample is asked again, next run
    assert texts(answers) == ["yes", "the judge's reply was blocked (finish reason SAFETY)", "also yes"]
    assert judge.stats().failures == 1 and judge.stats().calls == 1
    assert texts(again) == ["yes", "second try", "also yes"]


def test_a_candidate_cut_short_is_drawn_again_alone(tmp_path):
    replies = iter([text_reply('{"verdict": "valid"}'), no_text_reply("MAX_TOKENS"), text_reply('{"verdict": "invalid"}'),
                    text_reply('{"verdict": "invalid"}')])
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 3}}
    with FakeGemini(responder=lambda r: next(replies)) as fake:
        run = score(MATCH, criterion, [turn("Hi", "a")], judge_for(fake, tmp_path), [turn("Hi", "a")])
    assert [r.candidate_count for r in fake.requests] == [3, 1]
    assert run.per_invocation[0].details == {"votes": ["valid", "invalid", "invalid"]} and run.score == 0.0


def test_a_candidate_always_cut_short_leaves_the_turn_not_evaluated_with_the_sample_named(tmp_path):
    replies = itertools.chain([text_reply('{"verdict": "valid"}')], itertools.repeat(no_text_reply("MAX_TOKENS")))
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 2}}
    with FakeGemini(responder=lambda r: next(replies)) as fake:
        run = score(MATCH, criterion, [turn("Hi", "a")], judge_for(fake, tmp_path, max_retries=2), [turn("Hi", "a")])
    assert run.status == Status.NOT_EVALUATED and run.score is None
    assert "sample 2 of 2: the judge's reply was cut short (finish reason MAX_TOKENS) (after 3 draws)" in run.reason


def test_thought_parts_are_not_part_of_the_answer(tmp_path):
    thinking = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hmm...", "thought": True}, {"text": "verdict"}]}}]}
    with FakeGemini(responder=lambda r: thinking) as fake:
        [answers] = ask_all(judge_for(fake, tmp_path), ["p"], 2)
    assert texts(answers) == ["verdict", "verdict"]


def test_our_sample_count_overrides_the_users_candidate_count(tmp_path):
    config = {"candidate_count": 7, "temperature": 0.5}
    with FakeGemini(responder=numbered()) as fake:
        judge = judge_for(fake, tmp_path)
        [answers] = ask_all(judge, ["p"], 2, config)
        [single] = asyncio.run(judge.ask_many("metric", MODEL, config, "q", 1))
    assert [r.candidate_count for r in fake.requests] == [2, 1]
    assert fake.requests[0].body["generationConfig"]["temperature"] == 0.5
    assert len(answers) == 2 and single.text == "sample 2"


def test_batched_requests_respect_the_concurrency_bound(tmp_path):
    with FakeGemini(responder=numbered(), latency=0.05) as fake:
        results = ask_all(judge_for(fake, tmp_path, concurrency=4), [f"prompt {i}" for i in range(12)], 3)
    assert [r.candidate_count for r in fake.requests] == [3] * 12
    assert fake.max_in_flight == 4
    assert all(a.text for answers in results for a in answers)


def test_a_429_with_retry_after_retries_the_whole_batch(tmp_path):
    with FakeGemini(responder=numbered()) as fake:
        fake.fail_next(Fault(429, "slow down", retry_after=0.3))
        started = time.monotonic()
        [answers] = ask_all(judge_for(fake, tmp_path), ["p"], 3)
        elapsed = time.monotonic() - started
    assert [r.candidate_count for r in fake.requests] == [3, 3]
    assert texts(answers) == ["sample 0", "sample 1", "sample 2"] and elapsed >= 0.3


@pytest.mark.parametrize(
    "fault, requests, reason",
    [
        (Fault(429, "slow down", retry_after=0.01), 2, "HTTP 429: slow down"),
        (Fault(500, "backend exploded"), 2, "HTTP 500: backend exploded"),
        (Fault(hang=1.0), 2, "no answer within 0.2 s"),
        (Fault(malformed=True), 2, "unreadable response body"),  # a body cut off in transit
    ],
)
def test_a_failed_batch_leaves_the_turn_not_evaluated_with_the_reason(tmp_path, fault, requests, reason):
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 3}}
    with FakeGemini(responder=lambda r: fault) as fake:
        judge = judge_for(fake, tmp_path, max_retries=1, request_timeout_seconds=0.2)
        run = score(MATCH, criterion, [turn("Hi", "a")], judge, [turn("Hi", "a")])
    assert [r.candidate_count for r in fake.requests] == [3] * requests
    assert run.status == Status.NOT_EVALUATED and run.score is None
    assert f"sample 1 of 3: judge call failed: {reason}" in run.reason
    assert judge.stats().failures == 3 and judge.stats().calls == requests
    assert not (tmp_path / "judge").exists()  # failures are never cached
