"""A real google-adk LlmAgent with two tools, against the loopback fake Gemini server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "examples" / "adk_agent"
EVAL_SET = AGENT_DIR / "travel.evalset.json"
ANSWER = "It is sunny and 24 degrees in Paris, and the local time is 10:30."


def travel_model(request: GeminiRequest):
    """Calls get_weather, then get_local_time, then answers from both tool results."""
    answered = [r["name"] for r in request.function_responses]
    if not answered:
        return function_call_reply([("get_weather", {"city": "Paris"})], prompt_tokens=40, output_tokens=7)
    if answered == ["get_weather"]:
        return function_call_reply([("get_local_time", {"city": "Paris"})], prompt_tokens=60, output_tokens=7)
    return text_reply(ANSWER, prompt_tokens=80, output_tokens=16)


@pytest.fixture
def gemini(monkeypatch):
    with FakeGemini(responder=travel_model) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        yield fake


def test_adk_agent_runs_and_its_trajectory_scores(gemini, tmp_path, capsys):
    out = tmp_path / "results.json"
    code = main(["run", str(AGENT_DIR), str(EVAL_SET), "--json", str(out)])
    assert code == 0, capsys.readouterr()
    case = json.loads(out.read_text())["cases"][0]
    assert case["status"] == "PASSED"
    assert case["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0
    assert case["metrics"]["response_match_score"]["score"] == 1.0

    invocation = case["runs"][0]["invocations"][0]
    assert invocation["final_response"]["parts"][0]["text"] == ANSWER
    events = invocation["intermediate_data"]["invocation_events"]
    calls = [p["function_call"]["name"] for e in events if e.get("content") for p in e["content"]["parts"] if p.get("function_call")]
    responses = [p["function_response"]["response"] for e in events if e.get("content") for p in e["content"]["parts"] if p.get("function_response")]
    assert calls == ["get_weather", "get_local_time"]
    assert responses == [{"city": "Paris", "forecast": "sunny", "celsius": 24}, {"city": "Paris", "time": "10:30"}]
    assert {e["author"] for e in events} == {"travel_helper"}
    assert invocation["duration"] > 0
    # Token usage comes from the model's usage_metadata on each event.
    assert case["runs"][0]["tokens"] == {"input": 40 + 60 + 80, "output": 7 + 7 + 16}
    assert len(gemini.requests) == 3


def test_session_input_reaches_the_session(gemini, tmp_path):
    """The agent's instruction reads session state: a {placeholder} ADK fills from the session."""
    agent_dir = tmp_path / "stateful"
    agent_dir.mkdir()
    (agent_dir / "__init__.py").write_text("from . import agent\n")
    (agent_dir / "agent.py").write_text(
        "from google.adk.agents import LlmAgent\n"
        "root_agent = LlmAgent(name='greeter', model='gemini-2.5-flash', instruction='The user is {user_name}.')\n"
    )
    eval_set = tmp_path / "greet.evalset.json"
    eval_set.write_text(json.dumps({"eval_set_id": "greet", "eval_cases": [{
        "eval_id": "hello",
        "session_input": {"app_name": "stateful", "user_id": "u1", "state": {"user_name": "Ada"}},
        "conversation": [{"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "Hello Ada"}]}}],
    }]}))
    gemini.responder = lambda req: text_reply("Hello Ada" if "The user is Ada." in req.prompt_text else "Hello stranger")
    assert main(["run", str(agent_dir), str(eval_set), "--json", str(tmp_path / "r.json")]) == 0


def test_missing_adk_gives_an_install_hint(monkeypatch, tmp_path, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "google.adk", None)  # as if google-adk were not installed
    code = main(["run", str(AGENT_DIR), str(EVAL_SET)])
    assert code == 2
    assert "pip install 'agenteval-ci[adk]'" in capsys.readouterr().err
