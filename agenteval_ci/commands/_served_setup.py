"""Before `agenteval init`'s first run: what a served agent needs made on this machine (its own
virtualenv, its packages), made with the very command the workflow runs in CI.

A served agent cannot start without it, and a first run that cannot start its agent writes no
baseline; so init runs the command, and when it fails says why and skips the first run.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..files.served_projects import ServedProject
from ._install_try import run_shell, summary

SETUP_TIMEOUT_SECONDS = 1800.0  # a first install downloads the agent's whole dependency tree


def setup_failure(root: Path, served: list[ServedProject], timeout: float = SETUP_TIMEOUT_SECONDS) -> str | None:
    """Run each served project's install where the workflow runs it, unless what it makes is there;
    why the first that fails failed, or None when all are made."""
    for project in served:
        where = root / project.install_dir
        if not project.install or (project.made and (where / project.made).exists()):
            continue
        print(f"\nmaking what {project.sdk} needs to start, as the workflow does: {project.install}", flush=True)
        code, output = run_shell(project.install, where, os.environ, timeout)  # an installer sees the process's environment
        if code != 0:
            why = f"still running after {timeout:g}s" if code is None else summary(output) or f"exit code {code}"
            return f"`{project.install}` failed ({why})"
    return None


def finishing_command(served: list[ServedProject]) -> str:
    """The one line that makes the first baseline once what stopped init is fixed."""
    setups = [p.install if p.install_dir == "." else f"(cd {p.install_dir} && {p.install})" for p in served if p.install]
    return " && ".join([*dict.fromkeys(setups), "agenteval run --new-baseline", "agenteval accept"])
