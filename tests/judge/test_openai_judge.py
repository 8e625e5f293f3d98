"""Judges that speak OpenAI's chat-completions protocol (issue 27), through `agenteval run` with
the production provider unpatched against the loopback fake: the same eval config judged by
Gemini and by an OpenAI-compatible judge scores the same; `openai/gpt-4o` written as ADK users
write it works without edits; Azure OpenAI's URL shape; faults handled as for Gemini."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini, Fault
from tests.fakes.openai import ChatRequest, FakeOpenAI, finished_reply, refusal_reply, text_reply
from tests.judge.judged_project import good_reply, judged_scores, verdicts, write_project

JUDGE_VARIABLES = (
    "GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_CLOUD_PROJECT",
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "AZURE_API_KEY", "AZURE_API_BASE", "AZURE_API_VERSION",
    "ANTHROPIC_API_KEY", "ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL",
)


def openai_verdicts(request: ChatRequest) -> dict:
    return text_reply(json.dumps(good_reply(request.prompt_text)), prompt_tokens=100, output_tokens=20)


def run(config: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *extra: str) -> tuple[int, dict]:
    for name in JUDGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = config.parent / "r.json"
    code = main(["run", "--config", str(config), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


@pytest.fixture(scope="module")
def gemini_scores(tmp_path_factory):
    config = write_project(tmp_path_factory.mktemp("gemini"))
    with pytest.MonkeyPatch.context() as monkeypatch, FakeGemini(responder=verdicts) as fake:
        code, results = run(config, monkeypatch, fake.env())
    return code, judged_scores(results)


def test_an_adk_eval_config_naming_openai_gpt_4o_is_judged_as_gemini_judges_it(tmp_path, monkeypatch, gemini_scores):
    """The eval config says `openai/gpt-4o` as ADK users write it; OPENAI_API_KEY and
    OPENAI_BASE_URL (LiteLLM's variables) are all the setup: agenteval.yaml has no judge lines."""
    config = write_project(tmp_path, judge_model="openai/gpt-4o")
    with FakeOpenAI(responder=openai_verdicts, api_key="sk-test") as fake:
        code, results = run(config, monkeypatch, fake.env())
    assert (code, judged_scores(results)) == gemini_scores
    first = fake.requests[0]
    assert first.body["model"] == "gpt-4o" and first.headers["Authorization"] == "Bearer sk-test"
    assert first.body["messages"][0]["role"] == "user"
    # three samples of one prompt in one request
    assert {r.n for r in fake.requests if "You grade an AI agent's answer" in r.prompt_text} == {3}
    judge = results["cases"][0]["metrics"]["final_response_match_v2"]["judge"]
    assert judge["provider"] == "openai" and judge["model"] == "openai/gpt-4o" and judge["versions"] == ["fake-gpt-2024-01-01"]
    assert judge["num_samples"] == 3 and len(judge["prompt"]) == 16
    stats = results["stats"]
    assert stats["judge_calls"] == len(fake.requests) and stats["judge_tokens"]["input"] > 0
    assert stats["estimated_cost_usd"] > 0  # gpt-4o has a list price


def test_the_judge_block_points_a_provider_at_any_compatible_server(tmp_path, monkeypatch, gemini_scores):
    """vLLM, Ollama or a LiteLLM proxy: a provider of agenteval.yaml's own, its key from a named variable."""
    judge = "model: local/llama-3.1-8b\nproviders:\n  local:\n    base_url: {url}\n    api_key_env: LOCAL_JUDGE_KEY"
    with FakeOpenAI(responder=openai_verdicts, api_key="local-secret", multiple_choices=False) as fake:
        config = write_project(tmp_path, judge=judge.format(url=fake.base_url))
        code, results = run(config, monkeypatch, {"LOCAL_JUDGE_KEY": "local-secret"})
    assert (code, judged_scores(results)) == gemini_scores
    assert {r.body["model"] for r in fake.requests} == {"llama-3.1-8b"}
    # a server that refuses n > 1 has each prompt's samples asked one per request: at most the
    # prompts already in flight when the first refusal came (6 cases x 2 metrics) asked for several
    assert 1 <= sum(r.n > 1 for r in fake.requests) <= 12 and fake.requests[-1].n == 1
    assert results["cases"][0]["metrics"]["hallucinations_v1"]["judge"]["provider"] == "local"


def test_azure_openai_deployments_with_an_api_key_header(tmp_path, monkeypatch, gemini_scores):
    config = write_project(tmp_path, judge_model="azure/my-gpt4o-deployment")
    with FakeOpenAI(responder=openai_verdicts, api_key="azure-key") as fake:
        code, results = run(config, monkeypatch, {"AZURE_API_BASE": fake.root_url, "AZURE_API_KEY": "azure-key"})
    assert (code, judged_scores(results)) == gemini_scores
    request = fake.requests[0]
    assert request.path == "/openai/deployments/my-gpt4o-deployment/chat/completions"
    assert request.query == {"api-version": "2024-10-21"} and request.headers["api-key"] == "azure-key"


def test_no_key_and_a_refused_key_say_so_once(tmp_path, monkeypatch, capsys):
    config = write_project(tmp_path, judge_model="openai/gpt-4o", cases=2)
    with FakeOpenAI(responder=openai_verdicts, api_key="right") as fake:
        code, results = run(config, monkeypatch, {"OPENAI_BASE_URL": fake.base_url})
        assert fake.requests == []
        reason = results["cases"][0]["metrics"]["final_response_match_v2"]["reason"]
        assert "no judge credentials for openai/gpt-4o: set OPENAI_API_KEY" in reason and code == 1
        code, results = run(config, monkeypatch, {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "wrong"})
    reason = results["cases"][1]["metrics"]["final_response_match_v2"]["reason"]
    assert "judge credentials refused: HTTP 401: Incorrect API key provided." in reason
    # the prompts already in flight were refused; every later sample says why without a call
    assert fake.requests == [] and 1 <= fake.refused == results["stats"]["judge_calls"] < 2 * 7


TRANSIENT = {
    "429 with Retry-After": Fault(429, "Rate limit reached for gpt-4o", retry_after=0.01),
    "503": Fault(503, "The server is overloaded"),
    "500": Fault(500, "The server had an error while processing your request."),
    "malformed body": Fault(malformed=True),
    "dropped connection": Fault(drop=True),
}


@pytest.mark.parametrize("kind", TRANSIENT)
def test_transient_faults_are_retried_and_change_no_score(tmp_path, monkeypatch, gemini_scores, kind):
    config = write_project(tmp_path, judge_model="openai/gpt-4o", judge="max_retries: 4")
    with FakeOpenAI(responder=openai_verdicts) as fake:
        fake.random_faults(0.3, (TRANSIENT[kind],), seed=3)
        code, results = run(config, monkeypatch, fake.env())
    assert fake.faults_served > 0
    assert (code, judged_scores(results)) == gemini_scores


def test_retry_after_is_honoured(tmp_path, monkeypatch):
    """A 429 saying Retry-After: 0.4 is waited out, not retried at our 1 ms backoff."""
    config = write_project(tmp_path, judge_model="openai/gpt-4o", cases=1)
    with FakeOpenAI(responder=openai_verdicts) as fake:
        fake.fail_next(Fault(429, "slow down", retry_after=0.4))
        import time
        started = time.monotonic()
        code, results = run(config, monkeypatch, fake.env())
        took = time.monotonic() - started
    assert took >= 0.4 and results["cases"][0]["metrics"]["final_response_match_v2"]["status"] == "FAILED"  # light 0: invalid


def _replying(bad, every: int = 1):
    """The judge, but the first sample of each prompt kind is `bad`."""
    seen: set[str] = set()

    def respond(request: ChatRequest) -> dict:
        key = request.prompt_text[:80]
        if key not in seen:
            seen.add(key)
            return bad()
        return openai_verdicts(request)

    return respond


@pytest.mark.parametrize("kind, reply, redrawn, reason", [
    ("refusal", refusal_reply, False, "the judge refused: \"I'm sorry, I can't help with that.\""),
    ("content filter", lambda: finished_reply("content_filter"), False, "the judge's reply was blocked (finish reason content_filter)"),
    ("cut short", lambda: finished_reply("length", '{"verdict": "va'), True, ""),
    ("no text", lambda: text_reply(""), True, ""),
    ("not JSON", lambda: text_reply("Sure! It looks valid to me."), True, ""),
])
def test_replies_without_a_verdict_are_redrawn_or_not_as_for_gemini(tmp_path, monkeypatch, kind, reply, redrawn, reason):
    config = write_project(tmp_path, judge_model="openai/gpt-4o", cases=1)
    with FakeOpenAI(responder=_replying(reply)) as fake:
        code, results = run(config, monkeypatch, fake.env())
        metrics = results["cases"][0]["metrics"]
        if redrawn:  # drawn again and then judged: nothing lost
            assert {metrics[m]["status"] for m in ("final_response_match_v2", "hallucinations_v1")} <= {"PASSED", "FAILED"}
        else:  # a filter or a refusal would stop the same prompt again: not evaluated, with the reason
            assert metrics["final_response_match_v2"]["status"] == "NOT_EVALUATED" and reason in metrics["final_response_match_v2"]["reason"]
            assert code == 1  # no evidence is not a pass
        # only complete verdicts were cached: the same endpoint, healthy now, is asked what failed, no more
        fake.responder = openai_verdicts
        before = len(fake.requests)
        _, again = run(config, monkeypatch, fake.env())
    asked = sum(r.n for r in fake.requests[before:])
    assert asked == (0 if redrawn else 3 + 1)  # the three refused samples, and the labelling the refused split held up
    assert {m["status"] for m in again["cases"][0]["metrics"].values()} <= {"PASSED", "FAILED", "INFORMATIONAL"}
