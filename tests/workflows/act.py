"""Workflows run by nektos/act over podman, offline, against the loopback fake GitHub.

What stands in for GitHub's platform, and why:
- the runner (`ubuntu-latest`) is the image scripts/workflow_test.sh makes (bookworm with git,
  python3, curl, jq, node and a stub of `gh api`); the action is the image scripts/container_test.sh builds, named in
  a copy of action.yml that act is given for the workflow's `uses:` (--local-repository);
- JavaScript actions (upload/download-artifact, cache) come from AGENTEVAL_ACT_ACTIONS, one
  folder per `owner-repo@ref`, so nothing is fetched from github.com; actions/setup-python,
  setup-node and setup-go, which download their toolchains, are stubs (stubs/) that take the
  runner image's python3, node and go of the version asked for, and pypa/gh-action-pypi-publish
  one that fails (a dry run must never upload);
- each act invocation is a run of the fake GitHub; its uploads and downloads go to the fake
  artifact service of results_service.py, which keeps them as that run's artifacts, so a
  later workflow (publish, accept) downloads them through the REST API, as from GitHub.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import socket
import subprocess
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.action.harness import BASE_SHA, BASELINE, ROOT, TOKEN, comment_event
from tests.fakes.github import FakeGitHub, Token

from .results_service import ResultsService

IMAGE = os.environ.get("AGENTEVAL_CONTAINER_IMAGE", "")
RUNNER = os.environ.get("AGENTEVAL_ACT_RUNNER", "")
ACTIONS = Path(os.environ.get("AGENTEVAL_ACT_ACTIONS", "/work/cache/act-actions"))
ACTION_REPO = "octo/agenteval-ci"  # what the docs' `<owner>/<repo>` placeholder becomes
ACT_TIMEOUT = 900
# Actions that cannot run offline, stood in for by tests/workflows/stubs/ (each says what it does).
_STUB_FOLDER = Path(__file__).parent / "stubs"
STUBS = {"actions/setup-python@v6": _STUB_FOLDER / "setup-python", "actions/setup-node@v5": _STUB_FOLDER / "setup-node",
         "actions/setup-go@v6": _STUB_FOLDER / "setup-go", "pypa/gh-action-pypi-publish@release/v1": _STUB_FOLDER / "pypi-publish"}
PR = 7
ALL_SCOPES = ("actions", "checks", "contents", "issues", "pull-requests", "statuses")


def missing() -> str:
    """Why the workflow tests cannot run here, or '' when they can."""
    for tool in ("podman", "act"):
        if shutil.which(tool) is None:
            return f"needs {tool} (scripts/workflow_test.sh)"
    if not IMAGE or not RUNNER:
        return "needs the images scripts/workflow_test.sh builds (AGENTEVAL_CONTAINER_IMAGE, AGENTEVAL_ACT_RUNNER)"
    return ""


@contextmanager
def podman_service(folder: Path) -> Iterator[str]:
    """`podman system service` on a socket of its own, for act's Docker client."""
    sock = folder / "podman.sock"
    service = subprocess.Popen(["podman", "system", "service", "--time=0", f"unix://{sock}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.1)
        assert sock.exists(), "podman system service did not open its socket within 10 s"
        yield f"unix://{sock}"
    finally:
        service.terminate()
        service.wait(timeout=30)


def action_folder(folder: Path) -> Path:
    """This checkout's action.yml running the prebuilt image instead of building the Dockerfile,
    changed as a release changes it (scripts/release_action_yml.sh)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "action.yml", folder / "action.yml")
    prebuilt(folder / "action.yml")
    return folder


def prebuilt(action_yml: Path) -> None:
    subprocess.run([str(ROOT / "scripts" / "release_action_yml.sh"), IMAGE, str(action_yml)], check=True, capture_output=True)


def tracked_copy(folder: Path) -> Path:
    """A copy of this repository's tracked files, as they are."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True, text=True).stdout
    for name in filter(None, tracked.split("\0")):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


def checkout_copy(folder: Path) -> Path:
    """A copy of this repository's tracked files, its action on the prebuilt image."""
    prebuilt(tracked_copy(folder) / "action.yml")
    return folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ActRun:
    code: int
    log: str
    run_id: int

    def job_outcomes(self, job: str) -> list[str]:
        """'succeeded' or 'failed' for each run of `job` (one per matrix entry), as act's log
        ends each: its lines are labelled `[workflow/job]`, `[workflow/job-N]` in a matrix."""
        label = re.compile(rf"^\[[^\]]*/{re.escape(job)}(-\d+)? *\] +🏁 +Job (succeeded|failed)")
        return [match[2] for match in map(label.match, self.log.splitlines()) if match]

    def job_outcome(self, job: str) -> str:
        """The job's outcome; a matrix fails when one of its jobs fails; 'not run' without any."""
        outcomes = self.job_outcomes(job)
        return "not run" if not outcomes else "failed" if "failed" in outcomes else "succeeded"


@dataclass
class Act:
    """One engine for a test: the podman socket, the action's folder, the fake GitHub and its
    artifact service."""

    docker_host: str
    action: Path
    api_url: str
    service: ResultsService

    @property
    def server_url(self) -> str:
        """The fake by a `.localhost` name: @actions/artifact takes any other host but github.com
        and GHE.com for a GitHub Enterprise Server, where its v4 API does not exist."""
        return self.api_url.replace("127.0.0.1", "github.localhost")

    def run(self, workspace: Path, workflow: Path, event_name: str, event: dict[str, Any], head_sha: str,
            secrets: dict[str, str] | None = None, env: dict[str, str] | None = None, job: str | None = None,
            container_options: str = "", timeout: float = ACT_TIMEOUT) -> ActRun:
        """One run of `workflow` on `event`: a run of the fake GitHub for `head_sha`, concluded
        as act's exit code says. `env` reaches every step (where the fakes of model APIs are)."""
        event_path = workspace.parent / f"{workspace.name}-{event_name}.json"
        event_path.write_text(json.dumps(event))
        run_id, run_env = self.service.start_run(head_sha, workflow.name, event_name)
        command = [
            "act", event_name, "-W", str(workflow), "-e", str(event_path),
            "-P", f"ubuntu-latest={RUNNER}", "--pull=false", "--action-offline-mode", "--rm",
            "--container-daemon-socket", "-",
            "--cache-server-addr", "127.0.0.1", "--cache-server-port", str(free_port()),
            "--env", f"GITHUB_API_URL={self.api_url}", "--env", f"GITHUB_SERVER_URL={self.server_url}",
            "--env", "GITHUB_REPOSITORY=octo/agent", "-s", f"GITHUB_TOKEN={TOKEN}",
            "--local-repository", f"{ACTION_REPO}@main={self.action}",
        ]
        for name, value in {**run_env, **(env or {})}.items():
            command += ["--env", f"{name}={value}"]
        for action, folder in STUBS.items():
            command += ["--local-repository", f"{action}={folder}"]
        for folder in sorted(ACTIONS.glob("*@*")):
            if (folder / "action.yml").exists():
                owner_repo, ref = folder.name.split("@", 1)
                command += ["--local-repository", f"{owner_repo.replace('-', '/', 1)}@{ref}={folder}"]
        for name, value in (secrets or {}).items():
            command += ["-s", f"{name}={value}"]
        if job:
            command += ["-j", job]
        if container_options:  # the job containers', e.g. a volume
            command += ["--container-options", container_options]
        done = subprocess.run(command, cwd=workspace, env={**os.environ, "DOCKER_HOST": self.docker_host}, capture_output=True, text=True, timeout=timeout)
        log = done.stdout + done.stderr
        event_path.with_suffix(".log").write_text(log)  # kept beside the workspace for a failing test's reader
        self.service.end_run(run_id, "success" if done.returncode == 0 else "failure")
        return ActRun(done.returncode, log, run_id)

    def artifact_files(self, run: ActRun, name: str) -> dict[str, bytes]:
        """The files of the artifact `name` that `run` uploaded."""
        artifacts = self.service.artifacts_of(run.run_id)
        assert name in artifacts, f"run {run.run_id} uploaded no artifact {name}, only {sorted(artifacts)}"
        with zipfile.ZipFile(io.BytesIO(artifacts[name])) as archive:
            return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}


def git_repo(folder: Path) -> str:
    """Make `folder` a git repository with one commit on `feature`; its sha."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout.strip()
    git("init", "-q", "-b", "feature")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the PR")
    git("remote", "add", "origin", "https://github.test/octo/agent.git")
    return git("rev-parse", "HEAD")


def with_action(workflow_text: str) -> str:
    """A documented workflow as a user copies it: the placeholder names this action."""
    return workflow_text.replace("<owner>/<repo>@", f"{ACTION_REPO}@")


def job_token(github: FakeGitHub, workflow: Path, job: str) -> str:
    """The GITHUB_TOKEN GitHub gives the job: exactly the permissions the workflow grants it."""
    data = yaml.safe_load(workflow.read_text())
    granted = data["jobs"][job].get("permissions", data.get("permissions", {}))
    if isinstance(granted, str):  # read-all or write-all
        granted = dict.fromkeys(ALL_SCOPES, granted.removesuffix("-all"))
    scopes = {scope.replace("-", "_"): level for scope, level in granted.items()}
    return github.add_token(f"ghs_{workflow.stem}_{job}".replace("-", "_"), Token("github-actions[bot]", scopes))


def pull_request(head_sha: str) -> dict[str, Any]:
    """A pull_request payload as GitHub sends it (the fields act and the action read)."""
    repo = {"full_name": "octo/agent", "name": "agent", "owner": {"login": "octo"}, "default_branch": "main"}
    return {"action": "synchronize", "number": PR, "repository": repo, "sender": {"login": "contributor"},
            "pull_request": {"number": PR, "state": "open",
                             "head": {"sha": head_sha, "ref": "feature", "repo": {"full_name": "octo/agent"}},
                             "base": {"sha": BASE_SHA, "ref": "main", "repo": {"full_name": "octo/agent"}}}}


def accept_pr(act: Act, github: FakeGitHub, repo: Path, workflow: Path, main_sha: str, head: str) -> None:
    """A maintainer's `/agenteval accept` on the PR, run by `workflow` on the default branch: the
    head's results become the branch's baseline in a commit that gets a passing check."""
    github.collaborators["maintainer"] = "maintain"
    github.add_comment(PR, "/agenteval accept", login="maintainer")
    event = comment_event("/agenteval accept", comment_id=github.all_comments()[-1]["id"])
    event["repository"] = pull_request(head)["repository"]
    job = next(iter(yaml.safe_load(workflow.read_text())["jobs"]))
    run = act.run(repo, workflow, "issue_comment", event, main_sha, secrets={"GITHUB_TOKEN": job_token(github, workflow, job)})
    assert run.job_outcome(job) == "succeeded", run.log
    commit = github.commits[-1]
    assert commit["branch"] == "feature"
    assert json.loads(github.files["feature"][BASELINE])["provenance"]["commit"] == head
    assert (commit["sha"], "success") in [(c["head_sha"], c["conclusion"]) for c in github.check_runs.values()]
