"""The workflows `agenteval init` writes, run by act (issue 43): for an agent agenteval imports,
the gate on pull_request fails a regression of the tools and its accept workflow takes it.
Opt-in: scripts/workflow_test.sh builds what they need."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.action.harness import BASE_SHA, BASELINE, ROOT
from tests.commands.test_init import SAMPLE, shop_model
from tests.fakes.gemini import FakeGemini

from .act import PR, Act, accept_pr, git_repo, job_token, missing, pull_request, with_action

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "runs")


def initialised(folder: Path, gemini: FakeGemini) -> Path:
    """The newcomer's ADK project after `agenteval init` (its baseline made with the fake model),
    the workflows' `uses:` naming the action as a user's repository would."""
    shutil.copytree(SAMPLE, folder)
    (folder / ".git").mkdir()  # the repository root
    env = {**os.environ, **gemini.env(), "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PIP_NO_INDEX": "1"}
    env.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
    init = subprocess.run([sys.executable, "-m", "agenteval_ci", "init"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600)
    assert init.returncode == 0, init.stdout + init.stderr
    shutil.rmtree(folder / ".git")
    for workflow in (folder / ".github" / "workflows").glob("*.yml"):
        workflow.write_text(with_action(workflow.read_text()))
    return folder


def test_init_gate_fails_a_tool_regression_and_its_accept_takes_it(tmp_path, act: Act, github):
    with FakeGemini(responder=shop_model) as gemini:
        project = initialised(tmp_path / "shop", gemini)
        baseline = (project / BASELINE).read_text()
        tools = project / "garden_shop" / "tools.py"
        tools.write_text(tools.read_text().replace("ORDERS.get(order_id.upper())", "ORDERS.get(order_id.lower())"))
        head = git_repo(project)
        github.add_pull(PR, head_sha=head, head_ref="feature", base_sha=BASE_SHA)
        for ref in (BASE_SHA, head, "feature"):
            github.set_files(ref, {BASELINE: baseline})
        gate = project / ".github" / "workflows" / "agenteval.yml"
        run = act.run(project, gate, "pull_request", pull_request(head), head,
                      secrets={"GITHUB_TOKEN": job_token(github, gate, "agenteval"), "GOOGLE_API_KEY": "fake-key"},
                      env={"GOOGLE_GEMINI_BASE_URL": gemini.base_url})
        assert run.job_outcome("agenteval") == "failed", run.log
        (comment,) = github.all_comments()
        assert "order_shipped" in comment["body"], comment["body"]  # the case the changed tool regressed
        assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(head, "failure")]
        assert act.artifact_files(run, "agenteval-results")

        main = tmp_path / "main"
        shutil.copytree(project, main, ignore=shutil.ignore_patterns(".git"))
        accept = main / ".github" / "workflows" / "agenteval-accept.yml"
        accept_pr(act, github, main, accept, git_repo(main), head)
