"""The user's packages beside agenteval's own: the agent environment of the action's image.

agenteval and its pinned dependencies live in one virtualenv; the workflow's `install`
command runs with a second one, the agent environment, first on PATH. That environment sees
agenteval's packages (a .pth file), so pip does not download google-adk again, but it cannot
change them: they lie outside it, and pip is told to keep agenteval's versions (constraints).
The agent runs inside agenteval's process, where agenteval's packages come first, so a user
package of another version would silently lose: that is an error naming the package instead.
See docs/action.md, "Your dependencies".
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..files.agent_env import CONSTRAINTS, ENV_VAR, PTH_FILE, UNPINNED, AgentEnv, agent_env_from, conflict_lines, create, our_versions, versions_in

__all__ = ["CONSTRAINTS", "ENV_VAR", "PTH_FILE", "AgentEnv", "Shadowed", "agent_env_from", "conflict_lines", "create",
           "run_install", "shadowed", "use_agent_env"]

@dataclass(frozen=True)
class Shadowed:
    """A package the user installed that agenteval's own version hides in its process."""

    name: str
    theirs: str
    ours: str


def run_install(command: str, cwd: Path, env: Mapping[str, str]) -> None:
    """Runs the workflow author's command, echoing its output to the log and keeping it to name a conflict."""
    process = subprocess.Popen(command, shell=True, cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    kept = []
    assert process.stdout is not None
    for line in process.stdout:
        print(line, end="", flush=True)
        kept.append(line)
    if process.wait() != 0:
        conflict = conflict_lines("".join(kept))
        if conflict:
            raise UsageError(
                f"the 'install' command asks for versions that conflict with agenteval's own ({'; '.join(conflict)}); "
                "the agent runs inside agenteval's process, so it must work with agenteval's versions "
                "(docs/action.md, 'Your dependencies')")
        raise UsageError(f"the 'install' command failed: {command}")


def shadowed(agent_site: Path, ours: Mapping[str, str]) -> list[Shadowed]:
    theirs = versions_in([str(agent_site)])
    return [Shadowed(name, v, ours[name]) for name, v in sorted(theirs.items())
            if name in ours and ours[name] != v and name not in UNPINNED]


def use_agent_env(agent: AgentEnv) -> None:
    """After the install: refuse a package agenteval's own would hide, then let the agent import the rest."""
    agent_site = agent.site_packages()
    hidden = shadowed(agent_site, our_versions())
    if hidden:
        listed = ", ".join(f"{h.name} {h.theirs} (agenteval runs {h.ours})" for h in hidden)
        raise UsageError(
            f"the 'install' command put packages in the agent environment that agenteval's own versions would "
            f"replace in its process: {listed}; install versions that agree with agenteval's "
            "(docs/action.md, 'Your dependencies')")
    site.addsitedir(str(agent_site))  # after ours, with its .pth files (editable installs)
    os.environ["PATH"] = f"{agent.bin}{os.pathsep}{os.environ.get('PATH', '')}"  # the agent's subprocesses
    os.environ["VIRTUAL_ENV"] = str(agent.root)


if __name__ == "__main__":  # the image's build: python -m agenteval_ci.action.agent_env /opt/agent-env
    create(Path(sys.argv[1]))
