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

import importlib.metadata
import os
import re
import site
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

ENV_VAR = "AGENTEVAL_AGENT_ENV"  # set by the image: where the agent environment is
CONSTRAINTS = "agenteval-constraints.txt"
PTH_FILE = "agenteval.pth"
# Not pinned for the agent environment: its installer's tools (which versions they have changes
# nothing in the agent's process) and agenteval itself (never a distribution in the image).
UNPINNED = frozenset({"pip", "setuptools", "wheel", "agenteval-ci"})


@dataclass(frozen=True)
class Shadowed:
    """A package the user installed that agenteval's own version hides in its process."""

    name: str
    theirs: str
    ours: str


@dataclass(frozen=True)
class AgentEnv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def constraints(self) -> Path:
        return self.root / CONSTRAINTS

    def site_packages(self) -> Path:
        """Asked of the environment's own interpreter, so the Python version never has to be guessed."""
        code = "import sysconfig; print(sysconfig.get_path('purelib'))"
        return Path(subprocess.run([str(self.bin / "python"), "-c", code], capture_output=True, text=True, check=True).stdout.strip())

    def install_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """The environment of the `install` command: the agent env active, agenteval's versions as constraints."""
        env = dict(base)
        env["VIRTUAL_ENV"] = str(self.root)
        env["PATH"] = f"{self.bin}{os.pathsep}{base.get('PATH', '')}"
        for name in ("PIP_CONSTRAINT", "UV_CONSTRAINT"):  # pip takes a space-separated list, uv too
            env[name] = " ".join(filter(None, [base.get(name, ""), str(self.constraints)]))
        return env


def agent_env_from(env: Mapping[str, str]) -> AgentEnv | None:
    root = env.get(ENV_VAR, "")
    return AgentEnv(Path(root)) if root else None


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def versions_in(paths: Iterable[str]) -> dict[str, str]:
    """Distribution name -> version, the first found on `paths` winning, as imports do."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=list(paths)):
        name = dist.metadata["Name"]
        if name:
            found.setdefault(normalized(name), dist.version)
    return found


def our_versions() -> dict[str, str]:
    return {name: v for name, v in versions_in(sys.path).items() if name not in UNPINNED}


def installer_dir() -> str | None:
    """Where the base interpreter's pip lives: the agent environment borrows it rather than carry its own."""
    base_python = Path(sys.base_prefix) / "bin" / "python3"
    code = "import pathlib, pip; print(pathlib.Path(pip.__file__).parent.parent)"
    done = subprocess.run([str(base_python), "-c", code], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def create(root: Path) -> AgentEnv:
    """Build time: an empty agent environment that sees agenteval's packages (then the base's pip)
    and keeps their versions; `pip` and `python -m pip` there install into it."""
    agent = AgentEnv(root)
    venv.EnvBuilder(with_pip=False, clear=True).create(root)
    seen = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), installer_dir()])
    (agent.site_packages() / PTH_FILE).write_text("".join(f"{path}\n" for path in seen if path))
    for name in ("pip", "pip3"):
        launcher = agent.bin / name
        launcher.write_text(f"#!{agent.bin / 'python'}\nimport sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n")
        launcher.chmod(0o755)
    agent.constraints.write_text("".join(f"{name}=={v}\n" for name, v in sorted(our_versions().items())))
    return agent


CONFLICT_HEADERS = (
    "The conflict is caused by:",  # pip's resolver
    "No solution found when resolving dependencies",  # uv
)


def conflict_lines(output: str) -> list[str]:
    """The lines under pip's or uv's header of an unsatisfiable set of requirements."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if any(h in line for h in CONFLICT_HEADERS)), None)
    if start is None:
        return []
    block = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        block.append(line.strip())
    return block


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
