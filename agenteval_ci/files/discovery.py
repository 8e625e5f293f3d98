"""Finding a project's files: agenteval.yaml above the working folder, the project root,
the default results path, and which eval config an eval set uses (google-adk's rule and
agenteval.yaml's), and eval configs recognised by what they hold.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..schema.paths import DEFAULT_PROJECT_FILE, DEFAULT_RESULTS

ADK_CONFIG_NAME = "test_config.json"  # google-adk's name, beside the eval set
STARTER_CONFIG_NAME = "eval_config.json"  # the agent starter pack's tests/eval/eval_config.json
CONFIG_NAMES = (ADK_CONFIG_NAME, STARTER_CONFIG_NAME)

_CONFIG_KEYS = frozenset({"criteria", "custom_metrics", "user_simulator_config", "live_model_config",
                          "customMetrics", "userSimulatorConfig", "liveModelConfig", "metrics_to_run"})  # the last: agents-cli's
_EVAL_SET_KEYS = frozenset({"eval_set_id", "eval_cases", "scenarios"})


def _is_repo_root(folder: Path) -> bool:
    return (folder / ".git").exists()


def _folders_up(start: Path) -> list[Path]:
    """`start` and its parents, up to and including the repository root (as git and pytest stop)."""
    folders = []
    for folder in (start, *start.parents):
        folders.append(folder)
        if _is_repo_root(folder):
            break
    return folders


def find_project_file(start: Path | None = None) -> Path | None:
    """The nearest agenteval.yaml in the working folder or above it, within the repository."""
    here = (start or Path.cwd()).resolve()
    for folder in _folders_up(here):
        candidate = folder / DEFAULT_PROJECT_FILE
        if candidate.is_file():
            return _shortest(candidate)
    return None


def project_file(given: str | None) -> Path:
    """`--config` as given, else the nearest agenteval.yaml; a clear error when there is none."""
    if given:
        return Path(given)
    found = find_project_file()
    if found is None:
        raise UsageError(
            f"no {DEFAULT_PROJECT_FILE} in {Path.cwd().as_posix()} or a parent folder up to the repository root; "
            "create one with `agenteval init`, or pass --config"
        )
    return found


def project_root(config: str | Path | None = None) -> Path:
    """Where the project's own files live: agenteval.yaml's folder (given or found above),
    else the repository root above the working folder, else the working folder."""
    found = Path(config) if config else find_project_file()
    if found is not None:
        return found.parent
    here = Path.cwd().resolve()
    root = next((folder for folder in _folders_up(here) if _is_repo_root(folder)), None)
    return _shortest(root) if root else Path(".")


def default_results(config: str | Path | None = None) -> Path:
    """Where `run` writes its results file unless told otherwise, and `accept` and `compare` look."""
    return project_root(config) / DEFAULT_RESULTS


def results_to_read(given: str | None, config: str | None) -> str:
    """RESULTS as given, else the file `agenteval run` writes by default."""
    if given:
        return given
    path = default_results(config)
    if not path.is_file():
        raise UsageError(f"no results file at {path.as_posix()}: run `agenteval run` first, or name a results file")
    return str(path)


def _shortest(path: Path) -> Path:
    """Relative to the working folder (`../agenteval.yaml` from a subfolder): short messages,
    and the paths a user would type."""
    return Path(os.path.relpath(path.resolve(), Path.cwd().resolve()))


def looks_like_eval_config(data: Any) -> bool:
    """An object with a config's keys (criteria, ...) and none of an eval set's."""
    return isinstance(data, dict) and bool(_CONFIG_KEYS & set(data)) and not (_EVAL_SET_KEYS & set(data))


def adk_eval_config(eval_sets: Sequence[str | Path], given: str | Path | None = None) -> Path | None:
    """google-adk's rule (`adk eval`'s form of `run`, and `score`): the config given; else
    test_config.json beside the eval set when there is exactly one; else None, ADK's defaults."""
    if given:
        return Path(given)
    if len(eval_sets) != 1:
        return None
    beside = Path(eval_sets[0]).parent / ADK_CONFIG_NAME
    return beside if beside.is_file() else None


def discover_eval_config(eval_set: str | Path, top: Path) -> Path | None:
    """The config an eval set in agenteval.yaml uses when the suite names none: ADK's
    test_config.json beside it, else eval_config.json beside it or in a folder above it up
    to `top` (the starter pack keeps tests/eval/eval_config.json over tests/eval/evalsets/)."""
    folder = Path(eval_set).parent
    beside = [folder / name for name in CONFIG_NAMES]
    found = next((c for c in beside if c.is_file()), None)
    if found:
        return found
    top = top.resolve()
    for parent in folder.parents:
        resolved = parent.resolve()
        if resolved != top and top not in resolved.parents:
            break  # left the project
        candidate = parent / STARTER_CONFIG_NAME
        if candidate.is_file():
            return candidate
        if resolved == top:
            break
    return None
