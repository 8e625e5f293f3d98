"""The judge's endpoint and credentials are read before the agent is imported and are immune to
what the agent does to os.environ; a credentials failure is reported as one (issue 22)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from agenteval_ci.judge import make_judge
from agenteval_ci.judge.access import JudgeAccess
from tests.fakes.gemini import FakeGemini
from tests.judge.helpers import fast_settings
from tests.judge.judged_project import AGENT, judged_scores, verdicts, write_project

# What an agents-cli sample does at import (it found its project with google.auth.default()),
# plus a key and an endpoint of the agent's own.
VERTEX_AGENT = """
import os
os.environ["GOOGLE_GENAI_USE_VERTEXAI"] = "True"
os.environ["GOOGLE_CLOUD_PROJECT"] = "the-agents-project"
os.environ["GOOGLE_CLOUD_LOCATION"] = "global"
os.environ["GOOGLE_API_KEY"] = "the-agents-key"
os.environ["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"
""" + AGENT


def test_an_agent_that_switches_to_vertex_at_import_leaves_the_judge_alone(tmp_path):
    config = write_project(tmp_path, agent=VERTEX_AGENT, cases=2)
    with FakeGemini(responder=verdicts, api_key="the-judges-key") as fake:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GOOGLE_API_KEY": "the-judges-key", "GOOGLE_GEMINI_BASE_URL": fake.base_url}
        done = subprocess.run([sys.executable, "-m", "agenteval_ci", "run", "--config", str(config), "--json", "r.json"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        paths = {r.path.split(":")[0] for r in fake.requests}
    assert paths == {"/v1beta/models/gemini-2.5-flash"}  # the Gemini API with the judge's own key, never Vertex
    scores = judged_scores(json.loads((tmp_path / "r.json").read_text()))
    assert {status for _, status, _ in scores.values()} == {"PASSED", "FAILED"}  # every judged score evaluated
    assert "0 gated metric score(s) not evaluated" in done.stdout and "credentials" not in done.stdout + done.stderr
    assert done.returncode == 1 and "gate failed (no baseline: thresholds only" in done.stdout  # case0 is judged invalid


def ask(judge) -> str:
    answer = asyncio.run(judge.ask("metric", "gemini-2.5-flash", None, "grade this", 0))
    assert answer.text is None
    return answer.error


def test_vertex_without_usable_credentials_is_a_credentials_failure_naming_what_is_missing(tmp_path):
    missing = tmp_path / "key.json"
    env = {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_APPLICATION_CREDENTIALS": str(missing)}
    judge = make_judge(fast_settings(tmp_path), env)
    error = ask(judge)
    assert error.startswith("judge call failed: judge credentials failed: Vertex AI (GOOGLE_GENAI_USE_VERTEXAI) needs application default credentials")
    assert "GOOGLE_APPLICATION_CREDENTIALS" in error and f"File {missing} was not found" in error
    assert ask(judge).startswith("judge credentials failed")  # later samples: the same reason, at once
    missing.write_text("{not json")
    assert "is not a valid json file" in ask(make_judge(fast_settings(tmp_path), env))


def test_no_project_for_vertex_is_no_credentials():
    access = JudgeAccess.from_env({"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_API_KEY": "k"})
    assert access.vertexai and access.problem.startswith("no judge credentials")


def test_the_key_never_shows_in_a_repr():
    access = JudgeAccess.from_env({"GEMINI_API_KEY": "secret-key", "GOOGLE_GEMINI_BASE_URL": "http://x"})
    assert access.api_key == "secret-key" and access.base_url == "http://x" and access.problem is None
    assert "secret-key" not in repr(access)


def test_the_yaml_base_url_wins_over_the_environment():
    access = JudgeAccess.from_env({"GOOGLE_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "http://env"}, base_url="http://yaml")
    assert access.base_url == "http://yaml"


def test_a_key_kept_in_the_agents_env_reaches_the_judge_and_the_agent(tmp_path):
    """ADK's quickstart keeps GOOGLE_API_KEY in the agent folder's .env; `adk eval` loads it, so we do."""
    agent = 'import os\nSEEN = os.environ["AGENT_SETTING"]\n' + AGENT
    config = write_project(tmp_path, agent=agent, cases=2)
    (tmp_path / ".git").mkdir()
    with FakeGemini(responder=verdicts, api_key="the-dotenv-key") as fake:
        (tmp_path / ".env").write_text(f"GOOGLE_API_KEY=the-dotenv-key\nGOOGLE_GEMINI_BASE_URL={fake.base_url}\nAGENT_SETTING=1\n")
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "agenteval_ci", "run", "--config", str(config), "--json", "r.json", "--log-level", "INFO"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        asked = len(fake.requests)
    assert asked > 0 and "credentials" not in done.stdout + done.stderr
    assert f"note: loaded {(tmp_path / '.env').resolve().as_posix()} (3 variable(s) not already set)" in done.stderr
    scores = judged_scores(json.loads((tmp_path / "r.json").read_text()))
    assert {status for _, status, _ in scores.values()} == {"PASSED", "FAILED"}
    env["ADK_DISABLE_LOAD_DOTENV"] = "1"  # ADK's switch: the agent no longer finds its setting
    done = subprocess.run([sys.executable, "-m", "agenteval_ci", "run", "--config", str(config), "--json", "r2.json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "AGENT_SETTING" in done.stdout + done.stderr
