"""What `agenteval init` writes for an ADK app in another language (gate_served.yml), run by act
through a PR: the app scaffolded as its user has it (tests/workflows/apps/), init run on it for
real, its workflows committed; the gate on pull_request sets up the toolchain (the setup-*
stubs: the runner image's own node and go), installs the app's dependencies, starts it and
posts the comment and a passing check; a commit that breaks the app's tool fails it, and the
accept workflow init wrote takes that change as the baseline.
Opt-in: scripts/workflow_test.sh builds what they need."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.action.harness import BASE_SHA, ROOT
from tests.commands.test_init_keys import weather_model
from tests.fakes.gemini import FakeGemini

from .act import PR, Act, ActRun, accept_pr, git_repo, job_token, missing, pull_request, with_action
from .test_init_workflows import checkout_as_git_source

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "runs")

APPS = Path(__file__).parent / "apps"
GIT_SOURCE = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "url.file:///srv/agenteval-ci.git.insteadOf",
              "GIT_CONFIG_VALUE_0": "https://github.com/octo/agenteval-ci"}


@dataclass(frozen=True)
class App:
    folder: str  # under apps/
    stub_says: str  # the toolchain stub's line in the log
    tool_file: str  # where Oslo's forecast is
    snow: str  # Oslo's forecast as written there; the regression makes it rain


LANGUAGES = {
    # @google/adk's LlmAgent under @google/adk-devtools' `adk api_server`, its model the fake Gemini
    "typescript": App("node", "setup-node stub: using /opt/node-22", "agent.ts", "oslo: 'snow'"),
    # the API of ADK's launcher, served by the Go standard library (ADK for Go cannot be fetched here)
    "go": App("go", "setup-go stub: the runner's go is 1.19", "main.go", '"oslo": "snow"'),
}


def initialised(app: App, folder: Path) -> Path:
    """The app after `agenteval init` (no first run: its toolchain is the runner's), the
    workflows' `uses:` naming the action as a user's repository would."""
    shutil.copytree(APPS / app.folder, folder)
    (folder / ".git").mkdir()  # the repository root
    init = subprocess.run([sys.executable, "-m", "agenteval_ci", "init", "--no-run", "."], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}, timeout=300)
    assert init.returncode == 0, init.stdout + init.stderr
    shutil.rmtree(folder / ".git")
    for workflow in (folder / ".github" / "workflows").glob("*.yml"):
        workflow.write_text(with_action(workflow.read_text()))
    return folder


def commit(folder: Path, message: str) -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              check=True, capture_output=True, text=True).stdout.strip()
    git("commit", "-q", "-am", message)
    return git("rev-parse", "HEAD")


def gate_run(act: Act, github: Any, project: Path, head: str, gemini: FakeGemini, source: Path) -> ActRun:
    """The gate init wrote, on the PR at `head`."""
    github.add_pull(PR, head_sha=head, head_ref="feature", base_sha=BASE_SHA)
    gate = project / ".github" / "workflows" / "agenteval.yml"
    return act.run(project, gate, "pull_request", pull_request(head), head,
                   secrets={"GITHUB_TOKEN": job_token(github, gate, "agenteval"), "GOOGLE_API_KEY": "fake-key"},
                   env={"GOOGLE_GEMINI_BASE_URL": gemini.base_url, **GIT_SOURCE},
                   container_options=f"-v {source}:/srv/agenteval-ci.git:ro")


@pytest.mark.parametrize("language", LANGUAGES)
def test_init_served_gate_passes_the_app_and_fails_a_broken_tool(language, tmp_path, act: Act, github):
    app = LANGUAGES[language]
    project = initialised(app, tmp_path / "weather_desk")
    assert "mode: merge" in (project / ".github" / "workflows" / "agenteval.yml").read_text()
    head = git_repo(project)
    source = checkout_as_git_source(tmp_path)
    with FakeGemini(responder=weather_model) as gemini:
        passing = gate_run(act, github, project, head, gemini, source)
        assert passing.job_outcome("agenteval") == "succeeded", passing.log
        assert app.stub_says in passing.log, passing.log
        (comment,) = github.all_comments()
        assert "<!-- agenteval-ci:suite=default -->" in comment["body"], comment["body"]
        assert [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()] == [(head, "success")]

        tool = project / app.tool_file
        tool.write_text(tool.read_text().replace(app.snow, app.snow.replace("snow", "rain")))
        broken = commit(project, "Oslo's forecast from the new service")
        failing = gate_run(act, github, project, broken, gemini, source)
    assert failing.job_outcome("agenteval") == "failed", failing.log
    (comment,) = github.all_comments()  # the same sticky comment, updated
    assert "oslo" in comment["body"], comment["body"]
    assert (broken, "failure") in [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()]
    assert "results-1-of-1.json" in "".join(act.artifact_files(failing, "agenteval-results"))

    main = tmp_path / "main"  # the accept workflow init wrote takes the change, from the default branch
    shutil.copytree(project, main, ignore=shutil.ignore_patterns(".git"))
    accept_pr(act, github, main, main / ".github" / "workflows" / "agenteval-accept.yml", git_repo(main), broken)
