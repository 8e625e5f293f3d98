"""`/agenteval accept` while GitHub faults (issue 12): the baseline on the PR branch is the old
file or the accepted one, never a commit without the reply that vouches for it; the reply says
what failed; GitHub failing is exit 3; once the fault clears, a new comment accepts, leaving one
accepted reply and one sticky comment."""

from __future__ import annotations

import re

import pytest

from .harness import BASELINE, HEAD_SHA, OUTPUTS, comment_event, make_repo, run_action
from .test_accept_mode import broken_results, pull  # noqa: F401 - fixtures

FAST = {"AGENTEVAL_GITHUB_BACKOFF_SECONDS": "0.01"}
ACCEPTED = re.compile(r"^<!-- agenteval-ci:accepted pr=7 sha256=[0-9a-f]{64} by=maintainer -->\n")
STICKY = "<!-- agenteval-ci:suite="
PUT = r"PUT .*/contents/"


def accept_again(tmp_path, github, name: str):
    """A writer's new `/agenteval accept` comment, and the run its event starts."""
    comment = github.add_comment(7, "/agenteval accept", login="maintainer")
    return run_action(tmp_path, make_repo(tmp_path / name), github.base_url, "issue_comment",
                      comment_event("/agenteval accept", comment_id=comment["id"]), extra_env=FAST)


def ours(github, pattern: re.Pattern | str) -> list[dict]:
    return [c for c in github.all_comments() if c["user"]["login"] == "github-actions[bot]" and re.search(pattern, c["body"])]


def assert_accepted_once(github, good_baseline):
    outputs, commit = github.commits  # the recorded outputs first, then the baseline that points to them
    assert (outputs["path"], commit["path"]) == (OUTPUTS, BASELINE)
    assert github.files["feature"][BASELINE] != good_baseline
    (accepted,) = ours(github, ACCEPTED)
    assert f"committed `{BASELINE}` in {commit['sha'][:7]}" in accepted["body"]
    assert len(ours(github, STICKY)) == 1
    (check,) = github.check_runs.values()
    assert check["head_sha"] == commit["sha"] and check["conclusion"] == "success"


def test_a_commit_that_keeps_failing_writes_nothing_says_why_and_a_later_accept_succeeds(tmp_path, pull, good_baseline):
    pull.fail_next(502, times=100, match=PUT)
    run = accept_again(tmp_path, pull, "first")
    assert run.code == 3 and "Traceback" not in run.stderr
    assert "GitHub PUT" in run.stderr and "502" in run.stderr
    assert pull.commits == [] and pull.files["feature"][BASELINE] == good_baseline
    assert ours(pull, ACCEPTED) == []  # the digest of a file that was never committed is withdrawn
    (failed,) = ours(pull, "I could not commit")
    assert "502" in failed["body"] and "Nothing was written" in failed["body"]

    pull.faults.clear()
    run = accept_again(tmp_path, pull, "second")
    assert run.code == 0, run.stderr
    assert_accepted_once(pull, good_baseline)


@pytest.mark.parametrize("fault", [
    dict(status=502, store=True),  # committed, then answered 502: resending the old blob sha would conflict
    dict(status=0, drop=True, store=True),  # committed, then the connection dropped
    dict(status=403, headers={"Retry-After": "0"}, message="You have exceeded a secondary rate limit"),
    dict(status=503),  # not committed: sent again
])
def test_a_commit_whose_answer_is_lost_or_delayed_is_accepted_once(tmp_path, pull, good_baseline, fault):
    pull.fail_next(match=PUT, **fault)
    run = accept_again(tmp_path, pull, "repo")
    assert run.code == 0, run.stderr + run.stdout
    assert_accepted_once(pull, good_baseline)


def test_a_commit_stored_on_the_last_try_still_counts(tmp_path, pull, good_baseline):
    """Five 502s before GitHub stores the sixth PUT and answers 502 too: the branch is read once
    more before giving up, so the commit is not taken for a failure (nor its digest withdrawn)."""
    pull.fail_next(502, times=5, match=PUT)
    pull.fail_next(502, store=True, match=PUT)
    run = accept_again(tmp_path, pull, "repo")
    assert run.code == 0, run.stderr + run.stdout
    assert_accepted_once(pull, good_baseline)


def test_stored_then_502_on_the_replies_and_the_sticky_comment_posts_each_once(tmp_path, pull, good_baseline):
    pull.fail_next(502, store=True, match=r"POST .*/issues/7/comments$", times=2)
    pull.fail_next(502, store=True, match=r"POST .*/check-runs$")
    run = accept_again(tmp_path, pull, "repo")
    assert run.code == 0, run.stderr + run.stdout
    assert_accepted_once(pull, good_baseline)


def test_github_failing_before_the_commit_replies_and_exits_3(tmp_path, pull, good_baseline):
    pull.fail_next(500, times=100, match=r"GET .*/actions/runs$")
    run = accept_again(tmp_path, pull, "first")
    assert run.code == 3 and "Traceback" not in run.stderr
    assert pull.commits == [] and ours(pull, ACCEPTED) == []
    (failed,) = ours(pull, "GitHub failed while I was accepting")
    assert "500" in failed["body"] and "Nothing was committed" in failed["body"]
    pull.faults.clear()
    assert accept_again(tmp_path, pull, "second").code == 0
    assert_accepted_once(pull, good_baseline)


def test_github_unreachable_throughout_is_one_clear_line_and_nothing_written(tmp_path, pull, good_baseline):
    pull.fail_next(drop=True, times=1000)
    run = accept_again(tmp_path, pull, "repo")
    assert run.code == 3
    assert f"agenteval: error: GitHub API at {pull.base_url} unreachable after 6 tries: " in run.stderr
    assert "Traceback" not in run.stderr and "please report" not in run.stderr
    assert pull.commits == [] and pull.files["feature"][BASELINE] == good_baseline and pull.pulls[7]["head"]["sha"] == HEAD_SHA
