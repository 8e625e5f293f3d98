"""Judges that google-adk 2.13 sends through LiteLLM on a protocol other than OpenAI's
(`anthropic/...` here), through `agenteval run` with the production provider and LiteLLM itself
unpatched, against the loopback fake of Anthropic's Messages API: the same eval config scores as
under Gemini, faults are handled as for Gemini, only complete verdicts are cached. LiteLLM is an
optional extra for users; the `test` extra installs it, so CI runs these tests (they skip only
where it is missing); what a user without it sees is tested always."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from tests.fakes.anthropic import MODEL_VERSION, FakeAnthropic, MessagesRequest, message_reply, refusal_reply
from tests.fakes.gemini import Fault
from tests.judge.judged_project import good_reply, judged_scores, write_project
from tests.judge.test_openai_judge import gemini_scores, run  # noqa: F401 - gemini_scores is a fixture

CLAUDE = "anthropic/claude-3-5-sonnet"
needs_litellm = pytest.mark.skipif(importlib.util.find_spec("litellm") is None, reason="LiteLLM, the optional extra, is not installed")


def claude_verdicts(request: MessagesRequest) -> dict:
    return message_reply(json.dumps(good_reply(request.prompt_text)), input_tokens=100, output_tokens=20)


@needs_litellm
def test_an_adk_eval_config_naming_an_anthropic_judge_is_judged_as_gemini_judges_it(tmp_path, monkeypatch, gemini_scores):
    config = write_project(tmp_path, judge_model=CLAUDE)
    with FakeAnthropic(responder=claude_verdicts, api_key="sk-ant-test") as fake:
        code, results = run(config, monkeypatch, fake.env())
    assert (code, judged_scores(results)) == gemini_scores
    first = fake.requests[0]
    assert first.model == "claude-3-5-sonnet" and first.headers["x-api-key"] == "sk-ant-test"
    assert all("n" not in r.body for r in fake.requests)  # Anthropic has no `n`: one sample a request
    judge = results["cases"][0]["metrics"]["final_response_match_v2"]["judge"]
    assert (judge["provider"], judge["model"], judge["versions"]) == ("anthropic", CLAUDE, [MODEL_VERSION])
    assert results["stats"]["judge_calls"] == len(fake.requests) and results["stats"]["judge_tokens"]["input"] > 0


TRANSIENT = {
    "429 with Retry-After": Fault(429, "Number of request tokens has exceeded your rate limit", retry_after=0.01),
    "529 overloaded": Fault(529, "Overloaded"),
    "500": Fault(500, "Internal server error"),
    "malformed body": Fault(malformed=True),
    "dropped connection": Fault(drop=True),
}


@needs_litellm
@pytest.mark.parametrize("kind", TRANSIENT)
def test_transient_faults_are_retried_and_change_no_score(tmp_path, monkeypatch, gemini_scores, kind):
    config = write_project(tmp_path, judge_model=CLAUDE, judge="max_retries: 4")
    with FakeAnthropic(responder=claude_verdicts) as fake:
        fake.random_faults(0.3, (TRANSIENT[kind],), seed=3)
        code, results = run(config, monkeypatch, fake.env())
    assert fake.faults_served > 0
    assert (code, judged_scores(results)) == gemini_scores


@needs_litellm
def test_retry_after_is_honoured(tmp_path, monkeypatch):
    config = write_project(tmp_path, judge_model=CLAUDE, cases=1)
    with FakeAnthropic(responder=claude_verdicts) as fake:
        fake.fail_next(Fault(429, "slow down", retry_after=0.4))
        _, results = run(config, monkeypatch, fake.env())
    throttled = next(a for a in fake.arrivals if a.fault)
    retried = max(a.at for a in fake.arrivals if a.prompt == throttled.prompt)  # its samples came at once, its retry last
    assert retried - throttled.at >= 0.4 and results["cases"][0]["metrics"]["final_response_match_v2"]["status"] == "FAILED"  # light 0: invalid


@needs_litellm
def test_a_refusal_is_not_evaluated_and_only_complete_verdicts_are_cached(tmp_path, monkeypatch):
    config = write_project(tmp_path, judge_model=CLAUDE, cases=1)
    refused: set[str] = set()

    def refuse_first_match(request: MessagesRequest) -> dict:
        if "You grade an AI agent's answer" in request.prompt_text and not refused:
            refused.add("once")
            return refusal_reply()
        return claude_verdicts(request)

    with FakeAnthropic(responder=refuse_first_match) as fake:
        code, results = run(config, monkeypatch, fake.env())
        metric = results["cases"][0]["metrics"]["final_response_match_v2"]
        assert metric["status"] == "NOT_EVALUATED" and "blocked (finish reason content_filter)" in metric["reason"] and code == 1
        before = len(fake.requests)
        _, again = run(config, monkeypatch, fake.env())
    # the match metric's samples are asked again (none was cached, all or nothing); the rest came from the cache
    asked = fake.requests[before:]
    assert asked and all("You grade an AI agent's answer" in r.prompt_text for r in asked)
    assert again["cases"][0]["metrics"]["final_response_match_v2"]["status"] == "FAILED"


@needs_litellm
def test_a_refused_key_says_so(tmp_path, monkeypatch):
    config = write_project(tmp_path, judge_model=CLAUDE, cases=1)
    with FakeAnthropic(responder=claude_verdicts, api_key="right") as fake:
        code, results = run(config, monkeypatch, {**fake.env(), "ANTHROPIC_API_KEY": "wrong"})
    reason = results["cases"][0]["metrics"]["final_response_match_v2"]["reason"]
    assert "judge credentials refused" in reason and code == 1 and fake.requests == [] and fake.refused >= 1


def test_without_litellm_a_litellm_judge_is_not_evaluated_and_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "litellm", None)  # as if the extra were not installed: import fails
    config = write_project(tmp_path, judge_model=CLAUDE, cases=1)
    code, results = run(config, monkeypatch, {"ANTHROPIC_API_KEY": "k"})
    metric = results["cases"][0]["metrics"]["final_response_match_v2"]
    assert metric["status"] == "NOT_EVALUATED" and code == 1
    assert "needs LiteLLM, an optional extra: pip install 'agenteval-ci[litellm]'" in metric["reason"]
    assert results["cases"][0]["metrics"]["tool_trajectory_avg_score"]["status"] == "PASSED"  # the rest still scored
