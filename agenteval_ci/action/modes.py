"""The action's modes but accept (accept.py): run (evaluate and publish), merge (join shard
results into one verdict) and publish (a workflow_run job posting a trusted verdict for
results an unprivileged job uploaded). Each calls the same typed commands as the CLI."""

from __future__ import annotations

import os
import sys

from ..commands._common import Output
from ..commands.merge import MergeSettings, merge_shards
from ..commands.run import RunSettings, run
from ..core.shards import parse_shard
from ..errors import UsageError
from ..files.readers import check_arguments
from ..files.results_file import ResultsFile
from ..files.writing import write_atomic
from ..github import GitHubClient, Repo, new_session
from ..report.console import Style
from ..runner.progress import wants_bar
from . import artifact
from .agent_env import run_install, use_agent_env
from .event import PullFile, WorkflowRunEvent
from .inputs import ActionSettings
from .publish import Target, choose_baseline, publish
from .workflow import Runner


def github_repo(s: ActionSettings) -> Repo | None:
    if not s.token or not s.repository:
        return None
    return Repo(GitHubClient(new_session(s.token), s.api_url, backoff_seconds=s.github_backoff_seconds), s.repository, s.app_login)


def install_requirements(s: ActionSettings) -> None:
    """The workflow author's `install` command (never anything from a PR comment); in the image,
    into the agent environment beside agenteval's own (agent_env.py)."""
    agent = s.agent_env
    if s.install:
        print(f"agenteval: installing: {s.install}", flush=True)
        env = agent.install_env(os.environ) if agent else os.environ
        run_install(s.install, s.workspace, env)
    if agent:
        use_agent_env(agent)


def run_suites(s: ActionSettings, out: str) -> None:
    """The CLI's own `run`, so the action and the CLI agree; without the gate: the head's
    baseline is not ours to grade with, publish compares with the base's."""
    config = str(s.in_workspace(s.config))
    check_arguments([config, out, s.suite, s.shard])
    settings = RunSettings(
        shard=parse_shard(s.shard) if s.shard else None, config=config, suites=(s.suite,) if s.suite else (), compare=False,
        output=Output(json=out, style=Style.of(sys.stdout, s.environ)), progress_bar=wants_bar(sys.stderr, s.environ),
        environ=s.environ,
    )
    run(settings)


def target_for_pull(s: ActionSettings, repo: Repo | None) -> Target:
    pull = s.event.pull_request.typed() if s.event.pull_request else None
    head_sha = pull.head.sha if pull else s.sha
    if repo is None:
        return Target(pull, head_sha, False, "no github-token")
    if pull is not None and pull.is_fork:
        return Target(pull, head_sha, False, "a fork PR's token is read-only; use the workflow_run pattern in docs/action.md")
    return Target(pull, head_sha, True)


def run_mode(s: ActionSettings, runner: Runner) -> int:
    repo = github_repo(s)
    install_requirements(s)
    results_path = s.results_dir / (artifact.shard_results(s.shard) if s.shard else artifact.RESULTS)
    run_suites(s, str(results_path))
    target = target_for_pull(s, repo)
    if target.pull is not None:
        write_atomic(s.results_dir / artifact.PULL, PullFile(number=target.pull.number, head_sha=target.head_sha).model_dump_json() + "\n")
    if s.shard:  # one shard's verdict is not the PR's: the merge job publishes
        runner.set_output("results-path", str(results_path))
        return 0
    return publish(s, runner, repo, ResultsFile(results_path).digest(), choose_baseline(s, repo, target.pull), target, results_path)


def merge_mode(s: ActionSettings, runner: Runner) -> int:
    shards = sorted(str(p) for p in s.results_dir.rglob(artifact.SHARD_RESULTS))
    if not shards:
        raise UsageError(f"mode merge found no shard results ({artifact.SHARD_RESULTS}) under {s.results_dir}")
    merged = s.results_dir / artifact.RESULTS
    check_arguments([*shards, str(merged)])
    merge_shards(MergeSettings(results=tuple(shards), json=str(merged)))
    repo = github_repo(s)
    target = target_for_pull(s, repo)
    return publish(s, runner, repo, ResultsFile(merged).digest(), choose_baseline(s, repo, target.pull), target, merged)


def publish_mode(s: ActionSettings, runner: Runner) -> int:
    """workflow_run: fetch the evaluating run's artifact and publish it; nothing from the PR is executed."""
    repo = github_repo(s)
    if repo is None:
        raise UsageError("mode publish needs the github-token input")
    if not isinstance(s.event, WorkflowRunEvent):
        raise UsageError(f"mode publish runs on a workflow_run event, not {s.event_name or 'no event'!r} "
                         "($GITHUB_EVENT_NAME; see docs/workflows/fork-safe-publish.yml)")
    workflow_run = s.event.workflow_run
    downloaded = artifact.download_results(s, repo, workflow_run.id)
    pull = artifact.pull_for_run(repo, downloaded.pull, workflow_run.head_sha)
    target = Target(pull, workflow_run.head_sha, True)
    return publish(s, runner, repo, ResultsFile(downloaded.results).digest(), choose_baseline(s, repo, pull), target, downloaded.results)
