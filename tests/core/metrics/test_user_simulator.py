"""per_turn_user_simulator_quality_v1 with ADK's semantics, against the fake Gemini as judge."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from agenteval_ci.core.metrics import MetricInput
from agenteval_ci.core.metrics.registry import REGISTRY
from agenteval_ci.core.metrics.user_simulator import read_verdict
from agenteval_ci.judge import Unreadable
from agenteval_ci.schema import Content, EvalCase, Invocation, Status
from tests.fakes.gemini import FakeGemini, Fault, text_reply
from tests.judge.helpers import judge_for

SPEC = REGISTRY["per_turn_user_simulator_quality_v1"]
SCENARIO = {"starting_prompt": "Book me a table.", "conversation_plan": "Book a table for two at 8pm, then stop."}


def turn(user: str, agent: str) -> Invocation:
    return Invocation(user_content=Content.from_text(user), final_response=Content.from_text(agent, "model"))


CONVERSATION = [turn(" Book me a table. ", "For how many, at what time?"), turn("Two people, 8pm.", "Booked for two at 8pm.")]


def evaluate(fake: FakeGemini, tmp_path, actual=CONVERSATION, num_samples: int = 3, threshold: float = 1.0, **scenario):
    criterion = SPEC.criterion_type.model_validate({"threshold": threshold, "judge_model_options": {"num_samples": num_samples}})
    case = EvalCase(eval_id="c", conversation_scenario={**SCENARIO, **scenario})
    judge = judge_for(fake, tmp_path, cache=False, max_retries=0)
    return asyncio.run(SPEC.evaluate(MetricInput(criterion, actual, None, case, judge)))


def verdicts(*labels: str):
    """Replies in order: the judge's samples for each judged turn, then for the stop check."""
    replies = itertools.cycle(labels)
    return lambda request: text_reply(json.dumps({"checks": [], "is_valid": next(replies)}))


@pytest.mark.parametrize(
    "text, vote",
    [
        ('{"is_valid": true}', 1.0),
        ('```json\n{"checks": [], "is_valid": "valid"}\n```', 1.0),
        ('{"criteria": [], "is_valid": False,}', 0.0),  # ADK's own prompt invites Python literals
        ('{"is_valid": "partially valid"}', 0.0),
        ('{"is_valid": "maybe"}', None),
        ("no verdict here", None),
    ],
)
def test_verdicts_read_as_adk_reads_them(text, vote):
    verdict = read_verdict(text)
    assert (None if isinstance(verdict, Unreadable) else verdict) == vote


def test_all_valid_turns_score_one(tmp_path):
    with FakeGemini(responder=verdicts("valid")) as fake:
        run = evaluate(fake, tmp_path)
    assert run.score == 1.0 and run.status == Status.PASSED
    assert [t.status for t in run.per_invocation] == [Status.PASSED, Status.PASSED]
    # turn 2 and the stop check, 3 samples each in one request; turn 1 needs no judge
    assert [r.candidate_count for r in fake.requests] == [3, 3]


def test_first_turn_must_be_the_starting_prompt(tmp_path):
    with FakeGemini(responder=verdicts("valid")) as fake:
        run = evaluate(fake, tmp_path, actual=[turn("Book a table please", "ok"), CONVERSATION[1]], threshold=0.5)
    assert run.per_invocation[0].score == 0.0 and "starting_prompt" in run.per_invocation[0].reason
    assert run.score == 0.5 and run.status == Status.PASSED


def test_a_tied_vote_is_invalid(tmp_path):
    with FakeGemini(responder=verdicts("valid", "invalid")) as fake:
        run = evaluate(fake, tmp_path, num_samples=2)
    # Turn 2 ties 1-1 (invalid); the stop check ties too, so the last turn fails either way.
    assert [t.score for t in run.per_invocation] == [1.0, 0.0]
    assert run.score == 0.5 and run.status == Status.FAILED


def test_a_failed_stop_check_fails_the_last_turn(tmp_path):
    def respond(request):
        ending = request.prompt_text.rstrip().endswith("</finished>")
        return text_reply(json.dumps({"is_valid": not ending}))

    with FakeGemini(responder=respond) as fake:
        run = evaluate(fake, tmp_path, threshold=0.5)
    assert [t.status for t in run.per_invocation] == [Status.PASSED, Status.FAILED]
    assert "should not end" in run.per_invocation[1].reason
    assert run.score == 0.5


def test_a_sample_without_a_verdict_is_no_vote_but_a_failed_sample(tmp_path):
    """ADK lets such a sample abstain; here it is drawn again, and if it never has a verdict
    the run is not evaluated (never a score from the other samples alone)."""
    def respond(request):
        candidate = request.prompt_text.rstrip().rsplit("\n", 1)[-1]
        return text_reply("I cannot decide" if candidate == "Two people, 8pm." else '{"is_valid": true}')

    with FakeGemini(responder=respond) as fake:
        run = evaluate(fake, tmp_path, threshold=0.5)
    assert run.score is None and run.status == Status.NOT_EVALUATED
    assert "unreadable judge reply" in run.reason and "I cannot decide" in run.reason


def test_a_judge_outage_is_not_evaluated_never_a_low_score(tmp_path):
    with FakeGemini(responder=lambda request: Fault(500, "down")) as fake:
        run = evaluate(fake, tmp_path)
    assert run.score is None and run.status == Status.NOT_EVALUATED and "HTTP 500" in run.reason


def test_a_fixed_conversation_case_is_not_evaluated(tmp_path):
    criterion = SPEC.criterion_type.model_validate({"threshold": 1.0})
    case = EvalCase(eval_id="c", conversation=CONVERSATION)
    run = asyncio.run(SPEC.evaluate(MetricInput(criterion, CONVERSATION, CONVERSATION, case, None)))
    assert run.status == Status.NOT_EVALUATED and "fixed conversation" in run.reason


def test_the_judge_sees_plan_history_candidate_and_persona(tmp_path):
    with FakeGemini(responder=verdicts("valid")) as fake:
        evaluate(fake, tmp_path, num_samples=1, user_persona="EXPERT")
    turn_prompt, stop_prompt = sorted((r.prompt_text for r in fake.requests), key=len)
    assert "Book a table for two at 8pm" in turn_prompt and "user:  Book me a table." in turn_prompt
    assert turn_prompt.rstrip().endswith("Two people, 8pm.") and "Booked for two" not in turn_prompt
    assert stop_prompt.rstrip().endswith("</finished>") and "agent: Booked for two at 8pm." in stop_prompt
    assert "knows exactly what they want" in turn_prompt and "Professional tone" in turn_prompt
