"""A suite's `agent:`, parsed once into what every caller needs: which kind of agent it is, where
it lives on disk, and why it cannot be found. Nothing here imports the agent (validate runs no
user code); agents.load_agent turns a spec into a running adapter.

The forms: a served agent's mapping (agents/remote/); `module.path:function` or
`path/to/file.py:function` (a Python callable); else an ADK agent folder, `.py` file or module.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional, Union

from ..schema.remote_agent import RemoteAgentConfig

# `module.path:function` or `path/to/file.py:function` (not a Windows drive like C:\).
CALLABLE_SPEC = re.compile(r"^(?P<target>.+?\S):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")

AgentKind = Literal["served", "callable", "adk"]


@dataclass(frozen=True)
class AgentSpec:
    kind: AgentKind
    base_dir: Path  # where relative paths and module imports start
    target: str = ""  # callable: its module or .py file; adk: its folder, .py file or module
    function: str = ""  # callable: the function's name
    served: Optional[RemoteAgentConfig] = None

    @classmethod
    def parse(cls, agent: Union[str, RemoteAgentConfig], base_dir: Path) -> "AgentSpec":
        if isinstance(agent, RemoteAgentConfig):
            return cls("served", base_dir, served=agent)
        match = CALLABLE_SPEC.match(agent)
        if match and len(match["target"]) > 1 and not _is_package_folder(base_dir / agent):
            return cls("callable", base_dir, match["target"], match["function"])
        return cls("adk", base_dir, agent)

    def __str__(self) -> str:
        return f"{self.target}:{self.function}" if self.kind == "callable" else self.target or "a served agent"

    @property
    def folder(self) -> Path:
        """The folder the agent lives in: an ADK package folder, a .py file's folder, a dotted
        module's top package folder when it is beside the config, else the config's folder (a
        served agent, an installed module)."""
        if self.served is not None:
            return self.base_dir
        path = self.base_dir / self.target
        if path.is_dir():
            return path
        if self.target.endswith(".py"):
            return path.parent
        top = self.base_dir / self.target.split(".", 1)[0]
        return top if top.is_dir() else self.base_dir

    def problem(self) -> Optional[str]:
        """Why an imported agent cannot be found: a folder with __init__.py, a .py file, a
        callable's file, or a module Python can find. None when it is there (and for a served
        agent: agents.remote_agent_problems checks those)."""
        if self.served is not None:
            return None
        path = self.base_dir / self.target
        if self.target.endswith(".py"):
            return None if path.is_file() else f"no such file: {path.as_posix()}"
        if self.kind == "adk" and _is_package_folder(path):
            return None
        if self.kind == "adk" and path.is_dir():
            return f"{path.as_posix()} is a folder without __init__.py (ADK's layout: __init__.py doing `from . import agent`)"
        return _module_problem(self.target, self.base_dir)


def _module_problem(dotted: str, base_dir: Path) -> Optional[str]:
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
