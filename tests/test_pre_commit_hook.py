"""`.pre-commit-hooks.yaml`: the hook the README promises, run as pre-commit runs it on the example."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list) and len(hooks) == 1
    return hooks[0]


def test_the_hook_is_well_formed_and_picks_eval_files_only():
    hook = _hook()
    assert {"id", "name", "entry", "language"} <= hook.keys() and hook["language"] == "python"
    pattern = re.compile(hook["files"])
    picked = ["evals/basic/home.evalset.json", "tests/eval/eval_config.json", "evals/test_config.json", "a/fixture.test.json",
              "initial.session.json", "agenteval.yaml", "sub/agenteval.yml"]
    skipped = [".agenteval/baseline.json", "results.json", "package.json", "my_test_config.json.bak", "my_agenteval.yaml", "docs/config.yaml"]
    assert all(pattern.search(p) for p in picked)
    assert not any(pattern.search(p) for p in skipped)


def test_the_entry_validates_the_examples_files_and_fails_on_a_broken_one(tmp_path):
    hook = _hook()
    pattern = re.compile(hook["files"])
    example = ROOT / "examples" / "home_automation"
    files = sorted(p.relative_to(ROOT).as_posix() for p in example.rglob("*") if pattern.search(p.relative_to(ROOT).as_posix()))
    assert len(files) == 6  # agenteval.yaml, three eval sets, two test_config.json
    program, *args = shlex.split(hook["entry"])
    assert program == "agenteval"
    command = [sys.executable, "-m", "agenteval_ci", *args]  # the console script, as the hook's venv installs it
    done = subprocess.run([*command, *files], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 file(s) checked, 0 invalid" in done.stdout and "ok      examples/home_automation/agenteval.yaml (project, " in done.stdout
    broken = tmp_path / "x.evalset.json"
    broken.write_text('{"eval_cases": []}')
    failed = subprocess.run([*command, str(broken)], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 2 and "$.eval_set_id" in failed.stdout
