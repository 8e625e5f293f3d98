"""Agent adapters: the only code that imports google.adk or runs the user's agent.

Every adapter turns one eval case run into a conversation: `start` opens one session,
`send` plays one user turn and returns what the agent did as an ADK-shaped Invocation.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import sysconfig
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Awaitable, Protocol, TypeVar, Union

from ..errors import UsageError
from ..schema import Content, EvalCase, Invocation
from ..schema.remote_agent import ENV_REFERENCE, RemoteAgentConfig

T = TypeVar("T")

# `module.path:function` or `path/to/file.py:function` (not a Windows drive like C:\).
CALLABLE_SPEC = re.compile(r"^(?P<target>.+?\S):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")


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


def load_agent(spec: Union[str, RemoteAgentConfig], base_dir: Path, workers: int = 8, where: str = "", turn_timeout: float = 300.0) -> Agent:
    """The adapter for a suite's `agent`: an agent served over HTTP, a Python callable, else an
    ADK folder or module. `where` names the config key the spec came from, for the error message;
    `turn_timeout` also bounds a remote agent's session opening (runner/suites.py bounds each turn)."""
    if isinstance(spec, RemoteAgentConfig):
        from .remote import load_remote_agent

        return load_remote_agent(spec, base_dir, workers, where or "agent", turn_timeout)
    try:
        match = CALLABLE_SPEC.match(spec)
        if match and len(match["target"]) > 1 and not _is_package_folder(base_dir / spec):
            from .python_callable import load_callable_agent

            return load_callable_agent(match["target"], match["function"], base_dir, workers)
        from .adk import load_adk_agent

        return load_adk_agent(spec, base_dir)
    except UsageError as exc:
        raise UsageError(f"{where}: {exc}" if where else str(exc)) from exc.__cause__


def agent_folder(spec: Union[str, RemoteAgentConfig], base_dir: Path) -> Path:
    """The folder an agent lives in, found without importing it: an ADK package folder, a .py
    file's folder, a dotted module's top package folder when it is beside the config, else the
    config's folder (a served agent, an installed module)."""
    if isinstance(spec, RemoteAgentConfig):
        return base_dir
    match = CALLABLE_SPEC.match(spec)
    target = match["target"] if match and len(match["target"]) > 1 and not _is_package_folder(base_dir / spec) else spec
    path = base_dir / target
    if path.is_dir():
        return path
    if target.endswith(".py"):
        return path.parent
    top = base_dir / target.split(".", 1)[0]
    return top if top.is_dir() else base_dir


def agent_problem(spec: str, base_dir: Path) -> str | None:
    """Why the suite's `agent` cannot be found, checked without importing anything (validate
    runs no user code): a folder with __init__.py, a .py file, a callable's file, or a module
    Python can find. None when it is there."""
    match = CALLABLE_SPEC.match(spec)
    if match and len(match["target"]) > 1 and not _is_package_folder(base_dir / spec):
        target = match["target"]
        if target.endswith(".py"):
            return None if (base_dir / target).is_file() else f"no such file: {(base_dir / target).as_posix()}"
        return _module_problem(target, base_dir)
    path = base_dir / spec
    if _is_package_folder(path) or (spec.endswith(".py") and path.is_file()):
        return None
    if path.is_dir():
        return f"{path.as_posix()} is a folder without __init__.py (ADK's layout: __init__.py doing `from . import agent`)"
    return _module_problem(spec, base_dir)


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
    wanted = {name for value in (*config.env.values(), *config.headers.values()) for name in ENV_REFERENCE.findall(value)}
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


def _module_problem(dotted: str, base_dir: Path) -> str | None:
    """A dotted module's top package, looked for as an import would (the yaml's folder first)."""
    from importlib.machinery import PathFinder

    top = dotted.split(".")[0]
    if top.isidentifier() and (top in sys.modules or PathFinder.find_spec(top, [str(base_dir.resolve()), *sys.path])):
        return None
    return f"no agent folder, .py file or module {dotted!r} (relative to {base_dir.as_posix() or '.'})"


def _is_package_folder(path: Path) -> bool:
    """An agent folder whose name merely looks like `target:function` (`x:y/`) is still a folder."""
    try:
        return (path / "__init__.py").is_file()
    except (OSError, ValueError):
        return False


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
