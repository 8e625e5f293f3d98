"""No evidence is not a pass, on a first run too: a gated metric that is not evaluated, with no
baseline score to stand in for it, fails the gate under `not_evaluated: fail` (issue 22)."""

from __future__ import annotations

import pytest

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.core.metrics.base import NO_REFERENCE, NO_SIMULATED_USER
from agenteval_ci.files.results_file import new_results
from agenteval_ci.schema import CaseResult, EvalCase, MetricResult, RunRecord, Status
from agenteval_ci.schema.settings import GateSettings

JUDGE_DOWN = "sample 1 of 3: judge call failed: HTTP 503: overloaded"


def scored(score: float) -> MetricResult:
    return MetricResult(score=score, threshold=0.5, status=Status.PASSED if score >= 0.5 else Status.FAILED)


def unscored(reason: str, threshold: float | None = 0.5) -> MetricResult:
    return MetricResult(threshold=threshold, status=Status.NOT_EVALUATED, reason=reason)


def case(eval_id: str, **metrics: MetricResult) -> CaseResult:
    evaluated = [m for m in metrics.values() if m.status in (Status.PASSED, Status.FAILED)]
    status = Status.FAILED if any(m.status == Status.FAILED for m in evaluated) else Status.PASSED if evaluated else Status.NOT_EVALUATED
    return CaseResult(eval_set_id="s", eval_id=eval_id, fingerprint="f", status=status, metrics=metrics,
                      runs=[RunRecord()], eval_case=EvalCase(eval_id=eval_id, conversation=[]))


def results(*cases: CaseResult):
    return new_results(list(cases), num_runs=1)


def test_a_first_run_with_the_judge_down_fails_though_a_deterministic_metric_passed():
    run = results(*(case(f"c{i}", trajectory=scored(1.0), rubric=unscored(JUDGE_DOWN)) for i in range(4)))
    comparison = compare(run, None, GateSettings())
    assert comparison.verdict == "failed" and comparison.exit_code == 1
    assert comparison.reasons == (
        f"4 gated score(s) not evaluated, with no baseline score to stand in for them (first: default/s/c0 rubric: {JUDGE_DOWN})",
    )


@pytest.mark.parametrize("fail_on", ["regression", "threshold"])
def test_the_rule_holds_under_every_failing_mode_and_warn_only_warns(fail_on):
    run = results(case("c0", trajectory=scored(1.0), rubric=unscored(JUDGE_DOWN)))
    assert compare(run, None, GateSettings(fail_on=fail_on)).verdict == "failed"
    warned = compare(run, None, GateSettings(fail_on=fail_on, not_evaluated="warn"))
    assert warned.verdict == "passed" and "c0 rubric" in warned.warnings[0]
    never = compare(run, None, GateSettings(fail_on="never"))
    assert never.verdict == "passed" and never.reasons  # reported, not failed


def test_a_metric_that_does_not_apply_and_an_informational_one_are_no_missing_evidence():
    run = results(case("c0", trajectory=scored(1.0),
                       match=unscored(f"needs an expected conversation; {NO_REFERENCE}"),
                       simulated=unscored(f"per_turn_user_simulator_quality_v1 judges a simulated user; {NO_SIMULATED_USER}"),
                       latency=unscored("no figure", threshold=None)))
    assert compare(run, None, GateSettings()).verdict == "passed"


def test_a_new_case_or_metric_has_no_baseline_score_to_stand_in_either():
    base = baseline_from_results(results(case("old", trajectory=scored(1.0))))
    new_case = results(case("old", trajectory=scored(1.0)), case("new", trajectory=scored(1.0), rubric=unscored(JUDGE_DOWN)))
    assert compare(new_case, base, GateSettings()).reasons == (
        f"1 gated score(s) not evaluated, with no baseline score to stand in for them (first: default/s/new rubric: {JUDGE_DOWN})",
    )
    new_metric = results(case("old", trajectory=scored(1.0), rubric=unscored(JUDGE_DOWN)))
    assert "default/s/old rubric" in compare(new_metric, base, GateSettings()).reasons[0]


def test_a_score_the_baseline_has_is_reported_once_as_lost_coverage():
    base = baseline_from_results(results(case("c0", trajectory=scored(1.0), rubric=scored(1.0))))
    now = results(case("c0", trajectory=scored(1.0), rubric=unscored(JUDGE_DOWN)))
    reasons = compare(now, base, GateSettings()).reasons
    assert len(reasons) == 1 and "(lost coverage)" in reasons[0]


def test_a_case_with_nothing_evaluated_is_reported_once():
    reasons = compare(results(case("c0", rubric=unscored(JUDGE_DOWN))), None, GateSettings()).reasons
    assert reasons == ("1 case(s) with no evaluated gated metric (first: default/s/c0: no metric was evaluated)",)
