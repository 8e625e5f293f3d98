"""The install line of the workflows, chosen from what the project has and tried before a
workflow runs it (`agenteval init`).

The lines, in the order init prefers them: uv.lock's export, requirements.txt, the project
itself (`pip install -e .`: pyproject.toml, setup.py, setup.cfg), then pyproject.toml's dependencies
alone, [project]'s or Poetry's (the agent is imported from its folder, so the project need not be
built). A line is tried as the action runs it: in a throwaway agent environment built by the
action's own code (files/agent_env.py), seeing agenteval's packages and keeping their versions and
the action's google-adk as constraints (docs/action.md), whose `pip install` runs with `--dry-run`: pip resolves the requirements and
runs the project's build backend for its metadata, and installs nothing. The flag is given on the
command line, not as PIP_DRY_RUN, which pip's own subprocess installing the build backend into its
isolated build environment would inherit, leaving that environment empty and every build failing. A line that fails
is followed by the next one; the first that works is the workflows' line.
"""

from __future__ import annotations

import enum
import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..files.agent_env import conflict_lines, create, our_versions
from ..files.pins import poetry_dependencies
from ..files.served_projects import ACTION_GOOGLE_ADK

TRY_TIMEOUT_SECONDS = 300.0
UV_EXPORT = ("pip install uv && uv export --frozen --no-hashes -o /tmp/agenteval-requirements.txt"
             " && pip install -r /tmp/agenteval-requirements.txt")
# pip's words for "the index could not be reached": the line may be right, we cannot tell here.
_OFFLINE = re.compile(r"NewConnectionError|Temporary failure in name resolution|Network is unreachable|Max retries exceeded"
                      r"|Could not fetch URL|ConnectionError|ReadTimeoutError|timed out", re.I)
_NOT_FOUND = re.compile(r"(command )?not found|No such file or directory", re.I)
_TELLING = re.compile(r"^\s*(?:×|ERROR:|error:)\s*(.+)$")
_UNTELLING = ("subprocess-exited-with-error", "metadata-generation-failed", "See above for output.", "Exception:")
# The throwaway environment's `pip`: `pip install` resolves only.
_DRY_PIP = """import sys
from pip._internal.cli.main import main
args = sys.argv[1:]
if args[:1] == ["install"]:
    args.insert(1, "--dry-run")
sys.exit(main(args))
"""


@dataclass(frozen=True)
class InstallLine:
    command: str
    source: str  # what it installs from, in words: "requirements.txt"


class TryOutcome(enum.StrEnum):
    WORKS = "works"
    FAILS = "fails"
    UNKNOWN = "unknown"  # could not be tried here (no network, a tool missing, too slow)


@dataclass(frozen=True)
class Tried:
    line: InstallLine
    outcome: TryOutcome
    detail: str = ""  # why it fails, or why it could not be tried


def _dependencies(pyproject: Path) -> list[str]:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    project = data.get("project")
    deps = project.get("dependencies") if isinstance(project, dict) else None
    return [d for d in deps if isinstance(d, str)] if isinstance(deps, list) else poetry_dependencies(data)


def install_lines(root: Path) -> list[InstallLine]:
    """Every line the project's files allow, the preferred first."""
    lines = []
    if (root / "uv.lock").is_file():
        lines.append(InstallLine(UV_EXPORT, "uv.lock"))
    if (root / "requirements.txt").is_file():
        lines.append(InstallLine("pip install -r requirements.txt", "requirements.txt"))
    built = [name for name in ("pyproject.toml", "setup.py", "setup.cfg") if (root / name).is_file()]
    if built:
        lines.append(InstallLine("pip install -e .", built[0]))
    deps = _dependencies(root / "pyproject.toml") if "pyproject.toml" in built else []
    if deps:
        lines.append(InstallLine("pip install " + " ".join(shlex.quote(d) for d in deps),
                                 "pyproject.toml's dependencies, without building the project"))
    return lines


def action_versions() -> dict[str, str]:
    """The versions the action's install keeps: agenteval's packages as this process has them, and
    the google-adk the action's image has (the one its agents import)."""
    return {**our_versions(), "google-adk": ACTION_GOOGLE_ADK}


def _throwaway_env(folder: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the action's `install` runs with (files/agent_env.py: a virtualenv seeing
    agenteval's packages, their versions as constraints), built in `folder`, its `pip` resolving only."""
    agent = create(folder, action_versions(), pip=_DRY_PIP)
    env = agent.install_env({k: v for k, v in environ.items() if k not in ("PYTHONHOME", "PIP_DRY_RUN")})
    return {**env, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_PROGRESS_BAR": "off"}


def summary(output: str) -> str:
    """The lines of pip's output that say what went wrong, else its last ones (after pip's
    "ERROR: Exception:", a traceback's last line is the reason)."""
    telling = [m[1].strip() for line in output.splitlines() if (m := _TELLING.match(line))]
    telling = [line for line in dict.fromkeys(telling) if line and not line.startswith(_UNTELLING)]
    last = [line.strip() for line in output.splitlines() if line.strip()]
    lines = telling or last[-1 if "Traceback (most recent call last):" in output else -3:]
    return " / ".join(lines[:3])[:600]


def run_shell(command: str, cwd: Path, env: Mapping[str, str], timeout: float) -> tuple[int | None, str]:
    """The exit code (None: timed out, the process group killed) and the output."""
    process = subprocess.Popen(["/bin/sh", "-c", command], cwd=cwd, env=dict(env), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace",
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, output
    return process.returncode, output


def _programs(command: str) -> list[str]:
    """The programs a line of `a && b` commands runs, pip aside (the throwaway environment has it)."""
    programs = []
    for part in command.split("&&"):
        words = part.split()
        if words and words[0] not in ("pip", "pip3", "python", "python3"):
            programs.append(words[0])
    return programs


def try_line(line: InstallLine, root: Path, environ: Mapping[str, str], timeout: float = TRY_TIMEOUT_SECONDS) -> Tried:
    """Run `line` in `root` as CI would, in a throwaway virtualenv, pip resolving only."""
    if importlib.util.find_spec("pip") is None:
        return Tried(line, TryOutcome.UNKNOWN, "pip is not installed beside agenteval here")
    missing = [p for p in _programs(line.command) if not shutil.which(p, path=environ.get("PATH", os.defpath))]
    if missing:  # a dry run installs nothing, so a tool the line installs first is not there to run
        return Tried(line, TryOutcome.UNKNOWN, f"`{missing[0]}` is not installed here")
    with tempfile.TemporaryDirectory(prefix="agenteval-install-try-") as folder:
        code, output = run_shell(line.command, root, _throwaway_env(Path(folder) / "venv", environ), timeout)
    if code == 0:
        return Tried(line, TryOutcome.WORKS)
    if code is None:
        return Tried(line, TryOutcome.UNKNOWN, f"still running after {timeout:g}s")
    last = output.strip().splitlines()[-1] if output.strip() else ""
    if code == 127 or (_NOT_FOUND.search(last) and "pip" not in last.split(":")[0]):
        return Tried(line, TryOutcome.UNKNOWN, f"a command of the line is not installed here ({last.strip()})")
    if _OFFLINE.search(output):
        return Tried(line, TryOutcome.UNKNOWN, f"the package index could not be reached ({summary(output)})")
    conflict = conflict_lines(output)  # what the action's install would name too
    return Tried(line, TryOutcome.FAILS, "; ".join(conflict) if conflict else summary(output))


def choose(root: Path, environ: Mapping[str, str], timeout: float = TRY_TIMEOUT_SECONDS) -> tuple[InstallLine | None, list[Tried]]:
    """The first line that works, trying the next only after one fails; the preferred line when
    none could be shown to work (what was tried says why)."""
    lines = install_lines(root)
    tried: list[Tried] = []
    for line in lines:
        result = try_line(line, root, environ, timeout)
        tried.append(result)
        if result.outcome == TryOutcome.WORKS:
            return line, tried
        if result.outcome == TryOutcome.UNKNOWN:
            break  # what stopped this one would stop the next: keep the preferred line
    return (lines[0] if lines else None), tried


@dataclass(frozen=True)
class InstallPlan:
    command: str  # what the workflow runs ("" for nothing)
    tried: tuple[Tried, ...] = ()

    @property
    def failed(self) -> Tried | None:
        """The preferred line, when it failed here."""
        return self.tried[0] if self.tried and self.tried[0].outcome == TryOutcome.FAILS else None

    @property
    def works(self) -> bool:
        return bool(self.tried) and self.tried[-1].outcome == TryOutcome.WORKS


def tried_text(result: Tried) -> str:
    line = f"`{result.line.command}` ({result.line.source})"
    if result.outcome == TryOutcome.WORKS:
        return f"{line} works"
    if result.outcome == TryOutcome.FAILS:
        return f"{line} FAILS: {result.detail}"
    return f"{line} not tried: {result.detail}"


def install_text(plan: InstallPlan, workflow: str) -> str:
    """The next steps' word on the install line, when there is something to say."""
    failed = plan.failed
    if failed is None:
        return ""
    if plan.works:
        return (f"the workflow installs with `{plan.command}`, because `{failed.line.command}` fails "
                f"({failed.detail}); fix that to install the project itself")
    others = [t.line.command for t in plan.tried[1:]]
    tried = f"; tried instead: {', '.join(f'`{o}`' for o in others)}" if others else ""
    return (f"`{plan.command}` FAILS here ({failed.detail}){tried}: fix it, or set `install:` in "
            f"{workflow} to a line that works, before the workflow runs")
