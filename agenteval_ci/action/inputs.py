"""The action's settings, read once from the runner's environment into a typed record."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..schema.project import DEFAULT_PROJECT_FILE
from ..schema.settings import GateSettings
from ..schema.vocabulary import FailOn
from .agent_env import AgentEnv, agent_env_from
from .event import Event, parse_event
from .workflow import input_flag, input_value

MODES = ("auto", "run", "publish", "accept", "merge")
MODE_BY_EVENT = {
    "pull_request": "run", "push": "run", "workflow_dispatch": "run", "schedule": "run",
    "merge_group": "run", "workflow_run": "publish", "issue_comment": "accept",
}
# Events refused whatever the mode: a gate is judged by its worst day, and a warning in a log
# nobody reads does not take back a secret.
REFUSED_EVENTS = {
    "pull_request_target": (
        "the action does not run on pull_request_target: that event runs with a write token and the "
        "repository's secrets, so evaluating the PR's head there runs untrusted code with them, and "
        "evaluating the checked-out base would post the base's verdict on the PR. For fork PRs use the "
        "two workflows of docs/workflows/fork-safe-evaluate.yml and fork-safe-publish.yml (docs/action.md, \"Fork PRs\")"
    ),
}


@dataclass(frozen=True)
class ActionSettings:
    token: str = field(repr=False)  # never printed: masked in the log, hidden from repr
    repository: str
    api_url: str
    server_url: str
    event_name: str
    event: Event = field(repr=False)
    sha: str
    run_id: str
    workspace: Path
    config: str
    mode: str
    suite: str
    shard: str
    fail_on: FailOn | None  # None: agenteval.yaml's
    comment: bool
    check: bool
    install: str
    results_dir: Path
    artifact_name: str
    check_name: str
    app_login: str | None = None  # input app-login: the bot a GitHub App's token comments as
    github_backoff_seconds: float = 0.5  # the first retry's wait; doubles up to 5 retries
    agent_env: AgentEnv | None = None  # the image's environment for the user's packages (agent_env.py)
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)  # the judge's credentials, the terminal's colour

    @property
    def gate_overrides(self) -> GateSettings:
        """The gate settings the inputs give (only `fail-on`), over agenteval.yaml's."""
        return GateSettings.model_construct(fail_on=self.fail_on) if self.fail_on else GateSettings.model_construct()

    @property
    def run_url(self) -> str:
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}" if self.run_id else ""

    def in_workspace(self, path: str | Path) -> Path:
        return Path(path) if Path(path).is_absolute() else self.workspace / path


def resolve_mode(mode: str, event_name: str) -> str:
    if event_name in REFUSED_EVENTS:
        raise UsageError(REFUSED_EVENTS[event_name])
    if mode != "auto":
        return mode
    if event_name not in MODE_BY_EVENT:
        raise UsageError(f"mode 'auto' does not know the event '{event_name}'; set the input 'mode' to one of {', '.join(MODES[1:])}")
    return MODE_BY_EVENT[event_name]


def settings_from_env(env: Mapping[str, str] = os.environ) -> ActionSettings:
    mode = input_value(env, "mode", "auto")
    if mode not in MODES:
        raise UsageError(f"input 'mode' must be one of {', '.join(MODES)}, not {mode!r}")
    fail_on = input_value(env, "fail-on")
    if fail_on and fail_on not in tuple(FailOn):
        raise UsageError(f"input 'fail-on' must be one of {', '.join(FailOn)}, not {fail_on!r}")
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    event_name = env.get("GITHUB_EVENT_NAME", "")
    mode = resolve_mode(mode, event_name)  # before the payload is read: a refused event reads nothing
    suite = input_value(env, "suite")
    return ActionSettings(
        token=input_value(env, "github-token") or env.get("GITHUB_TOKEN", ""),
        repository=env.get("GITHUB_REPOSITORY", ""),
        api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        event_name=event_name,
        event=parse_event(env.get("GITHUB_EVENT_PATH"), event_name),
        sha=env.get("GITHUB_SHA", ""),
        run_id=env.get("GITHUB_RUN_ID", ""),
        workspace=workspace,
        config=input_value(env, "config", DEFAULT_PROJECT_FILE),
        mode=mode,
        suite=suite,
        shard=input_value(env, "shard"),
        fail_on=FailOn(fail_on) if fail_on else None,
        comment=input_flag(env, "comment", True),
        check=input_flag(env, "check", True),
        install=input_value(env, "install"),
        results_dir=workspace / input_value(env, "results-dir", "agenteval-results"),
        artifact_name=input_value(env, "artifact-name", "agenteval-results"),
        check_name=f"agenteval ({suite})" if suite else "agenteval",
        app_login=parse_app_login(input_value(env, "app-login")),
        github_backoff_seconds=backoff_seconds(env.get("AGENTEVAL_GITHUB_BACKOFF_SECONDS", "0.5")),
        agent_env=agent_env_from(env),
        environ=env,
    )


def parse_app_login(value: str | None) -> str | None:
    if value and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}\[bot\]", value):
        raise UsageError(f"input 'app-login' must be a GitHub App's bot login such as my-app[bot], not {value!r}")
    return value or None


def backoff_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 60:
        raise UsageError(f"AGENTEVAL_GITHUB_BACKOFF_SECONDS must be a number of seconds from 0 to 60, not {value!r}")
    return seconds
