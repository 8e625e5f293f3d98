"""Agent adapters: the only code that imports google.adk or runs the user's agent.

Every adapter turns one eval case run into a conversation: `start` opens one session,
`send` plays one user turn and returns what the agent did as an ADK-shaped Invocation.
"""

from __future__ import annotations

import re
import traceback
from pathlib import Path
from typing import Awaitable, Protocol, TypeVar, Union

from ..errors import UsageError
from ..schema import Content, EvalCase, Invocation
from ..schema.remote_agent import RemoteAgentConfig

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
    `turn_timeout` also bounds a remote agent's session opening (run.py bounds each turn)."""
    if isinstance(spec, RemoteAgentConfig):
        from .remote import load_remote_agent

        return load_remote_agent(spec, base_dir, workers, where or "agent", turn_timeout)
    try:
        match = CALLABLE_SPEC.match(spec)
        if match and len(match["target"]) > 1:
            from .python_callable import load_callable_agent

            return load_callable_agent(match["target"], match["function"], base_dir, workers)
        from .adk import load_adk_agent

        return load_adk_agent(spec, base_dir)
    except UsageError as exc:
        raise UsageError(f"{where}: {exc}" if where else str(exc)) from exc.__cause__


_OURS = str(Path(__file__).resolve().parent.parent)


def _user_frames(exc: BaseException) -> str:
    """The traceback lines in the user's own code (not ours, not importlib's), as adk eval shows them."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith((_OURS, "<frozen"))]
    return "".join(traceback.format_list(frames[-8:])).rstrip()


def describe_import_error(spec: str, exc: BaseException) -> UsageError:
    text = f"cannot load agent {spec!r}: {type(exc).__name__}: {exc}"
    frames = _user_frames(exc)
    return UsageError(f"{text}\nTraceback in your code (most recent call last):\n{frames}" if frames else text)
