"""An agent in another language: a Node.js program written for these tests that speaks our JSON
contract and reports its tool calls only through OpenTelemetry spans (the standard SDK's OTLP
exporters, protobuf and JSON). Scored, gated against a baseline, and a regressing edit caught."""

from __future__ import annotations

import json

from agenteval_ci.cli import main
from tests.agents.remote.helpers import NODE_AGENT, free_port, node_modules, weather_case, write_project

CRITERIA = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.6}


def _config(tmp_path, port: int, protocol: str, bug: bool = False):
    agent = {
        "kind": "http", "url": f"http://127.0.0.1:{port}/", "start": f"node {NODE_AGENT / 'agent.js'}",
        "env": {"NODE_PATH": str(node_modules()), "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": protocol, "AGENT_BUG": "1" if bug else "0"},
        "traces": True, "ready_timeout_seconds": 30,
    }
    cases = [weather_case("rome", ["Rome", "Lima"]), weather_case("oslo", ["Oslo"])]
    cases[1]["conversation"][0]["final_response"]["parts"][0]["text"] = "It is snow in Oslo."
    return write_project(tmp_path, agent, cases, CRITERIA)


def test_node_agent_scored_from_its_spans_gated_and_its_regression_caught(tmp_path):
    port = free_port()
    config = _config(tmp_path, port, "http/protobuf")
    out = tmp_path / "first.json"
    assert main(["run", "--config", str(config), "--json", str(out), "-q"]) == 0
    results = json.loads(out.read_text())
    rome = next(c for c in results["cases"] if c["eval_id"] == "rome")
    first, second = rome["runs"][0]["invocations"]
    events = first["intermediate_data"]["invocation_events"]
    assert events[0]["content"]["parts"][0]["function_call"] == {"name": "get_weather", "args": {"city": "Rome"}}
    assert events[0]["author"] == "weather"
    assert events[1]["content"]["parts"][0]["function_response"]["response"] == {"city": "Rome", "sky": "sunny"}
    assert second["intermediate_data"]["invocation_events"][0]["content"]["parts"][0]["function_call"]["args"] == {"city": "Lima"}
    assert rome["runs"][0]["tokens"] == {"input": 40, "output": 16}  # two turns' model spans
    assert main(["accept", "--config", str(config), str(out)]) == 0

    _config(tmp_path, port, "http/json", bug=True)  # the edit: the agent asks for the wrong city
    out = tmp_path / "second.json"
    assert main(["run", "--config", str(config), "--json", str(out), "-q"]) == 1
    scores = {c["eval_id"]: c["metrics"]["tool_trajectory_avg_score"]["score"] for c in json.loads(out.read_text())["cases"]}
    assert scores == {"rome": 0.0, "oslo": 0.0}
