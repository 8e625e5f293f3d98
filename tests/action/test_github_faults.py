"""The PR lifecycle when GitHub misbehaves: foreign markers, stored-then-502, no answer at all."""

from __future__ import annotations

from tests.fakes.github import write_token

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
    assert {"results.json.gz", "comment.md", "report.html", "junit.xml"} <= {p.name for p in out.iterdir()}
    assert github.all_comments() == [] and github.check_runs == {}


def test_connections_dropped_then_recovered_leave_one_comment_and_one_check(tmp_path, github, good_baseline):
    """Each create's first attempt loses its connection (one after GitHub stored it, one before);
    a listing drops too. A refused TCP connection takes the same path: tests/github/test_client.py."""
    open_pull(github, good_baseline)
    github.fail_next(drop=True, store=True, match=r"POST .*/issues/7/comments$")
    github.fail_next(drop=True, match=r"GET .*/issues/7/comments$")
    github.fail_next(drop=True, match=r"POST .*/check-runs$")
    repo = make_repo(tmp_path / "repo", broken=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), extra_env=FAST)
    assert run.code == 1, run.stderr
    (comment,) = github.all_comments()
    assert MARKER in comment["body"] and run.outputs["comment-url"] == comment["html_url"]
    (check,) = github.check_runs.values()
    assert check["head_sha"] == HEAD_SHA and check["conclusion"] == "failure"


def test_switching_from_github_token_to_a_pat_keeps_one_sticky_comment(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    github.add_token("ghp_fake_pat", write_token("maintainer", pat=True))
    repo = make_repo(tmp_path / "repo", broken=True)
    first = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), extra_env=FAST)
    second = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), token="ghp_fake_pat", extra_env=FAST)
    assert (first.code, second.code) == (1, 1), second.stderr
    (comment,) = github.all_comments()
    assert comment["user"]["login"] == "github-actions[bot]" and MARKER in comment["body"]
    assert first.outputs["comment-url"] == second.outputs["comment-url"] == comment["html_url"]
