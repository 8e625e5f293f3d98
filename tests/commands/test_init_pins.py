"""`agenteval init` on a project laid out as google/adk-samples' are: google-adk pinned with
Poetry to a range that excludes the action's google-adk. init reads the pin, serves the agent from
a virtualenv of its own requirements, makes that virtualenv itself with the command the workflow
runs, and ends with a first baseline, or with a non-zero exit and the command that finishes the job.

Offline: pip installs from a folder of tiny wheels; the google-adk 1.18.0 there is a stand-in whose
`adk` runs this environment's google-adk, and the agent's model and the judge are the fake Gemini."""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path

import pytest
import yaml

from agenteval_ci.cli import main
from agenteval_ci.files.served_projects import ACTION_GOOGLE_ADK
from tests.action.wheels import write_wheel
from tests.commands.test_init_keys import weather_model
from tests.fakes.gemini import FakeGemini

ROOT = Path(__file__).resolve().parents[2]
VENV = "python3 -m venv .agenteval/agent-venv && . .agenteval/agent-venv/bin/activate && pip install -r requirements.txt"
# adk-samples' pyproject.toml: Poetry, google-adk on a caret range.
POETRY = """[tool.poetry]
name = "weather-desk"
version = "0.1.0"

[tool.poetry.dependencies]
python = "^3.10"
google-adk = "^1.18.0"

[build-system]
requires = ["poetry-core>=2.0.0"]
build-backend = "poetry.core.masonry.api"
"""
STAND_IN_ADK = f"""import os
import sys


def main():
    os.execv({sys.executable!r}, [{sys.executable!r}, "-m", "google.adk.cli", *sys.argv[1:]])
"""


@pytest.fixture
def poetry_project(tmp_path, monkeypatch) -> Path:
    if not shutil.which("python3"):
        pytest.skip("the agent's virtualenv is made with python3")
    project = tmp_path / "weather_desk"
    shutil.copytree(ROOT / "tests" / "data" / "weather_desk", project)
    (project / "pyproject.toml").write_text(POETRY)
    (project / "requirements.txt").write_text("google-adk  # the version is Poetry's\n")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
    return project


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _written_on_a_free_port(project: Path, capsys) -> str:
    """init --no-run, then the served agent's port moved to a free one (tests run side by side)."""
    assert main(["init", "--no-run", str(project)]) == 0
    out = capsys.readouterr().out
    config = project / "agenteval.yaml"
    agent = yaml.safe_load(config.read_text())["suites"][0]["agent"]
    assert isinstance(agent, dict) and agent["kind"] == "adk_api_server", agent  # served, not imported
    config.write_text(config.read_text().replace("8000", str(_free_port())))
    return out


def test_a_poetry_pin_is_served_and_init_makes_its_virtualenv_and_the_first_baseline(poetry_project, capsys, monkeypatch):
    project = poetry_project
    write_wheel(Path(os.environ["PIP_FIND_LINKS"]), "google-adk", "1.18.0", module=STAND_IN_ADK, scripts={"adk": "google_adk:main"})
    out = _written_on_a_free_port(project, capsys)
    assert (f'pyproject.toml asks for google-adk = "^1.18.0" ([tool.poetry.dependencies]), which excludes the google-adk '
            f"{ACTION_GOOGLE_ADK} the action imports agents with") in out
    assert f"widen that pin to admit {ACTION_GOOGLE_ADK}" in out
    assert f"not run (--no-run): `{VENV} && agenteval run --new-baseline && agenteval accept` writes the first baseline" in out
    with FakeGemini(responder=weather_model) as gemini:
        monkeypatch.setenv("GEMINI_API_KEY", "fake-key")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini.base_url)
        code = main(["init", str(project)])  # agenteval.yaml kept; no baseline yet: the first run
    out = capsys.readouterr().out
    log = project / ".agenteval" / "agent.log"
    assert code == 0, out + (log.read_text() if log.exists() else "")
    assert f"as the workflow does: {VENV}" in out
    assert (project / ".agenteval" / "agent-venv" / "bin" / "adk").exists()
    assert "accepted all cases into " in out and "baseline.json (2 case(s) in the baseline" in out
    assert (project / ".agenteval" / "baseline.json").is_file()


def test_a_virtualenv_that_cannot_be_made_skips_the_first_run_and_exits_non_zero(poetry_project, capsys):
    project = poetry_project  # no google-adk in the wheels folder: the agent's requirements cannot be had
    _written_on_a_free_port(project, capsys)
    code = main(["init", str(project)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert f"not run, no baseline written: `{VENV}` failed (" in out and "No matching distribution found for google-adk" in out
    assert f"fix that, then: {VENV} && agenteval run --new-baseline && agenteval accept" in out
    assert "running the suites" not in out and not (project / ".agenteval" / "baseline.json").exists()


@pytest.mark.parametrize(("constraint", "served"), [("^0.5.0", True), ("^1.0.0", True), ("^2.0", False), (">=1.0 <3.0", False)])
def test_a_poetry_only_project_is_served_when_its_pin_excludes_the_actions_google_adk(tmp_path, capsys, constraint, served):
    """adk-samples' own layout, no requirements.txt: its venv installs the project (Poetry builds it);
    a pin that admits the action's google-adk keeps the agent in-process."""
    project = tmp_path / "weather_desk"
    shutil.copytree(ROOT / "tests" / "data" / "weather_desk", project)
    (project / "pyproject.toml").write_text(POETRY.replace('"^1.18.0"', f'"{constraint}"'))
    assert main(["init", "--no-run", str(project)]) == 0
    out = capsys.readouterr().out
    agent = yaml.safe_load((project / "agenteval.yaml").read_text())["suites"][0]["agent"]
    assert (agent != "weather_desk") == served, agent
    venv = "python3 -m venv .agenteval/agent-venv && . .agenteval/agent-venv/bin/activate && pip install -e ."
    assert (venv in out) == served
    assert (f'pyproject.toml asks for google-adk = "{constraint}" ([tool.poetry.dependencies])' in out) == served
