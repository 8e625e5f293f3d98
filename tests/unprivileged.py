"""Running `agenteval` as a user file permissions apply to: ourselves, or `nobody` when the tests
run as root (root reads a chmod 000 file, so a permission test as root proves nothing)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def _as_nobody() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        pytest.skip("running as root without setpriv: cannot drop to a user permissions apply to")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def shared_folder() -> Path:
    """A temp folder that user can enter and write (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="agenteval-unprivileged-"))
    folder.chmod(0o777)
    return folder


def agenteval(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(cwd), "NO_COLOR": "1", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        env.pop(key, None)
    return subprocess.run([*_as_nobody(), sys.executable, "-m", "agenteval_ci", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, errors="replace", timeout=timeout)
