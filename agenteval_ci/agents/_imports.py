"""Importing the user's code: a file, a package folder or a dotted module."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def on_path(folder: Path) -> None:
    """Let the user's module import its siblings, as `python file.py` would."""
    entry = str(folder.resolve())
    if entry not in sys.path:
        sys.path.insert(0, entry)


def import_file(path: Path) -> ModuleType:
    """A .py file, or a package folder's __init__.py, under a name unique to its path
    (two suites' `agent.py` must not replace each other in sys.modules)."""
    resolved = path.resolve()
    name = f"agenteval_user_{resolved.stem if resolved.name != '__init__.py' else resolved.parent.name}_"
    name += hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {resolved}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def import_module(dotted: str, base_dir: Path) -> ModuleType:
    on_path(base_dir)
    return importlib.import_module(dotted)
