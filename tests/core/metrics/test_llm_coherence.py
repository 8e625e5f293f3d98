"""response_evaluation_score (ADK's legacy Vertex coherence, 1 to 5) through the judge, against the
fake Gemini and the fake OpenAI server: ratings, the mean of samples, redraws, ADK's reference rule."""

from __future__ import annotations

from agenteval_ci.core.judging import Unreadable
from agenteval_ci.core.metrics.llm_coherence import read_rating
from agenteval_ci.judge import make_judge
from agenteval_ci.schema import Status
from tests.fakes.gemini import FakeGemini
from tests.fakes.openai import FakeOpenAI
from tests.fakes.openai import text_reply as chat_reply
from tests.judge.helpers import fast_settings, json_reply, judge_for, score, turn


def ratings(*values: object):
    queue = iter(values)
    return lambda request: json_reply({"reasoning": "r", "score": next(queue)})


def test_each_turn_scores_its_rating_and_the_case_the_mean(tmp_path):
    with FakeGemini(responder=ratings(5, 3)) as fake:
        run = score("response_evaluation_score", {"threshold": 3.5}, [turn("a", "x"), turn("b", "y")], judge_for(fake, tmp_path, concurrency=1))
        prompt = fake.requests[0].prompt_text
    assert [t.score for t in run.per_invocation] == [5.0, 3.0] and run.score == 4.0 and run.status == Status.PASSED
    assert "coherent" in prompt and "### The agent's reply\nx" in prompt


def test_several_samples_average_and_a_rating_off_the_scale_is_drawn_again(tmp_path):
    criterion = {"threshold": 4, "judge_model_options": {"num_samples": 2}}
    with FakeGemini(responder=ratings(4, 7, "5")) as fake:  # 7 is no rating: drawn again, "5" reads as 5
        run = score("response_evaluation_score", criterion, [turn("a", "x")], judge_for(fake, tmp_path))
    assert run.score == 4.5 and run.per_invocation[0].details == {"ratings": [4.0, 5.0]}


def test_the_reader_takes_whole_numbers_from_one_to_five_only():
    assert read_rating('{"score": 3}') == 3.0 and read_rating('```json\n{"score": "4.0"}\n```') == 4.0
    for bad in ('{"score": 0}', '{"score": 2.5}', '{"score": true}', '{"score": "high"}', "no json"):
        assert isinstance(read_rating(bad), Unreadable)


def test_it_needs_the_expected_conversation_as_adk_does(tmp_path):
    with FakeGemini(responder=ratings(5)) as fake:
        run = score("response_evaluation_score", {"threshold": 3}, [turn("a", "x"), turn("b", "y")], judge_for(fake, tmp_path),
                    expected=[turn("a", "x")])
    assert run.status == Status.NOT_EVALUATED and "expects 1" in run.reason and fake.requests == []


def test_an_openai_compatible_judge_rates_it_too(tmp_path):
    criterion = {"threshold": 3, "judge_model_options": {"judge_model": "openai/gpt-4o-mini"}}
    with FakeOpenAI(responder=lambda request: chat_reply('{"reasoning": "fine", "score": 2}')) as fake:
        judge = make_judge(fast_settings(tmp_path), fake.env())
        run = score("response_evaluation_score", criterion, [turn("a", "x")], judge)
    assert run.score == 2.0 and run.status == Status.FAILED and fake.requests[0].body["model"] == "gpt-4o-mini"
