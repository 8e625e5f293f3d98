"""The install line init chooses, tried in a throwaway virtualenv with pip resolving only
(commands/_install_try.py). Offline: no index (PIP_NO_INDEX), wheels from a local folder."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from agenteval_ci.commands._install_try import UV_EXPORT, InstallLine, TryOutcome, choose, install_lines, try_line
from agenteval_ci.files.served_projects import ACTION_GOOGLE_ADK
from tests.action.wheels import user_wheels, write_wheel

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
    assert [t.outcome for t in tried] == [TryOutcome.FAILS, TryOutcome.WORKS]
    assert "Multiple top-level packages discovered in a flat-layout" in tried[0].detail
    assert chosen == InstallLine("pip install 'google-adk>=1.20'", "pyproject.toml's dependencies, without building the project")
    assert sorted(p.name for p in project.iterdir()) == sorted(p.name for p in WEATHER_DESK.iterdir())  # nothing left behind


def test_a_requirement_that_cannot_be_had_fails_with_pips_reason(tmp_path):
    (tmp_path / "requirements.txt").write_text("no-such-package-agenteval==1.0\n")
    chosen, tried = choose(tmp_path, OFFLINE)
    assert chosen is not None and chosen.command == "pip install -r requirements.txt"
    assert tried[0].outcome == TryOutcome.FAILS and "No matching distribution found for no-such-package-agenteval==1.0" in tried[0].detail


def test_a_line_that_works_installs_nothing(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels, "home-helpers", "1.0", requires=("pydantic>=2",), module="STEP = 2\n")
    (tmp_path / "requirements.txt").write_text("home-helpers==1.0\n")
    tried = try_line(install_lines(tmp_path)[0], tmp_path, {**OFFLINE, "PIP_FIND_LINKS": str(wheels)})
    assert tried.outcome == TryOutcome.WORKS, tried.detail
    assert importlib.util.find_spec("home_helpers") is None


# A PEP 517 backend that pip must install into its isolated build environment: it writes the
# metadata a dry run asks for and refuses to build (a dry run builds nothing).
LOCAL_BACKEND = """import os

def prepare_metadata_for_build_editable(directory, config_settings=None):
    info = os.path.join(directory, "built_ok-0.1.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as file:
        file.write("Metadata-Version: 2.1\\nName: built-ok\\nVersion: 0.1\\n")
    return "built_ok-0.1.dist-info"

prepare_metadata_for_build_wheel = prepare_metadata_for_build_editable

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("a dry run builds nothing")

build_wheel = build_editable
"""


def test_a_project_that_builds_in_isolation_works(tmp_path):
    """pip installs the build backend into an isolated environment of its own before asking it for
    the metadata: the dry run must not reach that install (it would leave the backend missing)."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels, "local-backend", "1.0", module=LOCAL_BACKEND)
    project = tmp_path / "built_ok"
    project.mkdir()
    (project / "pyproject.toml").write_text('[build-system]\nrequires = ["local-backend==1.0"]\n'
                                            'build-backend = "local_backend"\n\n[project]\nname = "built-ok"\nversion = "0.1"\n')
    chosen, tried = choose(project, {**OFFLINE, "PIP_FIND_LINKS": str(wheels), "PIP_DRY_RUN": "1"})
    assert [t.outcome for t in tried] == [TryOutcome.WORKS], tried
    assert chosen == InstallLine("pip install -e .", "pyproject.toml")
    assert sorted(p.name for p in project.iterdir()) == ["pyproject.toml"]


def test_a_crash_of_pip_is_told_by_its_last_line(tmp_path):
    """pip reports a failing backend hook as "ERROR: Exception:" and a traceback: the reason is its last line."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels, "local-backend", "1.0", module="raise ImportError('the backend cannot start')\n")
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["local-backend==1.0"]\nbuild-backend = "local_backend"\n')
    tried = try_line(install_lines(tmp_path)[0], tmp_path, {**OFFLINE, "PIP_FIND_LINKS": str(wheels)})
    assert tried.outcome == TryOutcome.FAILS
    assert "the backend cannot start" in tried.detail and "Exception:" not in tried.detail, tried.detail


@pytest.mark.skipif(shutil.which("uv") is not None, reason="uv is installed here")
def test_a_tool_the_line_would_install_first_cannot_be_tried(tmp_path):
    (tmp_path / "uv.lock").write_text("")
    (tmp_path / "requirements.txt").write_text("no-such-package-agenteval\n")
    chosen, tried = choose(tmp_path, OFFLINE)
    assert [t.outcome for t in tried] == [TryOutcome.UNKNOWN] and tried[0].detail == "`uv` is not installed here"
    assert chosen is not None and chosen.command == UV_EXPORT  # not replaced by a line that was never shown to work better


def test_a_line_that_hangs_is_stopped(tmp_path):
    tried = try_line(InstallLine(f"{sys.executable} -c 'import time; time.sleep(30)'", "test"), tmp_path, OFFLINE, timeout=0.5)
    assert tried.outcome == TryOutcome.UNKNOWN and tried.detail == "still running after 0.5s"


@pytest.mark.parametrize(("requirement", "refused"), [
    ("auditor-tools==1.0", "google-adk"),  # a dependency of the agent asks for an older google-adk, as llm-auditor's do
    ("legacy-lib==1.0", "pydantic"),  # one asks for another version of one of agenteval's packages
])
def test_a_line_the_actions_install_refuses_fails_here_too(tmp_path, requirement, refused):
    """The try runs with the action's constraints (the google-adk its image has, agenteval's other
    versions), so what the action refuses is not called working here."""
    wheels = user_wheels(tmp_path / "wheels")
    write_wheel(wheels, "auditor-tools", "1.0", requires=("google-adk<1.19",))
    (tmp_path / "requirements.txt").write_text(f"{requirement}\n")
    tried = try_line(install_lines(tmp_path)[0], tmp_path, {**OFFLINE, "PIP_FIND_LINKS": str(wheels)})
    assert tried.outcome == TryOutcome.FAILS, tried
    assert f"{requirement.split('==')[0]} 1.0 depends on {refused}" in tried.detail
    kept = ACTION_GOOGLE_ADK if refused == "google-adk" else importlib.metadata.version(refused)
    assert f"(constraint) {refused}=={kept}" in tried.detail, tried.detail
