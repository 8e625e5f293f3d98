"""Built-in tools made visible: a real google-adk agent with google_search, answered by the fake Gemini
with grounding metadata. The search, its queries and sources show in the comment's trajectory and
the HTML report; tool_trajectory_avg_score stays google-adk 2.13's own score of the same turns
(differential); a case expecting a google_search call is warned about, saying why it never matches."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini, GeminiRequest, grounded_reply

pytest.importorskip("google.adk.tools.google_search_tool")

PACKAGE = "search_builtin_agent"
AGENT = '''
from google.adk.agents import LlmAgent
from google.adk.tools import google_search

root_agent = LlmAgent(name="searcher", model="gemini-2.5-flash", instruction="Answer with a search.", tools=[google_search])
'''
QUERIES = ["tallest building in the world"]
SOURCES = [("https://example.org/burj", "Burj Khalifa")]


ANSWER = ["The Burj Khalifa."]


def responder(request: GeminiRequest) -> dict[str, Any]:
    return grounded_reply(ANSWER[0], QUERIES, SOURCES)


def _case(eval_id: str, expected_calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"eval_id": eval_id, "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": "What is the tallest building?"}]},
        "final_response": {"role": "model", "parts": [{"text": "The Burj Khalifa."}]},
        "intermediate_data": {"tool_uses": expected_calls},
    }]}


@pytest.fixture
def project(tmp_path, monkeypatch):
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(AGENT)
    cases = [_case("answers", []), _case("expects_search", [{"name": "google_search", "args": {"query": QUERIES[0]}}])]
    (tmp_path / "search.evalset.json").write_text(json.dumps({"eval_set_id": "search", "eval_cases": cases}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith(PACKAGE)]:
        del sys.modules[name]


def _adk_trajectory_score(case: dict[str, Any]) -> float | None:
    """google-adk 2.13's TrajectoryEvaluator on the very turns we recorded and expected."""
    import asyncio

    # An older google-adk's evaluation modules import pandas, which only its `eval` extra installs.
    pytest.importorskip("google.adk.evaluation.trajectory_evaluator", reason="this google-adk's TrajectoryEvaluator needs its eval extra")

    from google.adk.evaluation.eval_case import Invocation as AdkInvocation
    from google.adk.evaluation.eval_metrics import EvalMetric
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    actual = [AdkInvocation.model_validate(i) for i in case["runs"][0]["invocations"]]
    expected = [AdkInvocation.model_validate(i) for i in case["eval_case"]["conversation"]]
    evaluator = TrajectoryEvaluator(eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0))
    result = evaluator.evaluate_invocations(actual, expected)
    result = asyncio.run(result) if asyncio.iscoroutine(result) else result
    return result.overall_score


def test_a_search_is_shown_scored_as_adk_scores_it_and_an_expected_search_is_warned_about(project, monkeypatch, capsys):
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        code = main(["run", PACKAGE, "search.evalset.json", "--config_file_path", "test_config.json", "--json", "results.json", "-q"])
        assert any("googleSearch" in json.dumps(r.body.get("tools", [])) for r in fake.requests)  # the agent asked for the built-in search
    assert code == 1  # the case expecting a google_search call fails, as in ADK
    results = json.loads(Path("results.json").read_text())
    [warning] = [w for w in results["warnings"] if "google_search" in w]
    assert "search.evalset.json at $.eval_cases[1].conversation[0].intermediate_data" in warning
    assert "expects a call of google_search, a built-in tool the model runs itself" in warning and "can never match it" in warning
    cases = {c["eval_id"]: c for c in results["cases"]}
    for case in cases.values():  # ADK's score, unchanged: the search is no tool call
        assert case["metrics"]["tool_trajectory_avg_score"]["score"] == _adk_trajectory_score(case)
    assert cases["answers"]["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0
    assert cases["expects_search"]["metrics"]["tool_trajectory_avg_score"]["score"] == 0.0

    assert main(["report", "results.json", "--format", "html", "-o", "report.html"]) == 0
    html = Path("report.html").read_text()
    shown = '* google_search {&#34;queries&#34;: [&#34;tallest building in the world&#34;]} -&gt; {&#34;sources&#34;: [&#34;https://example.org/burj&#34;]}  (built-in, not a tool call)'
    assert shown in html


def test_the_comment_shows_the_search_in_a_regressed_case_trajectory(project, monkeypatch, capsys):
    run = ["run", PACKAGE, "search.evalset.json", "--config_file_path", "test_config.json", "-q", "--json"]
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        main([*run, "before.json"])
        assert main(["accept", "before.json", "--baseline", "baseline.json", "--allow-failed"]) == 0
        monkeypatch.setattr(sys.modules[__name__], "ANSWER", ["I could not find it."])
        main([*run, "after.json"])
    capsys.readouterr()
    assert main(["compare", "after.json", "--baseline", "baseline.json", "--md", "-"]) == 1
    comment = capsys.readouterr().out
    assert '* google_search {"queries": ["tallest building in the world"]} -> {"sources": ["https://example.org/burj"]}  (built-in, not a tool call)' in comment


def test_a_suite_that_counts_built_in_tools_scores_the_search_as_a_call_and_drops_the_warning(project, monkeypatch):
    import yaml

    Path("names.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": True}}}))
    suite = {"agent": PACKAGE, "eval_sets": "search.evalset.json", "eval_config": "names.json", "builtin_tools": "count"}
    Path("agenteval.yaml").write_text(yaml.safe_dump({"suites": [suite]}))
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        assert main(["run", "--json", "counted.json", "-q"]) == 1  # `answers` expects no call, and the model searched
    results = json.loads(Path("counted.json").read_text())
    scores = {c["eval_id"]: c["metrics"]["tool_trajectory_avg_score"]["score"] for c in results["cases"]}
    assert scores == {"expects_search": 1.0, "answers": 0.0}
    assert not [w for w in results["warnings"] if "google_search" in w]
    recorded = results["cases"][0]["runs"][0]["invocations"][0]
    assert "function_call" not in json.dumps(recorded)  # the results keep the turn as recorded
