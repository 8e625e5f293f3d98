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


def checkout_as_git_source(folder: Path) -> Path:
    """This checkout's HEAD as the repository the served workflow's `pip install
    'agenteval-ci[adk] @ git+https://github.com/<owner>/<repo>@main'` clones: a bare clone with
    HEAD as main, mounted in the runner and named for that URL by git's `insteadOf`."""
    bare = folder / "agenteval-ci.git"
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "clone", "-q", "--bare", "--no-local", str(ROOT), str(bare)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(bare), "update-ref", "refs/heads/main", head], check=True, capture_output=True)
    return bare


def test_init_served_python_gate_runs_the_app_from_its_own_virtualenv(tmp_path, act: Act, github):
    """An app pinning a google-adk the action cannot import: init writes gate_served.yml, whose
    job makes the app's virtualenv, installs agenteval on Python 3.12, runs the suites against
    `adk api_server` and publishes with the action's merge mode (main's first run: thresholds)."""
    from tests.commands.test_init_keys import weather_model

    project = tmp_path / "weather_desk"
    shutil.copytree(ROOT / "tests" / "data" / "weather_desk", project)
    (project / "requirements.txt").write_text("google-adk==1.18.0\n")
    (project / ".git").mkdir()
    init = subprocess.run([sys.executable, "-m", "agenteval_ci", "init", "--no-run", "."], cwd=project, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}, timeout=300)
    assert init.returncode == 0, init.stdout + init.stderr
    shutil.rmtree(project / ".git")
    gate = project / ".github" / "workflows" / "agenteval.yml"
    assert "adk_api_server" in (project / "agenteval.yaml").read_text() and "mode: merge" in gate.read_text()
    gate.write_text(with_action(gate.read_text()))
    head = git_repo(project)
    github.add_pull(PR, head_sha=head, head_ref="feature", base_sha=BASE_SHA)
    source = checkout_as_git_source(tmp_path)
    git_source = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "url.file:///srv/agenteval-ci.git.insteadOf",
                  "GIT_CONFIG_VALUE_0": "https://github.com/octo/agenteval-ci"}
    with FakeGemini(responder=weather_model) as gemini:
        run = act.run(project, gate, "pull_request", pull_request(head), head,
                      secrets={"GITHUB_TOKEN": job_token(github, gate, "agenteval"), "GEMINI_API_KEY": "fake-key"},
                      env={"GOOGLE_GEMINI_BASE_URL": gemini.base_url, **git_source},
                      container_options=f"-v {source}:/srv/agenteval-ci.git:ro")
    assert run.job_outcome("agenteval") == "succeeded", run.log
    (comment,) = github.all_comments()
    assert "<!-- agenteval-ci:suite=default -->" in comment["body"], comment["body"]
    assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(head, "success")]
    assert "results-1-of-1.json" in "".join(act.artifact_files(run, "agenteval-results"))
