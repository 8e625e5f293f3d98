"""`agenteval score EVALSET --actual traces.json`: a real ADK agent's own spans (both of ADK's
telemetry schemas), recorded during an in-process run, scored offline: the same tool calls,
answers, token counts and scores as the run's own records."""

from __future__ import annotations

import json
import sys

import pytest

from agenteval_ci.cli import main
from tests.agents.traces.otel_sdk import as_otlp_json, recorder
from tests.fakes.gemini import FakeGemini, function_call_reply, text_reply

AGENT = '''
from google.adk.agents import LlmAgent


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


def get_time(city: str) -> str:
    """The time in a city."""
    return "12:00"


root_agent = LlmAgent(name="weather", model="gemini-2.5-flash", instruction="Help {name}.", tools=[get_weather, get_time])
'''


def responder(request):
    last = request.contents[-1].get("parts", [])
    if not any("functionResponse" in p for p in last):  # a user turn: call the tools
        return function_call_reply([("get_weather", {"city": "Rome"}), ("get_time", {"city": "Rome"})], prompt_tokens=30, output_tokens=4)
    return text_reply("Sunny in Rome, 12:00.", prompt_tokens=50, output_tokens=6)


def _turn(text: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": text}]}, "final_response": {"role": "model", "parts": [{"text": "Sunny in Rome, 12:00."}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Rome"}}, {"name": "get_time", "args": {"city": "Rome"}}]}}


@pytest.mark.parametrize("schema", ["1", "2"])
def test_recorded_adk_spans_score_as_the_run_itself(tmp_path, monkeypatch, schema):
    package = tmp_path / "weather_traced"
    package.mkdir()
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(AGENT)
    cases = [{"eval_id": "rome", "session_input": {"app_name": "weather_traced", "user_id": "u", "session_id": "s-rome", "state": {"name": "Ada"}},
              "conversation": [_turn("weather in Rome?"), _turn("and now?")]},
             {"eval_id": "again", "session_input": {"app_name": "weather_traced", "user_id": "u", "state": {"name": "Bo"}}, "conversation": [_turn("Rome?")]}]
    evalset = tmp_path / "w.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "w", "eval_cases": cases}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}))
    monkeypatch.setenv("ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN", schema)
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    monkeypatch.chdir(tmp_path)
    exporter = recorder()
    try:
        with FakeGemini(responder=responder) as fake:
            for name, value in fake.env().items():
                monkeypatch.setenv(name, value)
            assert main(["run", str(package), str(evalset), "--json", "run.json", "-q"]) == 0
    finally:
        for name in [m for m in sys.modules if m.startswith("weather_traced")]:
            del sys.modules[name]
    # The second case had no session id: its session is its eval_id, which ADK did not use.
    (tmp_path / "traces.json").write_text(json.dumps(as_otlp_json(exporter.get_finished_spans())))
    assert main(["score", str(evalset), "--actual", "traces.json", "--json", "scored.json"]) == 2
    cases[1]["session_input"]["session_id"] = "s-again"
    evalset.write_text(json.dumps({"eval_set_id": "w", "eval_cases": cases}))
    exporter.clear()
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        assert main(["run", str(package), str(evalset), "--json", "run.json", "-q"]) == 0
    for name in [m for m in sys.modules if m.startswith("weather_traced")]:
        del sys.modules[name]
    lines = "\n".join(json.dumps(as_otlp_json([span])) for span in exporter.get_finished_spans())  # the Collector's JSON lines
    (tmp_path / "traces.jsonl").write_text(lines)
    assert main(["score", str(evalset), "--actual", "traces.jsonl", "--json", "scored.json"]) == 0

    run, scored = (json.loads((tmp_path / f).read_text())["cases"] for f in ("run.json", "scored.json"))
    for live, offline in zip(run, scored):
        assert [m["score"] for m in offline["metrics"].values() if "score" in m and m.get("status") != "INFORMATIONAL"] == \
               [live["metrics"][n]["score"] for n, m in offline["metrics"].items() if "score" in m and m.get("status") != "INFORMATIONAL"]
        for a, b in zip(live["runs"][0]["invocations"], offline["runs"][0]["invocations"]):
            calls = lambda inv: [(p["function_call"]["name"], p["function_call"]["args"]) for e in inv["intermediate_data"]["invocation_events"] for p in (e.get("content") or {}).get("parts", []) if "function_call" in p]
            results = lambda inv: [p["function_response"]["response"] for e in inv["intermediate_data"]["invocation_events"] for p in (e.get("content") or {}).get("parts", []) if "function_response" in p]
            assert calls(b) == calls(a) == [("get_weather", {"city": "Rome"}), ("get_time", {"city": "Rome"})]
            assert results(b) == results(a)
            assert b["final_response"]["parts"][0]["text"] == a["final_response"]["parts"][0]["text"]
        assert offline["metrics"]["token_usage_v1"]["score"] == live["metrics"]["token_usage_v1"]["score"]
