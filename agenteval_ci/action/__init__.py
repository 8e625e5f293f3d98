"""The GitHub Action: read the runner's environment once, run one mode, map errors to exit codes.

Modes: run (evaluate and publish), publish (a workflow_run job posting a trusted verdict
for results an unprivileged job uploaded), accept (`/agenteval accept` comments) and
merge (join shard results into one verdict). See docs/action.md.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

import pydantic

from ..agent_env import run_install, use_agent_env
from ..errors import EXIT_BUG, AgentevalError, InputError, Problem, UsageError
from ..github import BadArtifact, GitHubClient, GitHubError, Repo, new_session
from ..loader import problems_from
from ..readers import MAX_FILE_BYTES, decode_text, parse_json
from ..results_file import read_results, write_atomic
from ..workflow import Runner
from .event import PullFile, WorkflowRunEvent
from .publish import Target, choose_baseline, publish
from .settings import ActionSettings, settings_from_env

PULL_FILE = "pull.json"  # which PR and head a results artifact belongs to, for mode publish


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


def run_suites(s: ActionSettings, out: Path) -> None:
    from ..cli import dispatch  # the CLI's own `run`, so the action and the CLI agree

    # --no-gate: the head's baseline is not ours to grade with; publish compares with the base's.
    argv = ["run", "--config", str(s.in_workspace(s.config)), "--json", str(out), "--no-gate"]
    argv += ["--suite", s.suite] if s.suite else []
    argv += ["--shard", s.shard] if s.shard else []
    dispatch(argv)


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
    results_path = s.results_dir / ("results.json" if not s.shard else f"results-{s.shard.replace('/', '-of-')}.json")
    run_suites(s, results_path)
    target = target_for_pull(s, repo)
    if target.pull is not None:
        write_atomic(s.results_dir / PULL_FILE, PullFile(number=target.pull.number, head_sha=target.head_sha).model_dump_json() + "\n")
    if s.shard:  # one shard's verdict is not the PR's: the merge job publishes
        runner.set_output("results-path", str(results_path))
        return 0
    return publish(s, runner, repo, read_results(results_path), choose_baseline(s, repo, target.pull), target, results_path)


def merge_mode(s: ActionSettings, runner: Runner) -> int:
    from ..cli import dispatch

    shards = sorted(str(p) for p in s.results_dir.rglob("results-*.json"))
    if not shards:
        raise UsageError(f"mode merge found no shard results (results-*.json) under {s.results_dir}")
    merged = s.results_dir / "results.json"
    dispatch(["merge", *shards, "--json", str(merged)])
    repo = github_repo(s)
    target = target_for_pull(s, repo)
    return publish(s, runner, repo, read_results(merged), choose_baseline(s, repo, target.pull), target, merged)


def publish_mode(s: ActionSettings, runner: Runner) -> int:
    """workflow_run: fetch the evaluating run's artifact and publish it; nothing from the PR is executed."""
    repo = github_repo(s)
    if repo is None:
        raise UsageError("mode publish needs the github-token input")
    if not isinstance(s.event, WorkflowRunEvent):
        raise UsageError(f"mode publish runs on a workflow_run event, not {s.event_name or 'no event'!r} "
                         "($GITHUB_EVENT_NAME; see docs/workflows/fork-safe-publish.yml)")
    run = s.event.workflow_run
    files = download_results(s, repo, run.id)
    results_path = s.results_dir / "results.json"
    write_atomic(results_path, files["results.json"])
    pull = pull_for_run(repo, files.get(PULL_FILE), run.head_sha)
    target = Target(pull, run.head_sha, True)
    return publish(s, runner, repo, read_results(results_path), choose_baseline(s, repo, pull), target, results_path)


def download_results(s: ActionSettings, repo: Repo, run_id: int) -> dict[str, str]:
    """The artifact's results.json and pull.json as text (an artifact a fork's run uploaded is
    untrusted: its files go through the guarded readers like any input)."""
    artifact = next((a for a in repo.artifacts(run_id) if a.name == s.artifact_name and not a.expired), None)
    if artifact is None:
        raise UsageError(f"run {run_id} has no artifact named '{s.artifact_name}' (input artifact-name)")
    try:
        files = {Path(name).name: data for name, data in repo.download_artifact(artifact.id, MAX_FILE_BYTES).items()}
    except BadArtifact as exc:
        raise InputError(Problem(f"artifact {s.artifact_name} of run {run_id}", "$", str(exc))) from None
    if "results.json" not in files:
        raise InputError(Problem(f"artifact {s.artifact_name}", "$", "has no results.json"))
    where = f"artifact {s.artifact_name} of run {run_id}: "
    return {name: decode_text(where + name, files[name]) for name in ("results.json", PULL_FILE) if name in files}


def read_pull_file(text: str | None, where: str = PULL_FILE) -> PullFile | None:
    """pull.json of a results artifact: which PR and head it claims to belong to."""
    if text is None:
        return None
    try:
        return PullFile.model_validate(parse_json(where, text))
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, where, PullFile)) from None


def pull_for_run(repo: Repo, pull_file: str | None, head_sha: str):
    """The PR the artifact claims, trusted only if that PR's head is the run's head."""
    claimed = read_pull_file(pull_file)
    if claimed is None:
        return None
    number = claimed.number
    pull = repo.pull(number)
    if pull.head.sha != head_sha:
        raise UsageError(f"PR #{number}'s head is {pull.head.sha[:7]}, not the evaluated {head_sha[:7]}; a newer run will publish")
    return pull


def dispatch(s: ActionSettings, runner: Runner) -> int:
    from .accept import accept_mode

    modes = {"run": run_mode, "publish": publish_mode, "merge": merge_mode, "accept": accept_mode}
    return modes[s.mode](s, runner)


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    runner = Runner(env)
    try:
        settings = settings_from_env(env)
        runner.mask(settings.token)
        os.chdir(settings.workspace)
        return dispatch(settings, runner)
    except AgentevalError as exc:
        runner.error(f"agenteval: {exc}")
        print(f"agenteval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except GitHubError as exc:  # GitHub still failing after the retries: not our bug, not the user's input
        # Exit 3 without a traceback; a verdict already reached is in the job summary and outputs.
        runner.error(f"agenteval: {exc}")
        print(f"agenteval: error: {exc}", file=sys.stderr)
        return EXIT_BUG
    except Exception:
        traceback.print_exc()
        print("agenteval: unexpected error; please report it with the traceback above", file=sys.stderr)
        return EXIT_BUG
