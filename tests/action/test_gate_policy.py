"""The action with agenteval.yaml's gate policy per metric: warn-only metrics regressing leave
the check green, and the check's summary says which policy applied."""

from __future__ import annotations

from .harness import HEAD_SHA, make_repo, pull_request_event, run_action
from .test_run_mode import open_pull

WARN_ONLY = """gate:
  metrics:
    tool_trajectory_avg_score: {severity: warn}
    response_match_score: {severity: warn}
    rubric_based_final_response_quality_v1: {severity: warn}
"""


def test_warn_only_metrics_regressing_leave_the_check_green_and_its_summary_names_the_policy(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo", broken=True)
    with (repo / "agenteval.yaml").open("a") as config:
        config.write(WARN_ONLY)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event())
    assert run.code == 0, run.stderr
    (check,) = github.check_runs.values()
    assert check["conclusion"] == "success" and check["head_sha"] == HEAD_SHA
    summary = check["output"]["summary"]
    assert "**Warn only (gate.metrics severity: warn): reported, never fails the check**" in summary
    assert "- tool_trajectory_avg_score: regressed" in summary and "set_thermostat" in summary
    assert ("Gate policy: response_match_score: warn; rubric_based_final_response_quality_v1: warn; "
            "tool_trajectory_avg_score: warn; every other metric and budget blocks") in summary
    assert "### Regressions" not in summary
