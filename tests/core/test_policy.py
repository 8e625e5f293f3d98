"""Gate policy per metric (gate.metrics, gate.suite_metrics, gate.budget_severity) on results
made by `agenteval score`: any_drop, warn, report, a metric's own tolerance."""

from __future__ import annotations

import pydantic
import pytest

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.report import render_comment
from agenteval_ci.schema.project import ProjectConfig
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, lights, score, weather

TRAJECTORY = "tool_trajectory_avg_score"
BROKEN = {**EXPECTED, "lights": lights(on=True)}


def _gate(**metrics) -> GateSettings:
    return GateSettings.model_validate({"metrics": metrics})


def _within_noise(tmp_path):
    """c0 passes 2 of 3 runs in the baseline and 1 of 3 now: noise to the default rule."""
    expected = {f"c{i}": weather() for i in range(6)}
    wrong = {**expected, "c0": weather(city="Lyon")}
    base = score(tmp_path, expected, [wrong, expected, expected], "base.json")
    new = score(tmp_path, expected, [wrong, wrong, expected], "new.json")
    return new, baseline_from_results(base)


def test_any_drop_blocks_a_single_fall_within_noise_that_the_default_passes(tmp_path):
    new, baseline = _within_noise(tmp_path)
    assert compare(new, baseline, GateSettings()).verdict == "passed"
    strict = compare(new, baseline, _gate(**{TRAJECTORY: {"any_drop": True}}))
    assert (strict.verdict, strict.exit_code, strict.regressions) == ("failed", 1, 1)
    assert strict.reasons[0].startswith(f"{TRAJECTORY}: regressed (any_drop: 1 case(s) scored lower")
    assert "default/home/c0" in strict.reasons[0]
    assert {c.eval_id: c.outcome for c in strict.cases}["c0"] == "regressed"
    assert strict.policy == (f"{TRAJECTORY}: any_drop (a single case's fall blocks)",)


def test_any_drop_set_for_one_suite_only_applies_there(tmp_path):
    new, baseline = _within_noise(tmp_path)
    elsewhere = GateSettings.model_validate({"suite_metrics": {"other": {TRAJECTORY: {"any_drop": True}}}})
    here = GateSettings.model_validate({"suite_metrics": {"default": {TRAJECTORY: {"any_drop": True}}}})
    assert compare(new, baseline, elsewhere).verdict == "passed"
    assert compare(new, baseline, here).verdict == "failed"


def test_a_warn_metric_regressing_is_reported_apart_and_never_fails_the_check(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "base.json"))
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    assert compare(broken, baseline, GateSettings()).verdict == "failed"
    warned = compare(broken, baseline, _gate(**{TRAJECTORY: {"severity": "warn"}}))
    assert (warned.verdict, warned.exit_code, warned.reasons, warned.regressions) == ("passed", 0, (), 0)
    assert TRAJECTORY not in {m.name for m in warned.metrics}  # never mixed with the blocking metrics
    assert {c.eval_id: c.outcome for c in warned.cases}["lights"] == "unchanged"  # by the blocking metrics
    (advisory,) = warned.advisories
    assert advisory.severity == "warn" and advisory.reasons[0].startswith(f"{TRAJECTORY}: regressed")
    assert [m.name for m in advisory.metrics] == [TRAJECTORY] and advisory.metrics[0].verdict == "regressed"
    assert [(c.eval_id, c.outcome) for c in advisory.cases] == [("lights", "regressed")]


def test_a_warn_metric_below_its_threshold_does_not_fail_a_first_run(tmp_path):
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    assert compare(broken, None, GateSettings()).verdict == "failed"
    warned = compare(broken, None, _gate(**{TRAJECTORY: {"severity": "warn"}}))
    assert warned.verdict == "passed"
    assert warned.advisories[0].reasons == ("1 case(s) below their thresholds",)


def test_a_report_metric_is_shown_without_a_verdict(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "base.json"))
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    shown = compare(broken, baseline, _gate(**{TRAJECTORY: {"severity": "report"}}))
    assert shown.verdict == "passed"
    (advisory,) = shown.advisories
    assert (advisory.severity, advisory.reasons, advisory.cases) == ("report", (), ())
    assert [(m.name, m.verdict, m.delta) for m in advisory.metrics] == [(TRAJECTORY, "reported", pytest.approx(-1 / 3))]


def test_a_metrics_own_tolerance_decides_its_worsened_cases(tmp_path):
    new, baseline = _within_noise(tmp_path)
    assert {c.eval_id: c.outcome for c in compare(new, baseline, GateSettings()).cases}["c0"] == "worsened"
    loose = compare(new, baseline, _gate(**{TRAJECTORY: {"tolerance": 0.5}}))
    assert {c.eval_id: c.outcome for c in loose.cases}["c0"] == "flaky"  # a drop of 1/3 is within 0.5
    assert loose.policy == (f"{TRAJECTORY}: tolerance 0.5",)


def test_policy_keys_are_checked_where_they_are_read():
    with pytest.raises(pydantic.ValidationError, match="severity"):
        _gate(**{TRAJECTORY: {"severity": "maybe"}})
    with pytest.raises(pydantic.ValidationError, match="tolerance"):  # pooled tests are metric-wide
        GateSettings.model_validate({"suite_metrics": {"default": {TRAJECTORY: {"tolerance": 0.1}}}})
    suites = [{"name": "default", "agent": "a.py:f", "eval_sets": ["x.json"]}]
    with pytest.raises(pydantic.ValidationError, match="gate.suite_metrics names no suite: typo"):
        ProjectConfig.model_validate({"suites": suites, "gate": {"suite_metrics": {"typo": {}}}})


def test_the_comment_keeps_warn_metrics_apart_and_says_which_policy_applied(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "base.json"))
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    settings = _gate(**{TRAJECTORY: {"severity": "warn"}, "response_match_score": {"any_drop": True}})
    text = render_comment(compare(broken, baseline, settings), broken, baseline_path="b.json")
    assert "> **agenteval passed: no credible regression" in text and "### Regressions" not in text
    warn = text.split("**Warn only (gate.metrics severity: warn): reported, never fails the check**", 1)[1]
    assert warn.startswith(f"\n- {TRAJECTORY}: regressed (deterministic")
    assert f"| `{TRAJECTORY}` | 1.000 | 0.667 |" in warn and "<summary>Cases of these metrics (1)</summary>" in warn
    assert "- `lights` <sub>default / home / lights</sub> · `tool_trajectory_avg_score` 1.000 → 0.000" in warn.split("\n\n</details>")[0]
    assert (f"Gate policy: response_match_score: any_drop (a single case's fall blocks); {TRAJECTORY}: warn; "
            "every other metric and budget blocks") in text
    blocking = text.split("**Warn only")[0]
    assert TRAJECTORY not in blocking and "| `response_match_score` |" in blocking


def test_a_warn_budget_breached_is_reported_and_does_not_fail(tmp_path):
    from tests.test_budgets import baseline_of, runs_of, scored

    sizes = [1000] * 6
    base = scored(tmp_path, "base", runs_of(6, [sizes] * 3), 6)
    new = scored(tmp_path, "new", runs_of(6, [sizes], tools=2), 6)  # one more tool call in every turn
    budgets = {"budgets": {"tool_call_count_v1": "+0%"}}
    assert compare(new, baseline_of(base, GateSettings.model_validate(budgets)), GateSettings.model_validate(budgets)).verdict == "failed"
    settings = GateSettings.model_validate({**budgets, "budget_severity": {"tool_call_count_v1": "warn"}})
    warned = compare(new, baseline_of(base, settings), settings)
    assert (warned.verdict, warned.reasons) == ("passed", ())
    assert {c.outcome for c in warned.cases} == {"unchanged"}
    assert warned.advisories[0].severity == "warn" and "over budget on tool_call_count_v1" in warned.advisories[0].reasons[0]
    assert warned.policy == ("budget tool_call_count_v1: warn",)


def test_a_rule_naming_a_metric_no_case_has_says_it_applied_to_nothing(tmp_path):
    new, baseline = _within_noise(tmp_path)
    typo = compare(new, baseline, _gate(tool_trajectory_avg_scor={"any_drop": True}))
    assert typo.verdict == "passed"  # the fall is noise to the default rule, which is what applied
    assert typo.policy == ("tool_trajectory_avg_scor: any_drop (a single case's fall blocks)",
                           "tool_trajectory_avg_scor: no case of these results has this metric, so this rule applied to nothing")


def test_a_suite_whose_only_criterion_warns_has_nothing_to_block_and_passes(tmp_path):
    only = {"criteria": {TRAJECTORY: 1.0}}  # every case also has the informational figures
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "base.json", config=only))
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json", config=only)
    warned = compare(broken, baseline, _gate(**{TRAJECTORY: {"severity": "warn"}}))
    assert (warned.verdict, warned.reasons, warned.metrics) == ("passed", (), ())
    assert warned.advisories[0].reasons[0].startswith(f"{TRAJECTORY}: regressed")


def test_a_regression_under_a_metrics_own_settings_names_them(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "base.json"))
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    tight = compare(broken, baseline, _gate(**{TRAJECTORY: {"tolerance": 0.01}}))
    assert tight.reasons[0].startswith(f"{TRAJECTORY}: regressed (deterministic")
    assert tight.reasons[0].endswith(f"; under gate.metrics.{TRAJECTORY}: tolerance 0.01)")
