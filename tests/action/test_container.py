"""The built container image runs a PR gate against the loopback fake GitHub.

Built and run by scripts/container_test.sh (podman/buildah); skipped without an image.
"""

from __future__ import annotations

import os
import shutil

import pytest

from .harness import BASE_SHA, BASELINE, HEAD_SHA, make_repo, pull_request_event, run_action

IMAGE = os.environ.get("AGENTEVAL_CONTAINER_IMAGE", "")


@pytest.mark.skipif(not IMAGE or shutil.which("podman") is None,
                    reason="needs podman and an image built by scripts/container_test.sh (AGENTEVAL_CONTAINER_IMAGE)")
def test_container_gates_a_regressed_pr(tmp_path, github, good_baseline):
    github.add_pull(7, head_sha=HEAD_SHA, head_ref="feature", base_sha=BASE_SHA)
    github.set_files(BASE_SHA, {BASELINE: good_baseline})
    github.set_files(HEAD_SHA, {BASELINE: good_baseline})
    repo = make_repo(tmp_path / "repo", broken=True)
    run = run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(), container=IMAGE)
    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["verdict"] == "failed"
    assert len(github.all_comments()) == 1 and next(iter(github.check_runs.values()))["conclusion"] == "failure"
