"""The agent environment: a virtualenv for the user's packages that sees agenteval's own and keeps
their versions (pip is told to, by a constraints file). The action's image builds one, and its
`install` input fills it (action/agent_env.py); `agenteval init` tries its install line in a
throwaway one built the same way (commands/_install_try.py), so what init says installs, installs
in the action. Needs nothing of agenteval but this module: the image builds it before the rest is
copied in. See docs/action.md, "Your dependencies".
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "AGENTEVAL_AGENT_ENV"  # set by the image: where the agent environment is
CONSTRAINTS = "agenteval-constraints.txt"
PTH_FILE = "agenteval.pth"
# The environment's `pip` and `pip3`: the pip agenteval's packages carry, installing into it.
_PIP = "import sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n"
# Not pinned for the agent environment: its installer's tools (which versions they have changes
# nothing in the agent's process) and agenteval itself (never a distribution in the image).
UNPINNED = frozenset({"pip", "setuptools", "wheel", "agenteval-ci"})


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


def create(root: Path, versions: Mapping[str, str] | None = None, pip: str = _PIP) -> AgentEnv:
    """Build time: an empty agent environment that sees agenteval's packages (then the base's pip)
    and keeps their versions (`versions`, else those this process imports); `pip` and `python -m pip`
    there install into it (`pip`: the launchers' code, which `agenteval init` makes resolve only)."""
    agent = AgentEnv(root)
    venv.EnvBuilder(with_pip=False, clear=True).create(root)
    seen = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), installer_dir()])
    (agent.site_packages() / PTH_FILE).write_text("".join(f"{path}\n" for path in seen if path))
    for name in ("pip", "pip3"):
        launcher = agent.bin / name
        launcher.write_text(f"#!{agent.bin / 'python'}\n{pip}")
        launcher.chmod(0o755)
    pinned = our_versions() if versions is None else versions
    agent.constraints.write_text("".join(f"{name}=={v}\n" for name, v in sorted(pinned.items())))
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
