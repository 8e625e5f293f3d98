"""action.yml, every workflow and the Dockerfile pass GitHub's schemas, actionlint and hadolint (offline)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import ROOT

WORKFLOWS = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"), *(ROOT / "docs" / "workflows").glob("*.yml")])


def tool(name: str) -> str:
    path = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if path is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return path


def check(*argv: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_action_yml_matches_githubs_schema():
    check(tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", "action.yml")


def test_workflows_match_githubs_schema():
    assert len(WORKFLOWS) >= 6
    check(tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS))


def test_workflows_pass_actionlint():
    check(tool("actionlint"), *map(str, WORKFLOWS))


def test_dockerfile_passes_hadolint():
    check(tool("hadolint"), "Dockerfile")
