"""A real google-adk multi-agent trajectory (root -> transfer_to_agent -> sub-agent tool call),
against the loopback fake Gemini server, scored with argument rules from agenteval.yaml."""

from __future__ import annotations

import json

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply

pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")

AGENT = '''
from google.adk.agents import LlmAgent


def get_weather(city: str) -> dict:
    """Returns the current weather in a city."""
    return {"city": city, "forecast": "sunny"}


weather_agent = LlmAgent(
    name="weather_agent", model="gemini-2.5-flash", description="Knows the weather.",
    instruction="WEATHER AGENT: answer with get_weather.", tools=[get_weather],
)
root_agent = LlmAgent(
    name="root_agent", model="gemini-2.5-flash", instruction="ROOT AGENT: route weather questions.",
    sub_agents=[weather_agent],
)
'''
ANSWER = "It is sunny in Paris."


def routed_model(request: GeminiRequest):
    """The root transfers; the weather agent calls its tool (a sloppy city), then answers."""
    system = "".join(p.get("text", "") for p in request.body.get("systemInstruction", {}).get("parts", []))
    if "WEATHER AGENT" not in system:
        return function_call_reply([("transfer_to_agent", {"agent_name": "weather_agent"})])
    if not any(r["name"] == "get_weather" for r in request.function_responses):
        return function_call_reply([("get_weather", {"city": " paris"})])
    return text_reply(ANSWER)


@pytest.fixture
def gemini(monkeypatch):
    with FakeGemini(responder=routed_model) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        yield fake


def _expected_call(name: str, args: dict) -> dict:
    return {"name": name, "args": args}


def test_transfer_and_tool_call_of_a_real_multi_agent_run_score_under_rules(gemini, tmp_path, capsys):
    agent_dir = tmp_path / "weather"
    agent_dir.mkdir()
    (agent_dir / "__init__.py").write_text("from . import agent\n")
    (agent_dir / "agent.py").write_text(AGENT)
    invocation = {
        "invocation_id": "i",
        "user_content": {"parts": [{"text": "Weather in Paris?"}], "role": "user"},
        "final_response": {"parts": [{"text": ANSWER}], "role": "model"},
        "intermediate_data": {"tool_uses": [
            _expected_call("transfer_to_agent", {"agent_name": "weather_agent"}),
            _expected_call("get_weather", {"city": "Paris"}),
        ]},
    }
    (agent_dir / "weather.evalset.json").write_text(json.dumps({"eval_set_id": "weather", "eval_cases": [{"eval_id": "paris", "conversation": [invocation]}]}))
    (agent_dir / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(
        "suites:\n  - agent: weather\n    eval_sets: weather/*.evalset.json\n"
        "    criteria: {tool_trajectory_alignment_score: 1.0, tool_argument_match_score: 1.0}\n"
        "    tool_args: {get_weather: {city: text}}\n"
    )
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(config), "--json", str(out)]) == 1  # ADK's exact match: " paris" != "Paris"
    metrics = json.loads(out.read_text())["cases"][0]["metrics"]
    assert metrics["tool_trajectory_avg_score"]["score"] == 0.0
    assert metrics["tool_trajectory_alignment_score"]["score"] == 1.0
    assert metrics["tool_argument_match_score"]["score"] == 1.0
    steps = metrics["tool_trajectory_alignment_score"]["runs"][0]["per_invocation"][0]["details"]["alignment"]
    assert [(s["tool"], s["expected_index"], s["actual_index"]) for s in steps] == [("transfer_to_agent", 0, 0), ("get_weather", 1, 1)]
    assert steps[1]["arguments"] == [{"path": "city", "rule": "text", "matched": True, "expected": "Paris", "actual": " paris"}]


def test_adk_advice_about_context_caching_waits_for_log_level_info(gemini, tmp_path):
    """google-adk warns that an app whose agents transfer has no context_cache_config; `adk eval`
    prints nothing of it, and neither does the adk eval form, until `--log-level INFO` asks."""
    import importlib.util
    import os
    import subprocess
    import sys
    from pathlib import Path

    runners = importlib.util.find_spec("google.adk.runners")
    if runners is None or runners.origin is None or "context_cache_config" not in Path(runners.origin).read_text():
        pytest.skip("this google-adk's runner gives no advice about context caching (older than context caching)")
    agent_dir = tmp_path / "router"
    agent_dir.mkdir()
    (agent_dir / "__init__.py").write_text("from . import agent\n")
    (agent_dir / "agent.py").write_text(AGENT)
    case = {"eval_id": "paris", "conversation": [{
        "invocation_id": "i", "user_content": {"parts": [{"text": "Weather in Paris?"}], "role": "user"},
        "final_response": {"parts": [{"text": ANSWER}], "role": "model"}}]}
    (agent_dir / "weather.evalset.json").write_text(json.dumps({"eval_set_id": "weather", "eval_cases": [case]}))
    (agent_dir / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def adk_form(*flags: str) -> subprocess.CompletedProcess:  # a process each: ADK warns once per app and process
        return subprocess.run([sys.executable, "-m", "agenteval_ci", "run", "router", "router/weather.evalset.json", *flags],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    plain = adk_form()
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "context_cache_config" not in plain.stdout + plain.stderr
    asked = adk_form("--log-level", "info")
    assert asked.returncode == 0, asked.stderr
    assert "can transfer between agents but has no context_cache_config" in asked.stderr
