"""Mode accept end to end: `/agenteval accept` comments against the fake GitHub."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess

import pytest

from agenteval_ci.core.baseline import baseline_from_results, dump_baseline
from agenteval_ci.schema import Results
from agenteval_ci.schema.baseline import Baseline
from tests.fakes.gemini import FakeGemini
from tests.fakes.github import blob_sha

from .harness import BASE_SHA, BASELINE, HEAD_SHA, OUTPUTS, comment_event, make_repo, pull_request_event, results_text, rubric_yes, run_action


@pytest.fixture(scope="module")
def broken_results(tmp_path_factory) -> str:
    return results_text(make_repo(tmp_path_factory.mktemp("broken") / "repo", broken=True))


@pytest.fixture
def pull(github, good_baseline, broken_results):
    """PR #7 whose head run uploaded regressed results; `maintainer` may write, `visitor` may read."""
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    github.set_files(BASE_SHA, {BASELINE: good_baseline})
    github.set_files(HEAD_SHA, {BASELINE: good_baseline})
    github.set_files("feature", {BASELINE: good_baseline})
    github.collaborators.update({"maintainer": "maintain", "visitor": "read"})
    pull_file = json.dumps({"number": 7, "head_sha": HEAD_SHA}).encode()
    github.add_run(HEAD_SHA, {"agenteval-results": {"results.json": broken_results.encode(), "pull.json": pull_file}})
    github.add_comment(7, "/agenteval accept", login="maintainer")  # the comment the event is about
    return github


def accept(tmp_path, github, body: str = "/agenteval accept", **who):
    comment_id = github.all_comments()[-1]["id"] if github.all_comments() else 555
    return run_action(tmp_path, make_repo(tmp_path / "repo"), github.base_url, "issue_comment",
                      comment_event(body, comment_id=comment_id, **who))


def test_a_writer_commits_the_head_results_as_the_baseline(tmp_path, pull, good_baseline, broken_results):
    run = accept(tmp_path, pull)
    assert run.code == 0, run.stderr + run.stdout
    outputs, commit = pull.commits  # the recorded outputs first: the baseline points to them
    assert commit["branch"] == "feature" and "@maintainer" in commit["message"] and outputs["path"] == OUTPUTS
    put = next(r for r in pull.requests if r.method == "PUT" and r.path.endswith(BASELINE))
    assert put.body["sha"] == blob_sha(good_baseline)
    committed = Baseline.model_validate_json(pull.files["feature"][BASELINE])
    records = [json.loads(line) for line in gzip.decompress(pull.files["feature"][OUTPUTS]).splitlines()[1:]]
    assert {r["digest"] for r in records} == {c.outputs for sets in committed.suites.values() for cs in sets.values() for c in cs.values()}
    assert {r["eval_id"] for r in records} >= {"set_thermostat", "kitchen_light_on"}
    assert committed.provenance.commit == HEAD_SHA
    assert committed.case("home", "home_basic", "set_thermostat").status.value == "FAILED"
    assert {r["content"] for r in pull.reactions} == {"eyes", "+1"}
    (check,) = pull.check_runs.values()
    assert check["head_sha"] == commit["sha"] and check["conclusion"] == "success"
    assert any("Baseline accepted by @maintainer" in c["body"] for c in pull.all_comments())


def test_one_case_and_one_metric(tmp_path, pull, good_baseline):
    run = accept(tmp_path, pull, "/agenteval accept set_thermostat --metric tool_trajectory_avg_score")
    assert run.code == 0, run.stderr + run.stdout
    committed = Baseline.model_validate_json(pull.files["feature"][BASELINE])
    old = Baseline.model_validate_json(good_baseline)
    assert committed.case("home", "home_basic", "kitchen_light_on") == old.case("home", "home_basic", "kitchen_light_on")
    assert committed.case("home", "home_basic", "set_thermostat") != old.case("home", "home_basic", "set_thermostat")


def test_a_read_only_user_gets_a_polite_reply_and_no_change(tmp_path, pull):
    run = accept(tmp_path, pull, login="visitor")
    assert run.code == 0 and pull.commits == [] and pull.reactions == []
    assert "Only people with write access" in pull.all_comments()[-1]["body"]


def test_bots_and_plain_comments_are_ignored(tmp_path, pull):
    before = len(pull.requests)
    assert accept(tmp_path, pull, login="renovate[bot]", user_type="Bot").code == 0
    assert accept(tmp_path, pull, "looks good to me").code == 0
    assert len(pull.requests) == before and pull.commits == []


def test_an_issue_that_is_not_a_pr_is_refused(tmp_path, pull):
    run = run_action(tmp_path, make_repo(tmp_path / "repo"), pull.base_url, "issue_comment",
                     comment_event("/agenteval accept", is_pull=False, number=9))
    assert run.code == 1 and pull.commits == []
    assert "pull requests only" in pull.comments[9][-1]["body"]


def test_refused_when_the_head_moved_since_the_evaluation(tmp_path, pull):
    pull.pulls[7]["head"]["sha"] = "d" * 40
    run = accept(tmp_path, pull)
    assert run.code == 1 and pull.commits == []
    assert "head commit ddddddd" in pull.all_comments()[-1]["body"]


def test_a_conflicting_baseline_change_is_not_overwritten(tmp_path, pull, good_baseline):
    pull.set_files("feature", {BASELINE: good_baseline + " "})  # someone pushed a change after the head run
    run = accept(tmp_path, pull)
    # the recorded outputs went first (content-addressed, so extra records are harmless); the baseline did not
    assert run.code == 1 and [c["path"] for c in pull.commits] == [OUTPUTS]
    assert pull.files["feature"][BASELINE] == good_baseline + " "
    assert "did not overwrite" in pull.all_comments()[-1]["body"]


def test_a_fork_pr_gets_the_patch_instead_of_a_commit(tmp_path, pull):
    pull.pulls[7]["head"]["repo"]["full_name"] = "someone/agent-fork"
    run = accept(tmp_path, pull)
    assert run.code == 0 and pull.commits == []
    reply = pull.all_comments()[-1]["body"]
    assert "```diff\n--- a/.agenteval/baseline.json\n+++ b/.agenteval/baseline.json" in reply and "git apply" in reply
    assert "recorded outputs" in reply and "cannot travel in a text patch" in reply


# ---------------------------------------------------------------- the accepted baseline sticks

NEW_HEAD = "d" * 40


def push(github, baseline_text: str, head_repo: str = "octo/agent"):
    """The PR's next commit: the same (regressed) agent, with this baseline file."""
    github.set_files(NEW_HEAD, {BASELINE: baseline_text})
    github.pulls[7]["head"]["sha"] = NEW_HEAD
    return pull_request_event(head_sha=NEW_HEAD, head_repo=head_repo)


def grade(tmp_path, github, event):
    """The run the push triggers, with a judge for the judged case the committed cache does not know."""
    with FakeGemini(responder=rubric_yes) as gemini:
        return run_action(tmp_path, make_repo(tmp_path / "pushed", broken=True), github.base_url, "pull_request", event,
                          extra_env=gemini.env())


def test_after_accept_the_next_push_is_graded_against_the_accepted_baseline(tmp_path, pull):
    assert accept(tmp_path, pull).code == 0
    run = grade(tmp_path, pull, push(pull, pull.files["feature"][BASELINE]))
    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["verdict"] == "passed"
    sticky = next(c for c in pull.all_comments() if "agenteval-ci:suite=" in c["body"])
    assert "@maintainer accepted this PR's" in sticky["body"] and "set_thermostat" in sticky["body"]  # deltas vs base


def test_a_fork_author_applying_the_bots_patch_is_green(tmp_path, pull, good_baseline):
    pull.pulls[7]["head"]["repo"]["full_name"] = "someone/agent-fork"
    assert accept(tmp_path, pull).code == 0
    patch = pull.all_comments()[-1]["body"].split("```diff\n", 1)[1].rsplit("```", 1)[0]
    work = tmp_path / "fork"
    (work / ".agenteval").mkdir(parents=True)
    (work / BASELINE).write_text(good_baseline)
    (work / "baseline.patch").write_text(patch)
    subprocess.run(["git", "apply", "baseline.patch"], cwd=work, check=True)
    run = grade(tmp_path, pull, push(pull, (work / BASELINE).read_text(), head_repo="someone/agent-fork"))
    assert run.outputs["verdict"] == "passed", run.stdout + run.stderr


def test_a_hand_edited_baseline_is_still_graded_against_the_base(tmp_path, pull, broken_results):
    edited = dump_baseline(baseline_from_results(Results.model_validate_json(broken_results)))
    run = grade(tmp_path, pull, push(pull, edited))
    assert run.code == 1 and run.outputs["verdict"] == "failed"
    assert "the comparison used the baseline of the base branch" in run.summary


@pytest.mark.parametrize("author, pr", [("github-actions[bot]", 8), ("maintainer", 7)])
def test_a_digest_from_another_pr_or_a_human_is_not_trusted(tmp_path, pull, broken_results, author, pr):
    edited = dump_baseline(baseline_from_results(Results.model_validate_json(broken_results)))
    forged = f"<!-- agenteval-ci:accepted pr={pr} sha256={hashlib.sha256(edited.encode()).hexdigest()} by=maintainer -->\nok"
    pull.add_comment(7, forged, login=author, user_type="Bot" if author.endswith("[bot]") else "User")
    run = grade(tmp_path, pull, push(pull, edited))
    assert run.code == 1 and run.outputs["verdict"] == "failed"
    assert "the comparison used the baseline of the base branch" in run.summary


def test_accept_keeps_the_figures_agenteval_yaml_budgets(tmp_path, pull):
    """gate.budgets names what a baseline keeps per run: `/agenteval accept` keeps it too."""
    repo = make_repo(tmp_path / "repo")
    config = repo / "agenteval.yaml"
    config.write_text(config.read_text() + "gate:\n  budgets: {tool_call_count_v1: +0%}\n")
    comment_id = pull.all_comments()[-1]["id"]
    run = run_action(tmp_path, repo, pull.base_url, "issue_comment", comment_event("/agenteval accept", comment_id=comment_id))
    assert run.code == 0, run.stderr + run.stdout
    committed = Baseline.model_validate_json(pull.files["feature"][BASELINE])
    figures = committed.case("home", "home_basic", "set_thermostat").figures
    assert set(figures) == {"tool_call_count_v1"} and figures["tool_call_count_v1"] and all(v is not None for v in figures["tool_call_count_v1"])
