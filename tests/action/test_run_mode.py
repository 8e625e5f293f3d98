"""Mode run end to end: entrypoint.py as a subprocess against the fake GitHub."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.fakes.github import read_only_token, write_token

from .harness import BASE_SHA, BASELINE, HEAD_SHA, make_repo, pull_request_event, run_action


def open_pull(github, good_baseline: str, head_baseline: str | None = None) -> None:
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    github.set_files(BASE_SHA, {BASELINE: good_baseline})
    github.set_files(HEAD_SHA, {BASELINE: head_baseline or good_baseline})


def test_regression_fails_with_one_comment_a_failing_check_and_annotations(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo", broken=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event())
    assert run.code == 1, run.stderr
    assert run.outputs["verdict"] == "failed" and int(run.outputs["regressions"]) >= 1
    (comment,) = github.all_comments()
    assert "<!-- agenteval-ci:suite=home -->" in comment["body"] and "set_thermostat" in comment["body"]
    assert run.outputs["comment-url"] == comment["html_url"]
    (check,) = github.check_runs.values()
    assert check["conclusion"] == "failure" and check["head_sha"] == HEAD_SHA
    thermostat = next(a for a in check["annotations"] if a["title"].endswith(" set_thermostat"))
    assert thermostat["path"] == "evals/basic/home.evalset.json" and thermostat["start_line"] == 76
    assert "::error file=evals/basic/home.evalset.json,line=76" in run.stdout
    assert "agenteval" in run.summary and (repo / "agenteval-results" / "report.html").is_file()
    assert json.loads((repo / "agenteval-results" / "pull.json").read_text()) == {"number": 7, "head_sha": HEAD_SHA}


def test_an_app_token_keeps_one_comment_once_app_login_names_its_bot(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.add_token("app-token", write_token("agenteval-app[bot]", app="agenteval-app"))
    repo = make_repo(tmp_path / "repo", broken=True)
    unnamed = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), token="app-token")
    assert unnamed.code == 1
    assert "set the input app-login: agenteval-app[bot]" in unnamed.stdout
    named = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), token="app-token",
                       inputs={"app-login": "agenteval-app[bot]"})
    again = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), token="app-token",
                       inputs={"app-login": "agenteval-app[bot]"})
    assert named.code == again.code == 1 and "app-login" not in again.stdout
    assert len([c for c in github.all_comments() if "agenteval-ci:suite=" in c["body"]]) == 1  # the first run's, edited


def test_rerun_updates_the_same_comment(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.add_comment(7, "unrelated chatter")
    repo = make_repo(tmp_path / "repo", broken=True)
    first = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event())
    second = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event())
    assert first.code == second.code == 1
    ours = [c for c in github.all_comments() if "agenteval-ci:suite=" in c["body"]]
    assert len(ours) == 1 and len(github.all_comments()) == 2
    assert first.outputs["comment-url"] == second.outputs["comment-url"]
    assert [r.method for r in github.requests if "/issues/" in r.path and r.method != "GET"] == ["POST", "PATCH"]


def test_fixed_pr_passes(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "pull_request", pull_request_event())
    assert run.code == 0, run.stderr
    assert run.outputs["verdict"] == "passed" and run.outputs["regressions"] == "0"
    (check,) = github.check_runs.values()
    assert check["conclusion"] == "success" and check["annotations"] == []


def test_a_pr_that_edits_the_baseline_is_graded_against_the_base_one(tmp_path, github, good_baseline):
    open_pull(github, good_baseline, head_baseline='{"edited": true}\n')
    run = run_action(tmp_path, make_repo(tmp_path / "repo", broken=True), github.base_url, "pull_request", pull_request_event())
    assert run.code == 1
    comparison = json.loads((tmp_path / "repo" / "agenteval-results" / "comparison.json").read_text())
    assert comparison["baseline_edited"] is True


def test_fork_pr_with_read_only_token_finishes_and_degrades_to_the_summary(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.add_token("ghs_read_only", read_only_token())
    event = pull_request_event(head_repo="someone/agent-fork")
    run = run_action(tmp_path, make_repo(tmp_path / "repo", broken=True), github.base_url, "pull_request", event,
                     token="ghs_read_only")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert github.all_comments() == [] and github.check_runs == {} and github.statuses == []
    assert "::notice::agenteval: not posting" in run.stdout and "fork" in run.stdout
    assert run.outputs["verdict"] == "failed" and "agenteval" in run.summary
    assert "ghs_read_only" not in run.stdout.replace("::add-mask::ghs_read_only", "")


def test_forbidden_checks_fall_back_to_a_commit_status(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.tokens[next(iter(github.tokens))].scopes["checks"] = "read"
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "pull_request", pull_request_event())
    assert run.code == 0
    (status,) = github.statuses
    assert status["state"] == "success" and status["sha"] == HEAD_SHA and status["context"] == "agenteval"


def test_server_errors_and_secondary_rate_limits_are_retried(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.fail_next(500)
    github.fail_next(403, headers={"Retry-After": "1"}, message="You have exceeded a secondary rate limit")
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "pull_request", pull_request_event())
    assert run.code == 0, run.stderr
    assert len(github.all_comments()) == 1 and len(github.check_runs) == 1
    first_three = {(r.method, r.path) for r in github.requests[:3]}
    assert len(first_three) == 1  # the same request three times: failed, rate-limited, answered


def test_push_compares_with_the_committed_baseline(tmp_path, github, good_baseline):
    repo = make_repo(tmp_path / "repo")
    (repo / BASELINE).parent.mkdir(parents=True, exist_ok=True)
    (repo / BASELINE).write_text(good_baseline)
    run = run_action(tmp_path, repo, github.base_url, "push", {"ref": "refs/heads/main"})
    assert run.code == 0 and run.outputs["verdict"] == "passed"
    (check,) = github.check_runs.values()
    assert check["head_sha"] == "c" * 40 and github.all_comments() == []


def test_bad_input_is_a_clear_error_with_exit_2(tmp_path, github):
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "pull_request", pull_request_event(),
                     inputs={"mode": "sideways"})
    assert run.code == 2 and "input 'mode' must be one of" in run.stderr


def test_an_agent_that_cannot_run_fails_the_check(tmp_path, github, good_baseline):
    """Every turn raises: the verdict is failed, with the reason in the comment and the summary."""
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo")
    agent = repo / "agent.py"
    agent.write_text(agent.read_text() + "\n\ndef handle(text, session):\n    raise RuntimeError('the device hub is unreachable')\n")
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event())
    assert run.code == 1, run.stderr
    assert run.outputs["verdict"] == "failed"
    assert "whose agent runs failed" in run.summary and "the device hub is unreachable" in run.summary
    (comment,) = github.all_comments()
    assert "whose agent runs failed" in comment["body"]


def test_no_judge_key_on_a_fork_like_run_is_lost_coverage_not_a_pass(tmp_path, github, good_baseline):
    """Without the judge cache and without GOOGLE_API_KEY, the judged metric cannot be scored."""
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo")
    shutil.rmtree(repo / ".agenteval" / "cache")
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event())
    assert run.code == 1, run.stderr
    assert run.outputs["verdict"] == "failed"
    assert "lost coverage" in run.summary and "no judge credentials" in run.summary


@pytest.mark.parametrize("mode", ["auto", "run", "merge"])
def test_pull_request_target_is_refused_before_the_prs_code_runs(tmp_path, github, good_baseline, mode):
    """pull_request_target gives the job a write token and the secrets: running the PR's head
    there hands them to untrusted code (issue 35). Refused whatever the mode, nothing posted."""
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo")
    (repo / "agent.py").write_text("raise SystemExit('the PR head ran under pull_request_target')\n")
    (repo / "stolen").unlink(missing_ok=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request_target", pull_request_event(),
                     inputs={"mode": mode, "install": "touch stolen"})
    assert run.code == 2, run.stdout + run.stderr
    assert "does not run on pull_request_target" in run.stderr and "fork-safe-evaluate.yml" in run.stderr
    assert "Traceback" not in run.stderr and not (repo / "stolen").exists()
    assert github.all_comments() == [] and github.check_runs == {} and github.statuses == []
