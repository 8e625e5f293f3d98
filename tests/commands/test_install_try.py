"""The install line init chooses, tried in a throwaway virtualenv with pip resolving only
(commands/_install_try.py). Offline: no index (PIP_NO_INDEX), wheels from a local folder."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from agenteval_ci.commands._install_try import UV_EXPORT, InstallLine, Outcome, choose, install_lines, try_line
from tests.action.wheels import write_wheel

ROOT = Path(__file__).resolve().parents[2]
WEATHER_DESK = ROOT / "tests" / "data" / "weather_desk"
OFFLINE = {**os.environ, "PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull}


def test_the_lines_a_project_allows_in_the_order_init_prefers_them(tmp_path):
    (tmp_path / "uv.lock").write_text("")
    (tmp_path / "requirements.txt").write_text("google-adk\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1"\ndependencies = ["google-adk>=1.20", "httpx[http2]"]\n')
    assert [line.command for line in install_lines(tmp_path)] == [
        UV_EXPORT, "pip install -r requirements.txt", "pip install -e .", "pip install 'google-adk>=1.20' 'httpx[http2]'"]
    (tmp_path / "pyproject.toml").write_text("[tool.poetry]\nname = 'x'\n")  # no [project]: nothing to install alone
    assert install_lines(tmp_path)[-1].command == "pip install -e ."
    assert install_lines(tmp_path / "nothing") == []


def test_a_broken_build_fails_and_the_dependencies_alone_are_taken(tmp_path):
    """setuptools refuses weather_desk's flat layout of two packages; the dependencies install."""
    pytest.importorskip("setuptools", reason="the offline build uses this environment's setuptools")
    project = tmp_path / "weather_desk"
    shutil.copytree(WEATHER_DESK, project)
    environ = {**OFFLINE, "PIP_NO_BUILD_ISOLATION": "0"}  # pip's own quirk: 0 turns isolation off
    chosen, tried = choose(project, environ)
    assert [t.outcome for t in tried] == [Outcome.FAILS, Outcome.WORKS]
    assert "Multiple top-level packages discovered in a flat-layout" in tried[0].detail
    assert chosen == InstallLine("pip install 'google-adk>=1.20'", "pyproject.toml's dependencies, without building the project")
    assert sorted(p.name for p in project.iterdir()) == sorted(p.name for p in WEATHER_DESK.iterdir())  # nothing left behind


def test_a_requirement_that_cannot_be_had_fails_with_pips_reason(tmp_path):
    (tmp_path / "requirements.txt").write_text("no-such-package-agenteval==1.0\n")
    chosen, tried = choose(tmp_path, OFFLINE)
    assert chosen is not None and chosen.command == "pip install -r requirements.txt"
    assert tried[0].outcome == Outcome.FAILS and "No matching distribution found for no-such-package-agenteval==1.0" in tried[0].detail


def test_a_line_that_works_installs_nothing(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels, "home-helpers", "1.0", requires=("pydantic>=2",), module="STEP = 2\n")
    (tmp_path / "requirements.txt").write_text("home-helpers==1.0\n")
    tried = try_line(install_lines(tmp_path)[0], tmp_path, {**OFFLINE, "PIP_FIND_LINKS": str(wheels)})
    assert tried.outcome == Outcome.WORKS, tried.detail
    assert importlib.util.find_spec("home_helpers") is None


@pytest.mark.skipif(shutil.which("uv") is not None, reason="uv is installed here")
def test_a_tool_the_line_would_install_first_cannot_be_tried(tmp_path):
    (tmp_path / "uv.lock").write_text("")
    (tmp_path / "requirements.txt").write_text("no-such-package-agenteval\n")
    chosen, tried = choose(tmp_path, OFFLINE)
    assert [t.outcome for t in tried] == [Outcome.UNKNOWN] and tried[0].detail == "`uv` is not installed here"
    assert chosen is not None and chosen.command == UV_EXPORT  # not replaced by a line that was never shown to work better


def test_a_line_that_hangs_is_stopped(tmp_path):
    tried = try_line(InstallLine(f"{sys.executable} -c 'import time; time.sleep(30)'", "test"), tmp_path, OFFLINE, timeout=0.5)
    assert tried.outcome == Outcome.UNKNOWN and tried.detail == "still running after 0.5s"
