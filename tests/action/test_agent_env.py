"""The user's `install` beside agenteval's own packages: a working run, or one message naming the conflict.

The action runs as the image runs it (AGENTEVAL_AGENT_ENV names the agent environment); pip
installs offline from a folder of tiny wheels named like real conflicting pins.
"""

from __future__ import annotations

import importlib.metadata
import os
import sysconfig
from pathlib import Path

import pytest

from agenteval_ci.action.agent_env import ENV_VAR, PTH_FILE, conflict_lines, create

from .harness import make_repo, pull_request_event, run_action
from .test_run_mode import open_pull
from .wheels import import_home_helpers, user_wheels

OUR_ADK = importlib.metadata.version("google-adk")
OUR_PYDANTIC = importlib.metadata.version("pydantic")


@pytest.fixture
def agent_env(tmp_path) -> Path:
    return create(tmp_path / "agent-env").root


@pytest.fixture
def wheels(tmp_path) -> Path:
    return user_wheels(tmp_path / "wheels")


def run_with_install(tmp_path, github, good_baseline, agent_env: Path, install: str, repo: Path | None = None):
    open_pull(github, good_baseline)
    repo = repo or make_repo(tmp_path / "repo")
    # The host's pip configuration (indexes, constraints) stays out: only what the test names.
    env = {ENV_VAR: str(agent_env), "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INPUT": "1"}
    return run_action(tmp_path, repo, github.base_url, "pull_request", pull_request_event(),
                      inputs={"install": install}, extra_env=env)


def installed_in(agent_env: Path) -> set[str]:
    site = next(agent_env.glob("lib/python*/site-packages"))
    return {d.metadata["Name"] for d in importlib.metadata.distributions(path=[str(site)])}


def test_the_agent_env_sees_our_packages_and_keeps_their_versions(agent_env):
    site = next(agent_env.glob("lib/python*/site-packages"))
    assert sysconfig.get_path("purelib") in (site / PTH_FILE).read_text().splitlines()
    constraints = (agent_env / "agenteval-constraints.txt").read_text().splitlines()
    assert f"google-adk=={OUR_ADK}" in constraints and f"pydantic=={OUR_PYDANTIC}" in constraints
    assert not any(line.startswith(("pip==", "agenteval-ci==")) for line in constraints)


def test_a_google_adk_1_pin_fails_with_one_message_naming_the_conflict(tmp_path, github, good_baseline, agent_env, wheels):
    run = run_with_install(tmp_path, github, good_baseline, agent_env,
                           f"pip install --no-index --find-links {wheels} google-adk==1.18.0")
    assert run.code == 2, run.stdout + run.stderr
    (message,) = [line for line in run.stderr.splitlines() if line.startswith("agenteval: error:")]
    assert "google-adk==1.18.0" in message and f"(constraint) google-adk=={OUR_ADK}" in message
    assert "google-adk" not in installed_in(agent_env) and importlib.metadata.version("google-adk") == OUR_ADK
    assert github.all_comments() == [] and not github.check_runs


def test_a_dependency_needing_another_pydantic_names_it(tmp_path, github, good_baseline, agent_env, wheels):
    run = run_with_install(tmp_path, github, good_baseline, agent_env,
                           f"python -m pip install --no-index --find-links {wheels} legacy-lib")
    assert run.code == 2, run.stdout + run.stderr
    assert "legacy-lib 1.0 depends on pydantic<2.10" in run.stderr and f"pydantic=={OUR_PYDANTIC}" in run.stderr


def test_an_install_that_ignores_our_constraints_is_caught_before_the_agent_runs(tmp_path, github, good_baseline, agent_env, wheels):
    # --isolated drops PIP_CONSTRAINT: pip installs the other pydantic beside ours, which would hide it.
    run = run_with_install(tmp_path, github, good_baseline, agent_env,
                           f"python -m pip install --isolated --no-index --find-links {wheels} pydantic==2.9.0")
    assert run.code == 2, run.stdout + run.stderr
    assert f"pydantic 2.9.0 (agenteval runs {OUR_PYDANTIC})" in run.stderr
    assert "pydantic" in installed_in(agent_env) and importlib.metadata.version("pydantic") == OUR_PYDANTIC
    assert not github.check_runs


def test_an_agent_importing_a_package_the_install_added_passes(tmp_path, github, good_baseline, agent_env, wheels):
    repo = make_repo(tmp_path / "repo")
    import_home_helpers(repo)
    run = run_with_install(tmp_path, github, good_baseline, agent_env,
                           f"pip install --no-index --find-links {wheels} home-helpers", repo=repo)
    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["verdict"] == "passed" and "home-helpers" in installed_in(agent_env)
    (check,) = github.check_runs.values()
    assert check["conclusion"] == "success"


PIP_CONFLICT = """\
ERROR: Cannot install google-adk==1.18.0 because these package versions have conflicting dependencies.

The conflict is caused by:
    The user requested google-adk==1.18.0
    The user requested (constraint) google-adk==2.13.0

To fix this you could try to:
"""
UV_CONFLICT = """\
Using Python 3.11.7 environment at: /opt/agent-env
error: No solution found when resolving dependencies
  cause: Because all versions of legacy-lib depend on pydantic<2.10 and pydantic==2.14.3, we can conclude that all versions of legacy-lib cannot be used.
         And because you require legacy-lib, we can conclude that your requirements are unsatisfiable.
"""


def test_the_conflict_is_read_from_pips_and_uvs_own_words():
    assert conflict_lines(PIP_CONFLICT) == ["The user requested google-adk==1.18.0", "The user requested (constraint) google-adk==2.13.0"]
    (cause, more) = conflict_lines(UV_CONFLICT)
    assert "legacy-lib depend on pydantic<2.10 and pydantic==2.14.3" in cause and more.startswith("And because")
    assert conflict_lines("ERROR: No matching distribution found for nothing-here") == []
