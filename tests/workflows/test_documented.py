"""The ready-to-copy workflows of docs/workflows/, run by act through a PR's lifecycle (issue 43):
the gate on pull_request, /agenteval accept on issue_comment, the fork-safe pair and the
sharded matrix with its merge. Opt-in: scripts/workflow_test.sh builds what they need."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.action.harness import BASE_SHA, BASELINE, ROOT, make_repo

from .act import PR, Act, accept_pr, git_repo, job_token, missing, pull_request, with_action

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "runs")

DOCS = ROOT / "docs" / "workflows"


def workspace(tmp_path: Path, name: str, workflow: str, broken: bool = False) -> tuple[Path, str]:
    """A user's repository: the example agent, its requirements and the workflow as copied; its sha."""
    repo = make_repo(tmp_path / name, broken=broken)
    (repo / "requirements.txt").write_text("# the example needs only what the action's image has\n")
    target = repo / ".github" / "workflows" / workflow
    target.parent.mkdir(parents=True)
    target.write_text(with_action((DOCS / workflow).read_text()))
    return repo, git_repo(repo)


def secrets_of(gemini) -> dict[str, str]:
    return {"GOOGLE_API_KEY": gemini.env()["GOOGLE_API_KEY"]}


def model_urls(gemini) -> dict[str, str]:
    """Where the model APIs are: the fake's address, which the runner's network would reach."""
    return {"GOOGLE_GEMINI_BASE_URL": gemini.env()["GOOGLE_GEMINI_BASE_URL"]}


def open_pull(github, good_baseline: str, head_sha: str) -> None:
    github.add_pull(PR, head_sha=head_sha, head_ref="feature", base_sha=BASE_SHA)
    for ref in (BASE_SHA, head_sha, "feature"):
        github.set_files(ref, {BASELINE: good_baseline})


def test_pr_gate_fails_a_regression_and_accept_commits_its_baseline(tmp_path, act: Act, github, gemini, good_baseline):
    repo, head = workspace(tmp_path, "pr", "pr-gate.yml", broken=True)
    open_pull(github, good_baseline, head)
    workflow = repo / ".github" / "workflows" / "pr-gate.yml"
    token = job_token(github, workflow, "agenteval")
    run = act.run(repo, workflow, "pull_request", pull_request(head), head,
                  secrets={"GITHUB_TOKEN": token, **secrets_of(gemini)}, env=model_urls(gemini))
    assert run.job_outcome("agenteval") == "failed", run.log
    (comment,) = github.all_comments()
    assert "<!-- agenteval-ci:suite=home -->" in comment["body"] and "set_thermostat" in comment["body"]
    (check,) = github.check_runs.values()
    assert (check["head_sha"], check["conclusion"]) == (head, "failure")
    assert check["annotations"], check
    results = act.artifact_files(run, "agenteval-results")
    assert any(name.endswith(".json") for name in results), sorted(results)

    accept_on(tmp_path, act, github, head)


def test_pr_gate_on_a_push_to_main_checks_the_commit_without_a_comment(tmp_path, act: Act, github, gemini):
    """main's first run: no baseline yet, graded on thresholds."""
    repo, sha = workspace(tmp_path, "main", "pr-gate.yml")
    workflow = repo / ".github" / "workflows" / "pr-gate.yml"
    push = {"ref": "refs/heads/main", "before": BASE_SHA, "after": sha, "head_commit": {"id": sha},
            "repository": pull_request(sha)["repository"], "sender": {"login": "maintainer"}}
    run = act.run(repo, workflow, "push", push, sha,
                  secrets={"GITHUB_TOKEN": job_token(github, workflow, "agenteval"), **secrets_of(gemini)}, env=model_urls(gemini))
    assert run.job_outcome("agenteval") == "succeeded", run.log
    assert github.all_comments() == []
    assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(sha, "success")]
    assert act.artifact_files(run, "agenteval-results")


def accept_on(tmp_path: Path, act: Act, github, head: str) -> None:
    repo, main_sha = workspace(tmp_path, "accept", "accept.yml")
    accept_pr(act, github, repo, repo / ".github" / "workflows" / "accept.yml", main_sha, head)


def test_sharded_matrix_merges_into_one_verdict_that_accept_takes(tmp_path, act: Act, github, gemini, good_baseline):
    """The merge job's agenteval-results is what accept reads (missing before issue 35's fix)."""
    repo, head = workspace(tmp_path, "pr", "sharded.yml", broken=True)
    open_pull(github, good_baseline, head)
    workflow = repo / ".github" / "workflows" / "sharded.yml"
    run = act.run(repo, workflow, "pull_request", pull_request(head), head,
                  secrets={"GITHUB_TOKEN": job_token(github, workflow, "evaluate"), **secrets_of(gemini)},
                  env=model_urls(gemini))
    assert run.job_outcomes("evaluate") == ["succeeded"] * 4, run.log
    assert run.job_outcome("merge") == "failed", run.log  # the broken agent regressed
    (comment,) = github.all_comments()
    assert "set_thermostat" in comment["body"]
    assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(head, "failure")]
    merged = act.artifact_files(run, "agenteval-results")
    assert merged and not [name for name in merged if "-of-" in name], sorted(merged)
    accept_on(tmp_path, act, github, head)


def test_fork_safe_pair_evaluates_without_privileges_then_publishes(tmp_path, act: Act, github, gemini, good_baseline):
    repo, head = workspace(tmp_path, "fork", "fork-safe-evaluate.yml", broken=True)
    open_pull(github, good_baseline, head)
    github.pulls[PR]["head"]["repo"]["full_name"] = "contributor/agent"
    evaluate = repo / ".github" / "workflows" / "fork-safe-evaluate.yml"
    event = pull_request(head)
    event["pull_request"]["head"]["repo"]["full_name"] = "contributor/agent"
    # A fork's run: a read-only token and no secrets, so the judged cases are not evaluated.
    run = act.run(repo, evaluate, "pull_request", event, head,
                  secrets={"GITHUB_TOKEN": job_token(github, evaluate, "evaluate")}, env=model_urls(gemini))
    assert run.job_outcome("evaluate") == "succeeded", run.log  # continue-on-error: the upload still runs
    assert github.all_comments() == [] and not github.check_runs
    assert act.artifact_files(run, "agenteval-results")

    trusted, main_sha = workspace(tmp_path, "main", "fork-safe-publish.yml")
    publish = trusted / ".github" / "workflows" / "fork-safe-publish.yml"
    completed = {"action": "completed", "repository": event["repository"],
                 "workflow": {"name": "agenteval-evaluate", "path": ".github/workflows/fork-safe-evaluate.yml"},
                 "workflow_run": {"id": run.run_id, "name": "agenteval-evaluate", "event": "pull_request",
                                  "status": "completed", "conclusion": "success", "head_sha": head,
                                  "head_branch": "feature", "head_repository": {"full_name": "contributor/agent"},
                                  "pull_requests": []}}  # GitHub lists no PR for a fork's run
    published = act.run(trusted, publish, "workflow_run", completed, main_sha,
                        secrets={"GITHUB_TOKEN": job_token(github, publish, "publish")})
    assert published.job_outcome("publish") == "failed", published.log  # the verdict: a regression
    (comment,) = github.all_comments()
    assert "set_thermostat" in comment["body"]
    assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(head, "failure")]
