"""The built container image runs a PR gate against the loopback fake GitHub, and keeps the
user's `install` beside its own packages (docs/action.md, "Your dependencies").

Built and run by scripts/container_test.sh (podman/buildah); skipped without an image.
"""

from __future__ import annotations

import os
import shutil

import pytest

from .harness import make_repo, pull_request_event, run_action
from .test_run_mode import open_pull
from .wheels import import_home_helpers, user_wheels

IMAGE = os.environ.get("AGENTEVAL_CONTAINER_IMAGE", "")

pytestmark = pytest.mark.skipif(
    not IMAGE or shutil.which("podman") is None,
    reason="needs podman and an image built by scripts/container_test.sh (AGENTEVAL_CONTAINER_IMAGE)")


def test_container_gates_a_regressed_pr(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo", broken=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), container=IMAGE)
    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["verdict"] == "failed"
    assert len(github.all_comments()) == 1 and next(iter(github.check_runs.values()))["conclusion"] == "failure"


def test_container_refuses_an_install_pinning_google_adk_1_with_one_message(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo")
    user_wheels(repo / "wheels")
    install = "pip install --no-index --find-links wheels google-adk==1.18.0"
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(),
                     inputs={"install": install}, container=IMAGE)
    assert run.code == 2, run.stdout + run.stderr
    (message,) = [line for line in run.stderr.splitlines() if line.startswith("agenteval: error:")]
    assert "google-adk==1.18.0" in message and "(constraint) google-adk==2.13.0" in message
    assert not github.check_runs


def test_container_runs_an_agent_that_imports_what_install_added(tmp_path, github, good_baseline):
    open_pull(github, good_baseline)
    repo = make_repo(tmp_path / "repo")
    user_wheels(repo / "wheels")
    import_home_helpers(repo)
    install = "pip install --no-index --find-links wheels home-helpers"
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(),
                     inputs={"install": install}, container=IMAGE)
    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["verdict"] == "passed" and "Running pip as the 'root' user" not in run.stdout
