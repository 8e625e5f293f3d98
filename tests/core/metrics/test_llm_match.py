"""final_response_match_v2 against the fake Gemini server: ADK's votes, ties and failures."""

from __future__ import annotations

from agenteval_ci.schema import Status
from tests.fakes.gemini import FakeGemini, Fault, text_reply
from tests.judge.helpers import json_reply, judge_for, score, turn

CRITERION = {"threshold": 0.5, "judge_model_options": {"num_samples": 5}}


def scripted(*verdicts: str):
    """Replies in order, whatever the prompt (samples are asked at once, so order is arrival)."""
    queue = iter(verdicts)
    return lambda request: json_reply({"reasoning": "r", "verdict": next(queue)})


def run_match(fake, tmp_path, actual, expected, criterion=CRITERION):
    return score("final_response_match_v2", criterion, actual, judge_for(fake, tmp_path, concurrency=1), expected)


def test_majority_of_valid_samples_passes(tmp_path):
    with FakeGemini(responder=scripted("valid", "invalid", "valid", "valid", "invalid")) as fake:
        run = run_match(fake, tmp_path, [turn("Hi", "The light is off.")], [turn("Hi", "Light off.")])
        prompt = fake.requests[0].prompt_text
    assert run.score == 1.0 and run.status == Status.PASSED
    assert "The light is off." in prompt and "Light off." in prompt and "Hi" in prompt
    assert run.per_invocation[0].details == {"votes": ["valid", "invalid", "valid", "valid", "invalid"]}


def test_a_tie_is_invalid(tmp_path):
    criterion = {"threshold": 0.5, "judge_model_options": {"num_samples": 4}}
    with FakeGemini(responder=scripted("valid", "invalid", "invalid", "valid")) as fake:
        run = run_match(fake, tmp_path, [turn("Hi", "a")], [turn("Hi", "b")], criterion)
    assert run.score == 0.0 and run.status == Status.FAILED


def test_case_score_is_the_share_of_valid_turns_among_evaluated_ones(tmp_path):
    def by_turn(request):
        text = request.prompt_text
        if "turn-two" in text:
            return text_reply("I cannot decide")  # no verdict, on every draw: this turn is not evaluated
        return json_reply({"verdict": "invalid" if "turn-three" in text else "valid"})

    criterion = {"threshold": 0.6, "judge_model_options": {"num_samples": 3}}
    actual = [turn("turn-one", "x"), turn("turn-two", "y"), turn("turn-three", "z")]
    with FakeGemini(responder=by_turn) as fake:
        run = run_match(fake, tmp_path, actual, actual, criterion)
    assert run.score == 0.5 and run.status == Status.FAILED
    second = run.per_invocation[1]
    assert second.status == Status.NOT_EVALUATED and second.score is None
    assert "unreadable judge reply" in second.reason and "I cannot decide" in second.reason
    assert "after 7 draws" in second.reason  # drawn again max_retries (6) times


def test_a_failed_sample_leaves_the_turn_not_evaluated_never_zero(tmp_path):
    with FakeGemini(responder=scripted(*["valid"] * 5)) as fake:
        fake.fail_next(Fault(500, "boom"))
        run = run_match(fake, tmp_path, [turn("Hi", "a")], [turn("Hi", "a")], {"threshold": 0.5, "judge_model_options": {"num_samples": 5}})
    # max_retries defaults to 6, so one 500 is retried and the vote completes
    assert run.score == 1.0
    with FakeGemini(responder=lambda r: Fault(500, "boom")) as fake:
        judge = judge_for(fake, tmp_path / "other", max_retries=1)
        run = score("final_response_match_v2", CRITERION, [turn("Hi", "a")], judge, [turn("Hi", "a")])
    assert run.score is None and run.status == Status.NOT_EVALUATED
    assert "HTTP 500" in run.reason and "boom" in run.reason


def test_without_credentials_the_metric_is_not_evaluated_with_the_reason(tmp_path):
    from agenteval_ci.judge import make_judge
    from tests.judge.helpers import fast_settings

    run = score("final_response_match_v2", CRITERION, [turn("Hi", "a")], make_judge(fast_settings(tmp_path), {}), [turn("Hi", "a")])
    assert run.status == Status.NOT_EVALUATED and "no judge credentials" in run.reason


def test_intermediate_responses_are_judged_when_asked(tmp_path):
    criterion = {**CRITERION, "include_intermediate_responses_in_final": True}
    actual = turn("Hi", "final words", intermediate_data={"tool_uses": [], "intermediate_responses": [["agent", [{"text": "thinking aloud"}]]]})
    with FakeGemini(responder=scripted(*["valid"] * 5)) as fake:
        run_match(fake, tmp_path, [actual], [turn("Hi", "ref")], criterion)
        prompt = fake.requests[0].prompt_text
    assert "thinking aloud\nfinal words" in prompt
