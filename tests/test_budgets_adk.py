"""Budgets and cost end to end: a real google-adk agent against the loopback fake Gemini server,
`agenteval run` / `accept` / `run` on an agenteval.yaml with budgets and prices."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "It is sunny and 24 degrees in Paris, and the local time is 10:30."


def travel_model(extra_weather_call: bool):
    """Calls get_weather (twice when `extra_weather_call`), then get_local_time, then answers."""
    def reply(request: GeminiRequest):
        answered = [r["name"] for r in request.function_responses]
        if not answered or (extra_weather_call and answered == ["get_weather"]):
            return function_call_reply([("get_weather", {"city": "Paris"})], prompt_tokens=1000, output_tokens=50)
        if answered[-1] == "get_weather":
            return function_call_reply([("get_local_time", {"city": "Paris"})], prompt_tokens=1200, output_tokens=50)
        return text_reply(ANSWER, prompt_tokens=1500, output_tokens=100)

    return reply


@pytest.fixture
def gemini(monkeypatch):
    with FakeGemini(responder=travel_model(False)) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        yield fake


def project(tmp_path: Path, prices: str) -> Path:
    shutil.copytree(ROOT / "examples" / "adk_agent", tmp_path / "adk_agent")
    (tmp_path / "adk_agent" / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"{prices}gate:\n  budgets: {{tool_call_count_v1: +0%, cost_usd: +10%}}\n"
                      "suites:\n  - agent: adk_agent\n    eval_sets: adk_agent/travel.evalset.json\n    num_runs: 2\n")
    return config


def test_an_extra_tool_call_of_a_real_adk_agent_fails_its_budget_and_costs_are_priced(gemini, tmp_path, capsys):
    config = project(tmp_path, "prices:\n  fake-gemini: {input: 1.0, output: 10.0}\n")
    assert main(["run", "--config", str(config), "--no-gate"]) == 0
    results = json.loads((tmp_path / ".agenteval" / "results.json").read_text())
    run = results["cases"][0]["runs"][0]
    assert run["cost_usd"] == pytest.approx(((1000 + 1200 + 1500) * 1.0 + (50 + 50 + 100) * 10.0) / 1e6)
    assert main(["accept", "--config", str(config)]) == 0
    baseline = json.loads((tmp_path / ".agenteval" / "baseline.json").read_text())
    figures = baseline["suites"]["default"]["adk_agent_basic"]["weather_and_time_in_paris"]["figures"]
    assert figures["tool_call_count_v1"] == [2.0, 2.0] and len(figures["cost_usd"]) == 2
    capsys.readouterr()

    gemini.responder = travel_model(True)  # the PR: one more tool call, same answer
    assert main(["run", "--config", str(config), "--md", str(tmp_path / "comment.md")]) == 1
    out = capsys.readouterr().out
    assert "over budget on tool_call_count_v1" in out and "2.00 → 3.00 (+50.0%)" in out
    assert "over budget on cost_usd" in out
    comment = (tmp_path / "comment.md").read_text()
    assert "agenteval failed: over budget on `cost_usd`, `tool_call_count_v1`" in comment
    assert "| agent cost per run | $0.0072; baseline → PR over 1 case(s): $0.0057 → $0.0072 (+26.3%) |" in comment


def test_a_model_without_a_price_is_unknown_not_free(gemini, tmp_path, capsys):
    config = project(tmp_path, "")  # the fake's model, fake-gemini, is in no price table
    assert main(["run", "--config", str(config), "--no-gate"]) == 0
    run = json.loads((tmp_path / ".agenteval" / "results.json").read_text())["cases"][0]["runs"][0]
    assert "cost_usd" not in run and run["unpriced_models"] == ["fake-gemini"]
    assert "cost unknown (1 case(s) without a cost (first: default/adk_agent_basic/weather_and_time_in_paris: cost_usd unknown: no price for fake-gemini" in capsys.readouterr().out
