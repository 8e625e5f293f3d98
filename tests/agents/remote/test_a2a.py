"""`kind: a2a`: ADK's A2A wrapper of a real ADK agent (against the fake Gemini), started by the
config's command; A2A returns no trajectory, so it comes from the agent's OTLP spans."""

from __future__ import annotations

import json
import re
import sys

import pytest

from agenteval_ci.cli import main
from tests.agents.remote.helpers import SERVERS, free_port, weather_case, write_project
from tests.fakes.gemini import FakeGemini, function_call_reply, text_reply

pytest.importorskip("a2a.client", reason="kind a2a needs the a2a extra")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the A2A server exports spans with opentelemetry-exporter-otlp-proto-http")


def responder(request):
    last = request.contents[-1].get("parts", [])
    if any("functionResponse" in p for p in last):
        city = last[0]["functionResponse"]["response"]["city"]
        return text_reply(f"It is sunny in {city}.")
    city = re.search(r"weather in (\w+)", request.last_user_text)[1]
    return function_call_reply([("get_weather", {"city": city})])


@pytest.mark.parametrize("join_trace", [True, False], ids=["agent-joins-our-trace", "agent-starts-its-own"])
def test_a2a_agent_scored_with_its_trajectory_from_traces(tmp_path, monkeypatch, join_trace):
    port = free_port()
    traces = tmp_path / "traces.txt"
    agent = {"kind": "a2a", "url": f"http://127.0.0.1:{port}", "start": f"{sys.executable} {SERVERS / 'a2a_agent.py'}",
             "env": {"JOIN_TRACE": "1" if join_trace else "0", "AGENT_TRACES": str(traces)},
             "traces": True, "trajectory": "traces", "ready_timeout_seconds": 60}
    config = write_project(tmp_path, agent, [weather_case("rome", ["Rome", "Lima"]), weather_case("oslo", ["Oslo"])],
                           {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        out = tmp_path / "results.json"
        code = main(["run", "--config", str(config), "--json", str(out), "-q"])
    results = json.loads(out.read_text())
    assert code == 0, [r.get("error") for c in results["cases"] for r in c["runs"]]
    rome = next(c for c in results["cases"] if c["eval_id"] == "rome")
    second = rome["runs"][0]["invocations"][1]
    calls = [p["function_call"] for e in second["intermediate_data"]["invocation_events"] for p in (e.get("content") or {}).get("parts", []) if "function_call" in p]
    assert [(c["name"], c["args"]) for c in calls] == [("get_weather", {"city": "Lima"})]
    assert second["final_response"]["parts"][0]["text"] == "It is sunny in Lima."
    assert rome["runs"][0]["tokens"] == {"input": 40, "output": 20}  # the model spans' usage, two calls a turn

    # Each turn's message carried its own traceparent;
    # the agent's spans are in those traces when it joins them, else found by the session id alone.
    lines = traces.read_text().split("\n")
    sent = [line.split()[1] for line in lines if line.startswith("traceparent")]
    assert len(sent) == 3 and all(re.fullmatch(r"00-[0-9a-f]{32}-[0-9a-f]{16}-01", t) for t in sent), sent
    ours = {t.split("-")[1] for t in sent}
    theirs = {line.split()[1] for line in lines if line.startswith("span")}
    assert len(ours) == 3 and theirs
    assert theirs <= ours if join_trace else not theirs & ours
