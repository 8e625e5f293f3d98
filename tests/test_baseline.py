"""Baseline files: deterministic output, partial accept, and unusable files as clear errors."""

from __future__ import annotations

import json

import pytest

from agenteval_ci.core.baseline import baseline_from_results, dump_baseline, results_id
from agenteval_ci.errors import InputError, UsageError
from agenteval_ci.files.baseline_file import load_baseline, write_baseline
from tests.report.scored import EXPECTED, lights, score, weather


def test_dump_is_deterministic_sorted_and_ends_with_a_newline(tmp_path):
    results = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "r.json")
    text = dump_baseline(baseline_from_results(results, commit="abc123"))
    data = json.loads(text)
    assert text.endswith("}\n") and text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["schema_version"] == 2
    assert data["provenance"]["commit"] == "abc123" and data["provenance"]["num_runs"] == 2
    metric = data["suites"]["default"]["home"]["lights"]["metrics"]["tool_trajectory_avg_score"]
    assert metric == {
        "config_fingerprint": results.cases[0].metrics["tool_trajectory_avg_score"].config_fingerprint,
        "rubrics": {}, "run_statuses": ["PASSED", "PASSED"], "runs": [1.0, 1.0],
        "score": 1.0, "status": "PASSED", "threshold": 1.0, "history": "PP", "accepted_from": results_id(results),
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
        ('{"schema_version": 99, "provenance": {"created_at": "x", "tool_version": "0", "num_runs": 1}}', "newer than this agenteval reads"),  # else valid
        ('{"schema_version": 2, "provenance": {"created_at": "x", "tool_version": "0", "num_runs": 1}, "suites": {"s\\udc00": {}}}', "lone surrogate"),
        ('{"provenance": {"created_at": "x", "tool_version": "0", "num_runs": 1}}', "$.schema_version"),  # else valid
        ('{"schema_version": 2, "provenance": {"created_at": "x", "tool_version": "0", "num_runs": 1}, "suites": {"s": {"e": {"c": '
         '{"fingerprint": "f", "status": "PASSED", "metrics": {"m": {"history": "PP+"}}}}}}}', "$.suites.s.e.c.metrics.m.history"),
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


V1_METRIC = {"config_fingerprint": "c", "rubrics": {}, "runs": [1.0, 0.0, 1.0], "run_statuses": ["PASSED", "FAILED", "PASSED"],
             "score": 0.6667, "status": "FAILED", "threshold": 1.0}


def test_version_1_baselines_load_their_counts_as_one_batch_of_history_and_are_written_as_version_2(tmp_path):
    from agenteval_ci.schema.baseline import BaselineMetric

    counted = BaselineMetric.model_validate({**V1_METRIC, "passes": 7, "fails": 3})  # an adaptive run's counts
    assert counted.history == "PPPPPPPFFF" and counted.passes is None and counted.history_counts() == (7, 3)
    assert counted.pass_counts() == (2, 1)  # the runs themselves, a fixed-size sample
    older = BaselineMetric.model_validate({**V1_METRIC, "run_statuses": ["PASSED", "FAILED", "PASSED", "NOT_EVALUATED"]})
    assert older.history == "PFP" and older.planned_counts() == (2, 1)
    path = tmp_path / "baseline.json"
    case = {"fingerprint": "f", "status": "FAILED", "metrics": {"tool_trajectory_avg_score": {**V1_METRIC, "passes": 2, "fails": 1}}}
    path.write_text(json.dumps({"schema_version": 1, "provenance": {"created_at": "x", "tool_version": "0", "num_runs": 3},
                                "suites": {"default": {"home": {"lights": case}}}}))
    baseline = load_baseline(path)
    write_baseline(path, baseline)
    data = json.loads(path.read_text())
    written = data["suites"]["default"]["home"]["lights"]["metrics"]["tool_trajectory_avg_score"]
    assert data["schema_version"] == 2 and written["history"] == "PFP" and "passes" not in written and "fails" not in written


# ---------------------------------------------------------------- histories across accepts

BROKEN = {**EXPECTED, "lights": lights(on=True)}  # the wrong tool argument: lights fails its trajectory


def _history(baseline, case: str = "lights", metric: str = "tool_trajectory_avg_score") -> str:
    return baseline.case("default", "home", case).metrics[metric].history


def _again(results, n: int):
    """The same runs as a different results file (a later pull request's)."""
    return results.model_copy(update={"created_at": f"2026-01-0{n}T00:00:00+00:00"})


def test_each_accept_adds_its_runs_to_the_history_within_a_window_of_runs(tmp_path):
    from agenteval_ci.schema.baseline import HISTORY_WINDOW

    first = score(tmp_path, EXPECTED, [EXPECTED] * 5, "first.json")
    baseline = baseline_from_results(first)
    assert _history(baseline) == "PPPPP"
    one = score(tmp_path, EXPECTED, [EXPECTED], "one.json")
    for n in range(1, 9):
        baseline = baseline_from_results(_again(one, n), baseline)
    assert _history(baseline) == "PPPPP" + " P" * 8  # evidence accumulates instead of being reset
    for n in range(9, 40):
        baseline = baseline_from_results(_again(one, n % 10).model_copy(update={"commit": str(n)}), baseline)
    history = _history(baseline)
    assert history == " ".join(["P"] * HISTORY_WINDOW)  # the oldest batches went, whole
    assert baseline.case("default", "home", "lights").metrics["tool_trajectory_avg_score"].runs == [1.0]  # the last accept's runs


def test_accepting_the_same_results_again_replaces_their_batch(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED] * 5, "first.json"))
    pr = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "pr.json")
    once = baseline_from_results(pr, baseline)
    twice = baseline_from_results(pr, once)  # e.g. `/agenteval accept` commented twice on one head
    assert _history(once) == _history(twice) == "PPPPP PP"
    only_lights = baseline_from_results(pr, twice, cases=["lights"])  # then a partial accept of the same results
    assert _history(only_lights) == "PPPPP PP"


def test_a_case_that_changed_beyond_chance_starts_its_history_anew(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED] * 5, "first.json"))
    changed = baseline_from_results(score(tmp_path, EXPECTED, [BROKEN] * 3, "broken.json"), baseline)
    assert _history(changed) == "FFF"  # 5 passes then 3 failures: a new behaviour, accepted
    assert _history(changed, "weather") == "PPPPP PPP"
    noise = baseline_from_results(score(tmp_path, EXPECTED, [BROKEN], "once.json"), baseline)
    assert _history(noise) == "PPPPP F"  # one failure after five passes: chance allows it


def test_partial_accepts_and_a_changed_test_touch_only_their_histories(tmp_path):
    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED] * 3, "first.json"))
    pr = score(tmp_path, EXPECTED, [EXPECTED], "pr.json")
    lights_only = baseline_from_results(pr, baseline, cases=["lights"], metrics=["tool_trajectory_avg_score"])
    assert _history(lights_only) == "PPP P"
    assert _history(lights_only, metric="response_match_score") == "PPP"
    assert _history(lights_only, "weather") == "PPP"
    new_test = {**EXPECTED, "weather": weather(city="Lyon")}  # the expected content changed
    retested = baseline_from_results(score(tmp_path, new_test, [new_test], "retest.json"), baseline)
    assert _history(retested, "weather") == "P" and _history(retested) == "PPP P"


def test_one_shards_accept_adds_to_its_cases_only(tmp_path):
    from agenteval_ci.schema import ShardInfo

    baseline = baseline_from_results(score(tmp_path, EXPECTED, [EXPECTED] * 3, "first.json"))
    pr = score(tmp_path, EXPECTED, [EXPECTED], "pr.json")
    shard = pr.model_copy(update={"shard": ShardInfo(index=1, count=2), "cases": [c for c in pr.cases if c.eval_id == "music"]})
    accepted = baseline_from_results(shard, baseline)
    assert _history(accepted, "music") == "PPP P" and _history(accepted) == _history(accepted, "weather") == "PPP"


def test_an_adaptive_runs_rate_comes_from_its_planned_runs_and_the_history_marks_the_chosen(tmp_path):
    """num_runs: auto re-ran lights after its first run failed, until it passed: all four runs
    would overstate its pass rate (3/4), so the accepted score is the first run's (0/1)."""
    results = score(tmp_path, EXPECTED, [BROKEN, EXPECTED, EXPECTED, EXPECTED], "auto.json")
    results = results.model_copy(update={"cases": [c.model_copy(update={"planned_runs": 1}) for c in results.cases]})
    metric = baseline_from_results(results).case("default", "home", "lights").metrics["tool_trajectory_avg_score"]
    assert (metric.score, metric.status.value, metric.runs, metric.history) == (0.0, "FAILED", [0.0], "F+PPP")
    assert metric.planned_counts() == (0, 1) and metric.history_counts() == (3, 1)
    assert baseline_from_results(results).case("default", "home", "lights").status.value == "FAILED"


def test_a_baseline_is_written_a_case_at_a_time_as_one_json_dump_would(tmp_path):
    """baseline_json_parts is byte for byte json.dumps(indent=2, sort_keys=True) of the whole,
    with several suites and eval sets, ids that sort differently and text that is not ASCII."""
    from agenteval_ci.core.baseline import BASELINE_VERSION, baseline_json_parts
    from agenteval_ci.schema.baseline import Baseline

    case = {"fingerprint": "f", "status": "PASSED", "metrics": {"m": {"score": 1.0, "runs": [1.0], "run_statuses": ["PASSED"], "status": "PASSED",
                                                                     "threshold": 1.0, "history": "PP+P", "rubrics": {"ré": 0.5}}}}
    data = {"schema_version": BASELINE_VERSION, "provenance": {"created_at": "x", "tool_version": "0", "num_runs": 1, "commit": "abc"},
            "suites": {"zeta": {"b": {"c10": case, "c2": case, "ç": case}, "a": {}}, "alpha": {"e": {"x": case}}}}
    baseline = Baseline.model_validate(data)
    parts = list(baseline_json_parts(baseline))
    assert "".join(parts) == json.dumps(baseline.model_dump(mode="json", exclude_none=True), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert len(parts) > 4
    empty = Baseline.model_validate({**data, "suites": {}})
    assert "".join(baseline_json_parts(empty)) == json.dumps(empty.model_dump(mode="json", exclude_none=True), indent=2, sort_keys=True) + "\n"
    write_baseline(tmp_path / "b.json", baseline)
    assert load_baseline(tmp_path / "b.json") == baseline
