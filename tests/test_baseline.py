"""Baseline files: deterministic output, partial accept, and unusable files as clear errors."""

from __future__ import annotations

import json

import pytest

from agenteval_ci.core.baseline import baseline_from_results, dump_baseline, load_baseline, write_baseline
from agenteval_ci.errors import InputError, UsageError
from tests.report.scored import EXPECTED, lights, score, weather


def test_dump_is_deterministic_sorted_and_ends_with_a_newline(tmp_path):
    results = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "r.json")
    text = dump_baseline(baseline_from_results(results, commit="abc123"))
    data = json.loads(text)
    assert text.endswith("}\n") and text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["schema_version"] == 1
    assert data["provenance"]["commit"] == "abc123" and data["provenance"]["num_runs"] == 2
    metric = data["suites"]["default"]["home"]["lights"]["metrics"]["tool_trajectory_avg_score"]
    assert metric == {
        "config_fingerprint": results.cases[0].metrics["tool_trajectory_avg_score"].config_fingerprint,
        "rubrics": {}, "run_statuses": ["PASSED", "PASSED"], "runs": [1.0, 1.0],
        "score": 1.0, "status": "PASSED", "threshold": 1.0, "passes": 2, "fails": 0,
    }
    assert data["suites"]["default"]["home"]["lights"]["fingerprint"] == results.cases[0].fingerprint


def test_write_then_load_round_trips(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "r.json"))
    path = tmp_path / ".agenteval" / "baseline.json"
    write_baseline(path, baseline)
    assert load_baseline(path) == baseline
    assert [p.name for p in path.parent.iterdir()] == ["baseline.json"]  # no temp file left behind
    assert load_baseline(tmp_path / "missing.json") is None


def test_partial_accept_changes_only_the_named_case_and_metric(tmp_path):
    old = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "old.json"))
    changed = {**EXPECTED, "lights": lights(on=True, reply="Done."), "weather": weather(city="Lyon")}
    new = score(tmp_path, EXPECTED, [changed], "new.json")
    only_lights = baseline_from_results(new, old, cases=["lights"])
    assert only_lights.case("default", "home", "lights").status.value == "FAILED"
    assert only_lights.case("default", "home", "weather") == old.case("default", "home", "weather")
    only_metric = baseline_from_results(new, old, cases=["home/lights"], metrics=["response_match_score"])
    lights_case = only_metric.case("default", "home", "lights")
    assert lights_case.metrics["response_match_score"].score < 1.0
    assert lights_case.metrics["tool_trajectory_avg_score"].score == 1.0  # not accepted: unchanged


def test_full_accept_drops_cases_gone_from_the_suite(tmp_path):
    old = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED], "old.json"))
    fewer = {"lights": EXPECTED["lights"]}
    new = baseline_from_results(score(tmp_path, fewer, [fewer], "new.json"), old)
    assert new.keys() == [("default", "home", "lights")]


def test_unknown_case_or_metric_is_a_usage_error(tmp_path):
    results = score(tmp_path, EXPECTED, [EXPECTED], "r.json")
    with pytest.raises(UsageError, match="--case not in the results: nope"):
        baseline_from_results(results, cases=["nope"])
    with pytest.raises(UsageError, match="--metric not in the results: rouge"):
        baseline_from_results(results, metrics=["rouge"])


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"schema_version": 1, "provenance": {"created_at": "x", "tool_', "not valid JSON"),  # truncated
        ("[1, 2]", "expected an object"),
        ('{"provenance": {}}', "$.schema_version"),
        ('{"schema_version": 99, "provenance": {}}', "newer than this agenteval reads"),
        ('{"schema_version": 1, "provenance": {"created_at": "x", "tool_version": "0", "num_runs": 1}, "suites": {"s": {"e": {"c": {"status": "PASSED"}}}}}',
         "$.suites.s.e.c.fingerprint"),
    ],
)
def test_unusable_baselines_are_clear_errors(tmp_path, text, where):
    path = tmp_path / "baseline.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_baseline(path)
    assert str(path) in str(err.value) and where in str(err.value)


def test_pass_counts_are_written_and_read_from_run_statuses_in_older_baselines():
    from agenteval_ci.schema import Status
    from agenteval_ci.schema.baseline import BaselineMetric

    older = BaselineMetric.model_validate({"run_statuses": ["PASSED", "FAILED", "PASSED", "NOT_EVALUATED"], "status": "FAILED"})
    assert older.passes is None and older.pass_counts() == (2, 1)
    assert BaselineMetric(passes=7, fails=3, run_statuses=[Status.PASSED]).pass_counts() == (7, 3)
