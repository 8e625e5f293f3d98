"""`agenteval init` on ADK apps in Java, Go and TypeScript (tests/data/served): it cannot import
them, so it writes the remote form of `agent:` (docs/agents.md) that starts them with their
SDK's API server, a workflow that sets up their toolchain, and next steps saying what to check.
The written config loads in `validate`; the Node one runs end to end against a stand-in for
@google/adk-devtools' `adk api_server`."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agenteval_ci.cli import main
from tests.commands.test_init import _linters

ROOT = Path(__file__).resolve().parents[2]
SERVED = ROOT / "tests" / "data" / "served"

EXPECTED = {
    "java_maven": ({"kind": "adk_api_server", "url": "http://127.0.0.1:8000",
                    "start": "mvn -q compile exec:java -Dexec.mainClass=com.google.adk.web.AdkWebServer -Dexec.classpathScope=compile "
                             '-Dexec.args="--adk.agents.source-dir=src/main/java --server.port=8000"',
                    "ready_timeout_seconds": 600}, "actions/setup-java@v5"),
    "java_gradle": ({"kind": "adk_api_server", "url": "http://127.0.0.1:8081", "start": "gradle -q runADKWebServer",
                     "ready_timeout_seconds": 600}, "actions/setup-java@v5"),
    "go": ({"kind": "adk_api_server", "url": "http://127.0.0.1:8080/api", "start": "go run . web -port 8080 api",
            "ready": "/api/list-apps", "ready_timeout_seconds": 300}, "actions/setup-go@v6"),
    "node": ({"kind": "adk_api_server", "url": "http://127.0.0.1:8000", "start": "npx adk api_server agent.ts --host 127.0.0.1 --port 8000",
              "ready_timeout_seconds": 120}, "actions/setup-node@v5"),
}


@pytest.fixture
def served(tmp_path, request) -> Path:
    project = tmp_path / request.param
    shutil.copytree(SERVED / request.param, project)
    return project


@pytest.mark.parametrize("served", list(EXPECTED), indirect=True)
def test_init_writes_the_remote_agent_a_workflow_with_its_toolchain_and_what_to_check(served, capsys, monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    agent, setup = EXPECTED[served.name]
    assert main(["init", "--no-run", str(served)]) == 0
    out = capsys.readouterr().out
    config = yaml.safe_load((served / "agenteval.yaml").read_text())
    assert config["suites"] == [{"name": "default", "agent": agent, "eval_sets": ["eval/*.evalset.json"]}]
    assert "check:   ADK for " in out and f"the start command `{agent['start']}` serves ADK's API at {agent['url']}" in out
    assert "secret   GOOGLE_API_KEY" in out
    assert ("before `agenteval run` on this machine, so that `npx adk` is @google/adk-devtools'" in out) == (served.name == "node")
    assert main(["validate", str(served / "agenteval.yaml")]) == 0, capsys.readouterr().out
    gate = yaml.safe_load((served / ".github" / "workflows" / "agenteval.yml").read_text())
    steps = gate["jobs"]["agenteval"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert setup in uses and "actions/setup-python@v6" in uses and uses.index(setup) < uses.index("actions/setup-python@v6")
    runs = [s["run"] for s in steps if "run" in s]
    assert any(r.startswith("agenteval run --config agenteval.yaml --no-gate --shard 1/1 --json agenteval-results/results-1-of-1.json") for r in runs)
    merge = next(s for s in steps if s.get("id") == "agenteval")
    assert merge["with"] == {"mode": "merge", "config": "agenteval.yaml"}
    for linter in _linters():
        result = subprocess.run([*linter, str(served / ".github" / "workflows" / "agenteval.yml")], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_what_init_cannot_tell_is_a_check(tmp_path, capsys):
    """A Maven app without the dev server, a Go module without a main package, a Node app without devtools."""
    for name in ("java_maven", "go", "node"):
        shutil.copytree(SERVED / name, tmp_path / name)
    pom = tmp_path / "java_maven" / "pom.xml"
    pom.write_text(pom.read_text().replace("google-adk-dev", "google-adk-extras"))
    (tmp_path / "go" / "main.go").unlink()
    package = tmp_path / "node" / "package.json"
    package.write_text(package.read_text().replace('"@google/adk-devtools": "^0.2.0",', ""))
    for name, check in (("java_maven", "add the dependency com.google.adk:google-adk-dev to pom.xml"),
                        ("go", "no `package main` with func main() found"),
                        ("node", "add @google/adk-devtools to devDependencies")):
        assert main(["init", "--no-run", str(tmp_path / name)]) == 0
        assert check in capsys.readouterr().out, name


def test_nested_manifests_name_the_innermost_app_and_its_folder(tmp_path, capsys):
    """A Maven parent whose module is the ADK app: the module is started, in its own folder."""
    shutil.copytree(SERVED / "java_maven", tmp_path / "repo" / "agent")
    (tmp_path / "repo" / "pom.xml").write_text("<project><modules><module>agent</module></modules>"
                                               "<dependencyManagement>com.google.adk</dependencyManagement></project>")
    assert main(["init", "--no-run", str(tmp_path / "repo")]) == 0
    agent = yaml.safe_load((tmp_path / "repo" / "agenteval.yaml").read_text())["suites"][0]["agent"]
    assert agent["cwd"] == "agent" and agent["url"] == "http://127.0.0.1:8000"
    assert "ADK for Java (Maven) in agent" in capsys.readouterr().out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_node_app_runs_end_to_end_with_the_config_init_wrote(served_node):
    """`npx adk api_server ...` started from the written config (its port moved to a free one),
    ready at /list-apps, one session per case run, the forecast call scored: the gate passes."""
    project = served_node
    config = project / "agenteval.yaml"
    port = _free_port()
    config.write_text(config.read_text().replace("8000", str(port)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "agenteval_ci", "run"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr + (project / ".agenteval" / "agent.log").read_text()
    assert "PASS  default / weather / oslo" in done.stdout and "tool_trajectory_avg_score 1.000" in done.stdout
    assert f"starting `npx adk api_server agent.ts --host 127.0.0.1 --port {port}`" in (project / ".agenteval" / "agent.log").read_text()


@pytest.fixture
def served_node(tmp_path) -> Path:
    if not shutil.which("node") or not shutil.which("npx"):
        pytest.skip("node and npx are needed to start the Node app")
    project = tmp_path / "node"
    shutil.copytree(SERVED / "node", project)
    assert main(["init", "--no-run", "-q", str(project)]) == 0
    bin_dir = project / "node_modules" / ".bin"  # what `npm install` of @google/adk-devtools would put there
    bin_dir.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "fakes" / "adk_api_server.js", bin_dir / "adk")
    (bin_dir / "adk").chmod(0o755)
    return project


def test_a_python_app_pinning_another_google_adk_is_served_from_its_own_virtualenv(tmp_path, capsys):
    """weather_desk asking for google-adk 1.18, which the action would refuse beside its own
    2.13: `adk api_server` from a virtualenv of its requirements, made by the workflow first;
    end to end through the fake Gemini with a stand-in for that virtualenv's `adk`."""
    from tests.commands.test_init_keys import weather_model

    project = tmp_path / "weather_desk"
    shutil.copytree(ROOT / "tests" / "data" / "weather_desk", project)
    (project / "requirements.txt").write_text("google-adk==1.18.0  # the version the team validated\n")
    assert main(["init", "--no-run", str(project)]) == 0
    out = capsys.readouterr().out
    agent = yaml.safe_load((project / "agenteval.yaml").read_text())["suites"][0]["agent"]
    assert agent == {"kind": "adk_api_server", "url": "http://127.0.0.1:8000", "app_name": "weather_desk", "ready_timeout_seconds": 120,
                     "start": ".agenteval/agent-venv/bin/adk api_server --host 127.0.0.1 --port 8000 ."}
    venv = "python3 -m venv .agenteval/agent-venv && . .agenteval/agent-venv/bin/activate && pip install -r requirements.txt"
    assert "requirements.txt asks for google-adk==1.18.0, which excludes the google-adk 2.13.0" in out and venv in out
    assert "/.agenteval/agent-venv/\n" in (project / ".gitignore").read_text()
    steps = yaml.safe_load((project / ".github" / "workflows" / "agenteval.yml").read_text())["jobs"]["agenteval"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert runs.index(venv) < next(i for i, r in enumerate(runs) if r.startswith("agenteval run"))
    assert main(["validate", str(project / "agenteval.yaml")]) == 0

    done, _ = _run_in_its_virtualenv(project, weather_model)
    assert done.stdout.count("PASS  default / forecasts / ") == 2 and "tool_trajectory_avg_score 1.000" in done.stdout


def _run_in_its_virtualenv(project: Path, responder) -> tuple[subprocess.CompletedProcess, list]:
    """`agenteval run` on the config init wrote, through the fake Gemini, with a stand-in for the
    virtualenv's `adk`: google-adk's own CLI from this environment (which has the OTLP exporter)."""
    from tests.fakes.gemini import FakeGemini

    adk = project / ".agenteval" / "agent-venv" / "bin" / "adk"  # what the virtualenv would hold
    adk.parent.mkdir(parents=True)
    adk.write_text(f"#!/bin/sh\nexec {sys.executable} -m google.adk.cli \"$@\"\n")
    adk.chmod(0o755)
    config = project / "agenteval.yaml"
    config.write_text(config.read_text().replace("8000", str(_free_port())))
    with FakeGemini(responder=responder) as gemini:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "GEMINI_API_KEY": "fake-key", "GOOGLE_GEMINI_BASE_URL": gemini.base_url}
        env.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
        done = subprocess.run([sys.executable, "-m", "agenteval_ci", "run"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    log = (project / ".agenteval" / "agent.log").read_text()
    assert done.returncode == 0, done.stdout + done.stderr + log
    return done, list(gemini.requests)


RUBRIC = {"threshold": 0.5, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 1},
          "rubrics": [{"rubric_id": "uses_the_tool", "rubric_content": {"text_property": "The answer comes from the forecast tool."}}]}


def _weather_model_and_rubric_judge(request):
    from tests.commands.test_init_keys import weather_model
    from tests.fakes.gemini import text_reply

    if "### Properties to check" in request.prompt_text:
        ids = re.findall(r"^- id: (\S+) \|", request.prompt_text, re.M)
        return text_reply(json.dumps({"rubrics": [{"id": i, "rationale": "ok", "verdict": "yes"} for i in ids]}))
    return weather_model(request)


def test_a_served_python_app_whose_judges_read_its_instructions_is_traced(tmp_path, capsys):
    """A rubric judge reads the agent's instructions and tool declarations, which ADK's API server
    reports only in its spans: init writes `traces: true`, and the virtualenv's set-up installs the
    OTLP exporter when it is missing; the run then judges with them and warns of nothing."""
    project = tmp_path / "weather_desk"
    shutil.copytree(ROOT / "tests" / "data" / "weather_desk", project)
    (project / "requirements.txt").write_text("google-adk==1.18.0\n")
    criteria = project / "eval" / "test_config.json"
    config = json.loads(criteria.read_text())
    config["criteria"]["rubric_based_final_response_quality_v1"] = RUBRIC
    criteria.write_text(json.dumps(config))
    assert main(["init", "--no-run", str(project)]) == 0
    out = capsys.readouterr().out
    agent = yaml.safe_load((project / "agenteval.yaml").read_text())["suites"][0]["agent"]
    assert agent["traces"] is True
    steps = yaml.safe_load((project / ".github" / "workflows" / "agenteval.yml").read_text())["jobs"]["agenteval"]["steps"]
    [setup] = [s["run"] for s in steps if "agent-venv/bin/activate" in s.get("run", "")]
    assert setup.startswith("python3 -m venv .agenteval/agent-venv && . .agenteval/agent-venv/bin/activate && pip install -r requirements.txt && "
                            '(python -c "import opentelemetry.exporter.otlp.proto.http" 2>/dev/null || pip install opentelemetry-exporter-otlp-proto-http')
    assert _exit_code("false" + setup.split("pip install -r requirements.txt", 1)[1], tmp_path) != 0  # a failed install fails the step
    assert setup in out and "`traces: true` receives them" in out  # the check line shows the same set-up

    done, requests = _run_in_its_virtualenv(project, _weather_model_and_rubric_judge)
    assert "judged without" not in done.stdout + done.stderr
    judged = [r.prompt_text for r in requests if "### Properties to check" in r.prompt_text]
    assert judged and all("You answer questions about the weather with the forecast tool." in p for p in judged)


def _exit_code(line: str, tmp_path: Path) -> int:
    """The shell line's exit code, with stand-ins that have no exporter (`python` fails) and install anything (`pip`)."""
    bin_dir = tmp_path / "stand-ins"
    bin_dir.mkdir()
    for name, code in (("python", 1), ("pip", 0)):
        (bin_dir / name).write_text(f"#!/bin/sh\nexit {code}\n")
        (bin_dir / name).chmod(0o755)
    return subprocess.run(["sh", "-c", line], env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}).returncode


def test_a_served_python_app_whose_judges_need_no_instructions_is_not_traced(tmp_path):
    project = tmp_path / "weather_desk"
    shutil.copytree(ROOT / "tests" / "data" / "weather_desk", project)
    (project / "requirements.txt").write_text("google-adk==1.18.0\n")
    assert main(["init", "--no-run", str(project)]) == 0  # final_response_match_v2 reads the answers only
    assert "traces" not in yaml.safe_load((project / "agenteval.yaml").read_text())["suites"][0]["agent"]
    assert "opentelemetry" not in (project / ".github" / "workflows" / "agenteval.yml").read_text()


def test_a_java_agent_in_a_deep_package_is_read_for_its_model_constant(tmp_path, capsys, monkeypatch):
    """ADK's Java samples keep the agent in a reverse-domain package (src/main/java/com/google/adk/
    samples/agents/NAME) and its model in a constant: the key is named for that model, not ADK's
    default, and the agents' source folder is found."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    project = tmp_path / "java" / "agents" / "weather"
    shutil.copytree(SERVED / "java_maven", project)
    java = project / "src" / "main" / "java"
    package = java / "com" / "google" / "adk" / "samples" / "agents" / "weather"
    package.mkdir(parents=True)
    source = (java / "com" / "example" / "weather" / "WeatherAgent.java").read_text()
    shutil.rmtree(java / "com" / "example")
    constant = source.replace('.model("gemini-2.0-flash")', ".model(MODEL_NAME)").replace(
        "public class WeatherAgent {", 'public class WeatherAgent {\n  private static final String MODEL_NAME = "gemini-2.0-flash";')
    (package / "WeatherAgent.java").write_text(constant)
    assert main(["init", "--no-run", str(project)]) == 0
    out = capsys.readouterr().out
    where = "src/main/java/com/google/adk/samples/agents/weather/WeatherAgent.java"
    assert f"secret   GOOGLE_API_KEY  the agent's model gemini-2.0-flash ({where})" in out
    assert "ADK's default model" not in out
