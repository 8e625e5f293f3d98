"""Agent adapters: the only code that imports google.adk or runs the user's agent.

Every adapter turns one eval case run into a conversation: `start` opens one session,
`send` plays one user turn and returns what the agent did as an ADK-shaped Invocation.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from ..errors import UsageError
from ..schema import Content, EvalCase, Invocation

# `module.path:function` or `path/to/file.py:function` (not a Windows drive like C:\).
CALLABLE_SPEC = re.compile(r"^(?P<target>.+?\S):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")


class Conversation(Protocol):
    async def send(self, user_content: Content) -> Invocation: ...

    async def close(self) -> None: ...


class Agent(Protocol):
    async def start(self, case: EvalCase, run_index: int) -> Conversation: ...

    def close(self) -> None: ...


def load_agent(spec: str, base_dir: Path, workers: int = 8) -> Agent:
    """The adapter for a suite's `agent`: a Python callable, else an ADK folder or module."""
    match = CALLABLE_SPEC.match(spec)
    if match and len(match["target"]) > 1:
        from .python_callable import load_callable_agent

        return load_callable_agent(match["target"], match["function"], base_dir, workers)
    from .adk import load_adk_agent

    return load_adk_agent(spec, base_dir)


def describe_import_error(spec: str, exc: BaseException) -> UsageError:
    return UsageError(f"cannot load agent {spec!r}: {type(exc).__name__}: {exc}")
