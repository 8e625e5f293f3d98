"""Importing the user's code: a file, a package folder or a dotted module."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

# Packages import_package put under their own names; another folder of the same name may take
# the name over (a later suite, a later test), a module of anyone else's may not.
_OWN_PACKAGES: dict[str, ModuleType] = {}


def on_path(folder: Path) -> None:
    """Let the user's module import its siblings, as `python file.py` would."""
    entry = str(folder.resolve())
    if entry not in sys.path:
        sys.path.insert(0, entry)


def import_file(path: Path) -> ModuleType:
    """A .py file, or a package folder's __init__.py, under a name unique to its path
    (two suites' `agent.py` must not replace each other in sys.modules)."""
    resolved = path.resolve()
    stem = resolved.stem if resolved.name != "__init__.py" else resolved.parent.name
    # Only identifier characters: a dot would make `a.b/` a submodule `b` of a package `a`.
    name = f"agenteval_user_{re.sub(r'[^A-Za-z0-9_]', '_', stem)}_"
    name += hashlib.sha256(os.fsencode(resolved)).hexdigest()[:8]
    if name in sys.modules:
        return sys.modules[name]
    return _execute(name, resolved)


def import_package(folder: Path) -> ModuleType:
    """An agent folder imported as `adk web` and ADK's AgentEvaluator import it: under its own
    name, its parent folder on sys.path. The package's absolute imports of itself (`from shop.tools
    import x` in shop/agent.py) then find this very package instead of running it a second time.
    A folder whose name Python cannot import (`a.b`, `my-agent`), or that another module already
    holds (`calendar`, an installed package), gets a private name, as every folder did before."""
    folder = Path(os.path.abspath(folder))  # not resolve(): a symlinked folder goes by its link's name
    init = folder / "__init__.py"
    on_path(folder.parent)
    name = folder.name
    current = sys.modules.get(name)
    if current is not None and _file_of(current) == init.resolve():
        return current
    if not _may_take(name, current):
        return import_file(init)
    module = _execute(name, init.resolve())
    _OWN_PACKAGES[name] = module
    return module


def _may_take(name: str, current: ModuleType | None) -> bool:
    return (name.isidentifier() and name not in sys.stdlib_module_names
            and (current is None or _OWN_PACKAGES.get(name) is current))


def _file_of(module: ModuleType) -> Path | None:
    file = getattr(module, "__file__", None)
    return Path(file).resolve() if file else None


def _execute(name: str, path: Path) -> ModuleType:
    """Run the file as module `name`, replacing that name and its submodules in sys.modules;
    if it fails, sys.modules is left as it was."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    previous = _take_out(name)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        _take_out(name)
        sys.modules.update(previous)
        raise
    return module


def _take_out(name: str) -> dict[str, ModuleType]:
    """Module `name` and its submodules, removed from sys.modules."""
    return {key: sys.modules.pop(key) for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]}


def import_module(dotted: str, base_dir: Path) -> ModuleType:
    on_path(base_dir)
    return importlib.import_module(dotted)
