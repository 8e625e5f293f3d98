"""The PR lifecycle when GitHub misbehaves: foreign markers, stored-then-502, no answer at all."""

from __future__ import annotations

from .harness import HEAD_SHA, make_repo, pull_request_event, run_action
from .test_run_mode import open_pull

MARKER = "<!-- agenteval-ci:suite=home -->"
FAST = {"AGENTEVAL_GITHUB_BACKOFF_SECONDS": "0.01"}


def test_a_pasted_marker_and_a_stored_then_502_post_leave_exactly_one_comment_of_ours(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    human = github.add_comment(7, f"quoting the bot:\n{MARKER}\nold verdict", "contributor", "User")
    github.fail_next(502, store=True, match=r"POST .*/issues/7/comments$")
    github.fail_next(502, store=True, match=r"POST .*/check-runs$")
    repo = make_repo(tmp_path / "repo", broken=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), extra_env=FAST)
    assert run.code == 1, run.stderr
    ours = [c for c in github.all_comments() if c["user"]["login"] == "github-actions[bot]"]
    assert len(ours) == 1 and MARKER in ours[0]["body"] and "set_thermostat" in ours[0]["body"]
    assert human["body"].endswith("old verdict") and len(github.all_comments()) == 2
    assert run.outputs["comment-url"] == ours[0]["html_url"]
    (check,) = github.check_runs.values()
    assert check["head_sha"] == HEAD_SHA and check["conclusion"] == "failure"


def test_github_unreachable_while_posting_is_exit_3_with_the_verdict_kept(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.fail_next(drop=True, times=100, match=r"/comments$|/check-runs$")
    repo = make_repo(tmp_path / "repo", broken=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), extra_env=FAST)
    assert run.code == 3
    assert f"agenteval: error: GitHub API at {github.base_url} unreachable after 6 tries: " in run.stderr
    assert "Traceback" not in run.stderr and "please report" not in run.stderr
    assert "agenteval" in run.summary and run.outputs["verdict"] == "failed"
    out = repo / "agenteval-results"
    assert {"results.json", "comment.md", "report.html", "junit.xml"} <= {p.name for p in out.iterdir()}
    assert github.all_comments() == [] and github.check_runs == {}
