"""The image's build step that precompiles a run's imports covers every library agenteval imports."""

from __future__ import annotations

import ast
import importlib.util
import sys

from .harness import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from precompile_imports import RUN_IMPORTS  # noqa: E402

THIRD_PARTY = {"google", "httpx", "jinja2", "pydantic", "requests", "rouge_score", "yaml"}


def imported_libraries() -> set[str]:
    """Every module of a third-party library that agenteval_ci imports, at any depth of its code."""
    names = set()
    for path in (ROOT / "agenteval_ci").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
    return {name for name in names if name.split(".")[0] in THIRD_PARTY}


def covered(name: str) -> bool:
    return any(name == run or name.startswith(run + ".") or run.startswith(name + ".") for run in RUN_IMPORTS)


def test_every_library_agenteval_imports_is_precompiled_in_the_image():
    missing = sorted(name for name in imported_libraries() if not covered(name))
    assert not missing, f"add to RUN_IMPORTS in scripts/precompile_imports.py: {missing}"


def test_the_precompiled_imports_exist():
    assert all(importlib.util.find_spec(name) is not None for name in RUN_IMPORTS)
