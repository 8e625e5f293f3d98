"""The agent's `.env`, loaded as `adk eval`, `adk web` and `adk run` load it.

ADK 2.13 (google.adk.cli.utils.envs) walks up from the agent's folder to the first `.env` and
loads it with python-dotenv; variables set before any `.env` was loaded keep their values, a
later `.env` overrides an earlier one's, and `ADK_DISABLE_LOAD_DOTENV` turns it off. We do the
same for every suite's agent, with one difference: the walk stops at the repository's root (the
folder holding `.git`), so a `.env` in a home folder above the project is never read.

It runs before the judge's settings are read and before any agent is imported, so a key kept in
the agent's `.env` (ADK's quickstart puts `GOOGLE_API_KEY` there) reaches both.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, MutableMapping
from pathlib import Path

from ..errors import InputError, Problem

DISABLE = "ADK_DISABLE_LOAD_DOTENV"  # ADK's switch, honoured as ADK reads it
_TRUTHY = ("true", "1")


def disabled(environ: MutableMapping[str, str]) -> bool:
    return environ.get(DISABLE, "").strip().lower() in _TRUTHY


def find_dotenv(folder: Path) -> Path | None:
    """The first `.env` (a regular file) from `folder` up to the repository's root or the filesystem's."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / ".env"
        if path.is_file():
            return path
        if (candidate / ".git").exists():
            return None
    return None


def load_agent_dotenv(folders: Iterable[Path], environ: MutableMapping[str, str] | None = None) -> dict[Path, list[str]]:
    """Load the `.env` of each agent folder into `environ` (os.environ by default): each file
    read, with the names it set (a name already set before stays as it was)."""
    environ = os.environ if environ is None else environ
    if disabled(environ):
        return {}
    files = list(dict.fromkeys(path for folder in folders if (path := find_dotenv(folder)) is not None))
    explicit = set(environ)  # set before any .env: they win, as ADK keeps them
    loaded: dict[Path, list[str]] = {}
    for path in files:
        values = {name: value for name, value in _read(path).items() if name not in explicit and value is not None}
        environ.update(values)
        loaded[path] = list(values)
    return loaded


def _read(path: Path) -> dict[str, str | None]:
    from dotenv import dotenv_values  # loaded only when a .env is found: most runs have none

    try:
        return dict(dotenv_values(path, encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(Problem(path.as_posix(), "$", f"cannot read the agent's .env: {exc}")) from exc
