"""Agent adapters: the only code that imports google.adk or runs the user's agent.

Every adapter turns one eval case run into a conversation: `start` opens one session,
`send` plays one user turn and returns what the agent did as an ADK-shaped Invocation.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sysconfig
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Awaitable, Protocol, TypeVar, Union

from ..errors import UsageError
from ..files.agent_spec import AgentSpec
from ..schema import Content, EvalCase, Invocation
from ..schema.remote_agent import ENV_REFERENCE, RemoteAgentConfig

T = TypeVar("T")


class AgentExited(RuntimeError):
    """User code raised SystemExit or KeyboardInterrupt. asyncio ends the whole event loop on
    those, so they become this ordinary error where user code runs: it fails one run."""

    @classmethod
    def of(cls, exc: BaseException) -> "AgentExited":
        return cls(f"the agent raised {type(exc).__name__}({exc}) (called sys.exit?)")


async def contained(awaitable: Awaitable[T]) -> T:
    """Await user code so that its sys.exit cannot escape the task it runs in."""
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as exc:
        raise AgentExited.of(exc) from None


class Conversation(Protocol):
    async def send(self, user_content: Content) -> Invocation: ...

    def unreported(self) -> list[str]:
        """What the judges read that this agent could not report (RunRecord.unreported)."""
        ...

    async def final_state(self) -> dict[str, Any] | None:
        """The session's state after the last turn, as JSON; None when this kind cannot report it."""
        ...

    async def close(self) -> None: ...


class Agent(Protocol):
    async def start(self, case: EvalCase, run_index: int) -> Conversation: ...

    async def aclose(self) -> None:
        """Inside the run's event loop, however the run ends: release what lives in it (connection pools)."""

    def close(self) -> None:
        """After the event loop, on every way out: stop what outlives it (a started server)."""


def load_agent(spec: AgentSpec, workers: int = 8, where: str = "", turn_timeout: float = 300.0) -> Agent:
    """The adapter for a suite's parsed `agent`: an agent served over HTTP, a Python callable, else
    an ADK folder or module. `where` names the config key the spec came from, for the error
    message; `turn_timeout` also bounds a remote agent's session opening (runner/suites.py bounds each turn)."""
    if spec.served is not None:
        from .remote import load_remote_agent

        return load_remote_agent(spec.served, spec.base_dir, workers, where or "agent", turn_timeout)
    try:
        if spec.kind == "callable":
            from .python_callable import load_callable_agent

            return load_callable_agent(spec.target, spec.function, spec.base_dir, workers)
        from .adk import load_adk_agent

        return load_adk_agent(spec.target, spec.base_dir)
    except UsageError as exc:
        raise UsageError(f"{where}: {exc}" if where else str(exc)) from exc.__cause__


def remote_agent_problems(config: RemoteAgentConfig, base_dir: Path, cases: Iterable[EvalCase],
                          environ: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """What `run` would fail on with an agent served over HTTP, found without starting it:
    (problems, warnings about this machine: a `${VAR}` or the start command's program missing)."""
    problems, warnings = [], []
    if config.start:
        cwd = base_dir / (config.cwd or ".")
        if not cwd.is_dir():
            problems.append(f"cwd: {cwd.as_posix()} is not a folder (`start` runs there)")
        else:
            program = _start_program(config.start)
            if program is None:
                problems.append(f"start: {config.start!r} is not a shell command (unbalanced quotes)")
            elif program and not (shutil.which(program, path=environ.get("PATH")) or (cwd / program).is_file()):
                warnings.append(f"start: `{program}` is not installed here (the machine that runs the suite needs it)")
    if config.kind == "adk_api_server" and config.app_name is None:
        nameless = [c.eval_id for c in cases if not (c.session_input and c.session_input.app_name)]
        if nameless:
            problems.append(f"{len(nameless)} case(s) have no session_input.app_name (first: {nameless[0]}): give the app's "
                            "name on the server as `app_name` (GET <url>/list-apps lists them)")
    wanted = {name for value in (config.url, *config.env.values(), *config.headers.values()) for name in ENV_REFERENCE.findall(value)}
    warnings += [f"${{{name}}} is not set here (`run` needs it)" for name in sorted(wanted) if name not in environ]
    return problems, warnings


def _start_program(command: str) -> str | None:
    """The program a shell command starts ("" for a shell builtin or construct), None when it does not parse."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    words = [w for w in words if not ENV_ASSIGNMENT.match(w)]  # `PORT=1 node x.js`
    first = words[0] if words else ""
    return "" if first in _SHELL_WORDS or any(c in first for c in "$`();|&<>") else first


ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_WORDS = {"cd", "exec", "env", "export", "set", "source", ".", "if", "for", "while", "(", "{"}


_OURS = str(Path(__file__).resolve().parent.parent)
# Installed libraries and the standard library: a frame there is not the user's line.
_INSTALLED = tuple({sysconfig.get_path(kind) for kind in ("purelib", "platlib")})
_STDLIB = tuple({sysconfig.get_path(kind) for kind in ("stdlib", "platstdlib")} - set(_INSTALLED))


def _user_frames(exc: BaseException) -> str:
    """The traceback lines in the user's own code, as adk eval shows them: not ours, not the
    standard library's (importlib), and not an installed library's unless the agent itself is
    an installed package (then its frames are all there is)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith((_OURS, "<frozen")) and not _in_stdlib(f.filename)]
    own = [f for f in frames if not f.filename.startswith(_INSTALLED)]
    return "".join(traceback.format_list((own or frames)[-8:])).rstrip()


def _in_stdlib(filename: str) -> bool:
    return filename.startswith(_STDLIB) and not filename.startswith(_INSTALLED)


def describe_import_error(spec: str, exc: BaseException) -> UsageError:
    text = f"cannot load agent {spec!r}: {type(exc).__name__}: {exc}"
    frames = _user_frames(exc)
    return UsageError(f"{text}\nTraceback in your code (most recent call last):\n{frames}" if frames else text)
