"""This repository's own workflows under act (issue 43): the self-test on a pull request.
Opt-in: scripts/workflow_test.sh builds what they need."""

from __future__ import annotations

import pytest

from tests.action.harness import BASE_SHA

from .act import PR, Act, checkout_copy, git_repo, job_token, missing, pull_request

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "runs")

EXAMPLE_BASELINE = "examples/home_automation/.agenteval/baseline.json"


def test_self_test_passes_the_example_and_fails_its_broken_copy(tmp_path, act: Act, github, gemini):
    repo = checkout_copy(tmp_path / "checkout")
    head = git_repo(repo)
    github.add_pull(PR, head_sha=head, head_ref="feature", base_sha=BASE_SHA)
    for ref in (BASE_SHA, head):
        github.set_files(ref, {EXAMPLE_BASELINE: (repo / EXAMPLE_BASELINE).read_text()})
    workflow = repo / ".github" / "workflows" / "self-test.yml"
    run = act.run(repo, workflow, "pull_request", pull_request(head), head,
                  secrets={"GITHUB_TOKEN": job_token(github, workflow, "self-test")},
                  env={"GOOGLE_GEMINI_BASE_URL": gemini.base_url})
    assert run.job_outcome("self-test") == "succeeded", run.log
    assert "::error::self-test" not in run.log, run.log
    (comment,) = github.all_comments()  # the broken copy ran without a token: summary only
    assert "<!-- agenteval-ci:suite=home -->" in comment["body"]
    assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(head, "success")]


def test_release_dry_run_builds_checks_and_tries_the_package_without_publishing(tmp_path, act: Act, github):
    repo = checkout_copy(tmp_path / "checkout")
    head = git_repo(repo)
    workflow = repo / ".github" / "workflows" / "release.yml"
    run = act.run(repo, workflow, "pull_request", pull_request(head), head,
                  secrets={"GITHUB_TOKEN": job_token(github, workflow, "pypi")})
    assert run.job_outcome("dist") == "succeeded", run.log
    assert run.job_outcome("pypi") == "succeeded", run.log
    assert "the wheel agenteval_ci-0.0.0-py3-none-any.whl ran the README's first command" in run.log, run.log
    for job in ("test", "image", "publish", "smoke"):  # a tag's jobs, not a pull request's
        assert run.job_outcome(job) == "not run", run.log
    assert "Run Main What goes to PyPI" in run.log and "Run Main Upload to PyPI" not in run.log, run.log
    assert sorted(act.artifact_files(run, "dist")) == ["agenteval_ci-0.0.0-py3-none-any.whl", "agenteval_ci-0.0.0.tar.gz"]
