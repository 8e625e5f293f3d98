"""The gate on results made by `agenteval score`: noise, breaks, changed tests, no baseline."""

from __future__ import annotations

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare, hard_break_p, holm, sign_test_p
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, Turn, lights, score, weather

BROKEN = {**EXPECTED, "lights": lights(on=True)}


def _outcomes(comparison) -> dict[str, str]:
    return {c.eval_id: c.outcome for c in comparison.cases}


def test_exact_tests_match_hand_computed_values():
    assert sign_test_p(3, 0) == 1 / 8
    assert sign_test_p(0, 0) == 1.0
    assert abs(sign_test_p(2, 1) - 0.5) < 1e-12
    assert hard_break_p(3, 3) == 1 / 20
    assert hard_break_p(10, 10) == 1 / 184756
    # Holm: 0.01 <= 0.05/3, then 0.02 <= 0.05/2, then 0.04 > 0.05/1? no: 0.04 <= 0.05 -> all three
    assert holm({("m", "a"): 0.01, ("m", "b"): 0.02, ("m", "c"): 0.04}, 0.05, 3) == {("m", "a"), ("m", "b"), ("m", "c")}
    # untested pairs count: with 10 in the family the first step needs p <= 0.005
    assert holm({("m", "a"): 0.01}, 0.05, 10) == set()


def test_identical_results_pass_and_every_case_is_unchanged(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "base.json")
    again = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "again.json")
    comparison = compare(again, baseline_from_results(base), GateSettings())
    assert (comparison.verdict, comparison.exit_code, comparison.regressions) == ("passed", 0, 0)
    assert set(_outcomes(comparison).values()) == {"unchanged"}
    trajectory = next(m for m in comparison.metrics if m.name == "tool_trajectory_avg_score")
    assert (trajectory.delta, trajectory.ci_low, trajectory.ci_high, trajectory.mode) == (0.0, 0.0, 0.0, "deterministic")


def test_deterministic_suite_fails_on_one_newly_failing_case(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "base.json")
    broken = score(tmp_path, EXPECTED, [BROKEN, BROKEN], "broken.json")
    comparison = compare(broken, baseline_from_results(base), GateSettings())
    assert comparison.verdict == "failed" and comparison.exit_code == 1
    assert comparison.regressions == 1
    assert _outcomes(comparison) == {"lights": "regressed", "weather": "unchanged", "music": "unchanged"}
    assert comparison.cases[0].eval_id == "lights"  # most important first
    assert [m.name for m in comparison.cases[0].metrics if m.counted] == ["tool_trajectory_avg_score"]


def test_fail_on_never_reports_but_passes_and_threshold_uses_adks_rule(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    baseline = baseline_from_results(base)
    never = compare(broken, baseline, GateSettings(fail_on="never"))
    assert never.verdict == "passed" and never.reasons and never.regressions == 1
    threshold = compare(broken, baseline, GateSettings(fail_on="threshold"))
    assert threshold.verdict == "failed" and threshold.reasons == ("1 case(s) below their thresholds",)


def test_noise_in_a_flaky_suite_is_not_a_regression(tmp_path):
    """One case flips between runs on both sides: with 3 runs a 2/3 -> 1/3 change is noise."""
    expected = {f"c{i}": weather() for i in range(6)}
    wrong = weather(city="Lyon")
    base_runs = [{**expected, "c0": wrong}, expected, expected]
    new_runs = [{**expected, "c0": wrong}, {**expected, "c0": wrong}, expected]
    base = score(tmp_path, expected, base_runs, "base.json")
    new = score(tmp_path, expected, new_runs, "new.json")
    comparison = compare(new, baseline_from_results(base), GateSettings())
    trajectory = next(m for m in comparison.metrics if m.name == "tool_trajectory_avg_score")
    assert trajectory.mode == "stochastic"
    assert trajectory.delta < -0.05 and trajectory.ci_low < 0 <= trajectory.ci_high
    assert trajectory.verdict == "unchanged"
    # its drop is visible as its own outcome, though not a regression
    assert comparison.verdict == "passed" and _outcomes(comparison)["c0"] == "worsened"
    # seeded: the same inputs give the same comparison, to the last digit
    assert compare(new, baseline_from_results(base), GateSettings()) == comparison


def test_hard_break_in_a_noisy_suite_with_many_runs_is_a_regression(tmp_path):
    """c0 passes 10/10 in the baseline and fails 10/10 now: Fisher p = 1/184756 survives Holm."""
    expected = {f"c{i}": weather() for i in range(4)}
    wrong = weather(city="Lyon")
    base_runs = [{**expected, "c3": wrong} if i % 2 else expected for i in range(10)]  # c3 is flaky
    new_runs = [{**expected, "c0": wrong, "c3": wrong} if i % 2 else {**expected, "c0": wrong} for i in range(10)]
    base = score(tmp_path, expected, base_runs, "base.json")
    new = score(tmp_path, expected, new_runs, "new.json")
    comparison = compare(new, baseline_from_results(base), GateSettings(tolerance=0.5))
    assert comparison.verdict == "failed"
    assert _outcomes(comparison)["c0"] == "regressed"
    assert any("hard break" in r for r in comparison.reasons)


def test_changed_expected_trajectory_is_incomparable_and_its_threshold_decides(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    edited = {**EXPECTED, "weather": weather(city="Rome")}
    # the agent still calls Paris: the test changed, so no regression, but it fails the edited test
    new = score(tmp_path, edited, [{**edited, "weather": weather()}], "new.json")
    comparison = compare(new, baseline_from_results(base), GateSettings())
    assert comparison.verdict == "failed" and comparison.regressions == 0
    assert "1 score(s) below the threshold of a metric new to the case's baseline or changed since (first: default/home/weather tool_trajectory_avg_score)" in comparison.reasons
    weather_case = next(c for c in comparison.cases if c.eval_id == "weather")
    assert weather_case.outcome == "incomparable" and "expected content changed" in weather_case.note


def test_rubric_edit_is_incomparable(tmp_path):
    rubric = lambda text: [{"rubric_id": "polite", "rubric_content": {"text_property": text}}]  # noqa: E731
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json", rubrics={"music": rubric("The agent is polite.")})
    new = score(tmp_path, EXPECTED, [EXPECTED], "new.json", rubrics={"music": rubric("The agent is very polite.")})
    comparison = compare(new, baseline_from_results(base), GateSettings())
    assert _outcomes(comparison)["music"] == "incomparable"
    assert comparison.verdict == "passed"


def test_changed_threshold_makes_the_metric_incomparable(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    config = {"criteria": {"tool_trajectory_avg_score": 0.5, "response_match_score": 0.8}}
    new = score(tmp_path, EXPECTED, [BROKEN], "new.json", config=config)
    comparison = compare(new, baseline_from_results(base), GateSettings())
    lights_case = next(c for c in comparison.cases if c.eval_id == "lights")
    assert lights_case.outcome == "incomparable" and "tool_trajectory_avg_score" in lights_case.note


def test_new_and_removed_cases(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    changed = {"lights": EXPECTED["lights"], "weather": EXPECTED["weather"], "alarm": [Turn("Wake me at 7", "Alarm set.", [("alarm", {"at": "07:00"})])]}
    new = score(tmp_path, changed, [{**changed, "alarm": [Turn("Wake me at 7", "No.", [])]}], "new.json")
    comparison = compare(new, baseline_from_results(base), GateSettings())
    assert _outcomes(comparison) == {"lights": "unchanged", "weather": "unchanged", "alarm": "new", "music": "removed"}
    # a new case below its thresholds fails the gate: there is nothing to compare it with
    assert comparison.verdict == "failed" and comparison.reasons == ("1 new case(s) below their thresholds",)


def test_without_a_baseline_the_gate_falls_back_to_thresholds(tmp_path):
    ok = score(tmp_path, EXPECTED, [EXPECTED], "ok.json")
    broken = score(tmp_path, EXPECTED, [BROKEN], "broken.json")
    assert compare(ok, None, GateSettings()).verdict == "passed"
    comparison = compare(broken, None, GateSettings())
    assert comparison.verdict == "failed" and not comparison.has_baseline
    assert {m.verdict for m in comparison.metrics} == {"no baseline"}


def test_noise_seen_in_a_cases_history_makes_a_suite_stochastic_not_deterministic(tmp_path):
    """The last accept's runs all agreed, but lights failed once in an earlier accept: one
    flip of it now is noise the history knows about, not a deterministic break."""
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED, BROKEN, EXPECTED], "first.json"))
    later = score(tmp_path, EXPECTED, [EXPECTED], "later.json")
    baseline = baseline_from_results(later.model_copy(update={"created_at": "2026-01-02T00:00:00+00:00"}), baseline)
    lights_metric = baseline.case("default", "home", "lights").metrics["tool_trajectory_avg_score"]
    assert (lights_metric.run_statuses[0].value, lights_metric.history) == ("PASSED", "PFP P")
    comparison = compare(score(tmp_path, EXPECTED, [BROKEN], "flip.json"), baseline, GateSettings())
    trajectory = next(m for m in comparison.metrics if m.name == "tool_trajectory_avg_score")
    assert trajectory.mode == "stochastic" and comparison.verdict == "passed"
