"""JUnit XML: one testcase per eval case; failures name the failed and regressed metrics."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.report import render_junit
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, lights, score


def test_one_testcase_per_case_with_failure_text(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    new = score(tmp_path, EXPECTED, [{**EXPECTED, "lights": lights(on=True)}], "new.json")
    root = ET.fromstring(render_junit(new, compare(new, baseline_from_results(base), GateSettings())))
    suite = root.find("testsuite")
    assert suite.get("name") == "default" and suite.get("tests") == "3" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"lights", "weather", "music"}
    failure = cases["lights"].find("failure")
    assert failure.get("message") == "REGRESSED: tool_trajectory_avg_score"
    assert cases["lights"].get("classname") == "default.home"
    assert "tool_trajectory_avg_score: 0.000 < threshold 1" in failure.text
    assert "tool_trajectory_avg_score: regressed from the baseline" in failure.text
    assert cases["weather"].find("failure") is None


def test_without_a_comparison_failures_are_threshold_failures(tmp_path):
    new = score(tmp_path, EXPECTED, [{**EXPECTED, "music": lights()}], "new.json")
    root = ET.fromstring(render_junit(new))
    failing = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failing] == ["music"]
    assert failing[0].find("failure").get("message") == "FAIL: tool_trajectory_avg_score, response_match_score"


def test_a_metric_judged_without_the_agents_context_says_so(tmp_path):
    new = score(tmp_path, EXPECTED, [EXPECTED], "new.json")
    case = new.cases[0]
    metric = next(iter(case.metrics))
    blind = case.model_copy(update={"metrics": {**case.metrics, metric: case.metrics[metric].model_copy(update={"judged_without": ["instructions", "tool_declarations"]})}})
    root = ET.fromstring(render_junit(new.model_copy(update={"cases": [blind, *new.cases[1:]]})))
    outs = [c.find("system-out") for c in root.iter("testcase")]
    assert outs[0].text == (f"{metric} was judged without the agent's instructions and its tool declarations: their turns carry "
                            "no app_details (an ADK agent records them; a Python agent can return them, see docs/metrics.md)")
    assert all(o is None for o in outs[1:])
