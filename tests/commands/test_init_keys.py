"""`agenteval init` names every key the agent's models and the judges need, and tries the
install line it chose: on tests/data/weather_desk (an agent reading GEMINI_API_KEY, a
pyproject.toml that does not build), on the legacy eval files under a Vertex AI agent, and,
once the key is set, a first baseline through the fake Gemini server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply
from tests.judge.helpers import json_reply

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
KEYS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "WEATHER_API_KEY")


def _agenteval(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """The CLI as a user runs it, offline: no package index (the install try resolves from this
    environment's packages), no key unless given."""
    base = {k: v for k, v in os.environ.items() if k not in KEYS}
    base.update(PYTHONPATH=str(ROOT), NO_COLOR="1", PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_NO_BUILD_ISOLATION="0", **env)
    return subprocess.run([sys.executable, "-m", "agenteval_ci", *args], cwd=cwd, env=base, capture_output=True, text=True, timeout=600)


def _copy(name: str, tmp_path: Path) -> Path:
    project = tmp_path / name
    shutil.copytree(DATA / name, project)
    (project / ".git").mkdir()
    return project


def weather_model(request: GeminiRequest):
    """The weather desk's model (one forecast call, then the answer) and its judge (valid)."""
    if "tools" not in request.body:
        return json_reply({"reasoning": "Same weather.", "verdict": "valid"})
    results = request.function_responses
    if results:
        answer = results[-1]["response"]
        return text_reply(f"Tomorrow it snows in {answer['city']}." if answer.get("sky") == "snow" else f"Tomorrow it is sunny in {answer['city']}.")
    city = re.search(r"in (\w+)", request.last_user_text)[1]
    return function_call_reply([("forecast", {"city": city})])


def test_weather_desk_names_both_keys_and_flags_the_install_that_does_not_build(tmp_path):
    pytest.importorskip("setuptools", reason="the offline build try uses this environment's setuptools")
    project = _copy("weather_desk", tmp_path)
    done = _agenteval(["init"], project)
    out = done.stdout
    assert done.returncode == 2, out + done.stderr  # no first baseline without the key: never a pass
    steps = out.split("next steps:")[1]
    assert re.search(r"secret +GEMINI_API_KEY +the agent's model gemini-2.5-flash \(weather_desk/agent.py\); the judges' model "
                     r"gemini-2.5-flash \(final_response_match_v2, eval/test_config.json\); the agent reads it \(weather_desk/agent.py\)", steps)
    # only .env.example names it: optional, and no run needs it
    assert re.search(r"optional WEATHER_API_KEY +named in .env.example, but no code the eval runs reads it: if the agent needs it "
                     r"after all, add it as a secret and to `env:` in .github/workflows/agenteval.yml", steps)
    # the project names GEMINI_API_KEY; deployment scripts, the web server and deployment's .env lines are not the agent
    for name in ("GOOGLE_API_KEY", "STAGING_BUCKET", "LOGS_BUCKET_NAME", "GOOGLE_CLOUD_STORAGE_BUCKET"):
        assert name not in out, name
    assert "not set on this machine: GEMINI_API_KEY (" in steps
    assert "install: `pip install -e .` (pyproject.toml) FAILS: " in out and "Multiple top-level packages" in out
    assert "install: the workflow installs with `pip install 'google-adk>=1.20'`, because `pip install -e .` fails" in steps
    assert "no baseline written: agenteval.yaml at $.suites[0].agent: cannot load agent 'weather_desk': KeyError: 'GEMINI_API_KEY'" in out
    gate = yaml.safe_load((project / ".github" / "workflows" / "agenteval.yml").read_text())
    step = next(s for s in gate["jobs"]["agenteval"]["steps"] if s.get("id") == "agenteval")
    assert step["with"]["install"] == "pip install 'google-adk>=1.20'"
    assert step["env"] == {"GEMINI_API_KEY": "${{ secrets.GEMINI_API_KEY }}"}

    with FakeGemini(responder=weather_model) as gemini:  # the key set: the first baseline, agent and judge on GEMINI_API_KEY
        again = _agenteval(["init"], project, GEMINI_API_KEY="fake-key", GOOGLE_GEMINI_BASE_URL=gemini.base_url)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "accepted all cases into .agenteval/baseline.json (2 case(s) in the baseline; their recorded outputs" in again.stdout
    assert "not set on this machine" not in again.stdout and "not set here" not in again.stdout
    assert any("tools" not in r.body for r in gemini.requests)  # the judge was asked too


VERTEX_AGENT = '''from google.adk.agents import Agent

root_agent = Agent(name="home", model="gemini-2.0-flash", instruction="Control the home.")
'''


def test_legacy_files_under_a_vertex_ai_agent_get_vertex_settings_and_a_google_cloud_sign_in(tmp_path):
    project = tmp_path / "home"
    shutil.copytree(DATA / "legacy", project / "home_agent")
    (project / "home_agent" / "__init__.py").write_text("from . import agent\n")
    (project / "home_agent" / "agent.py").write_text(VERTEX_AGENT)
    (project / "home_agent" / ".env").write_text("GOOGLE_GENAI_USE_VERTEXAI=TRUE\nGOOGLE_CLOUD_PROJECT=my-project\n"
                                                 "GOOGLE_CLOUD_LOCATION=us-central1\nGOOGLE_API_KEY=unused\n")
    (project / "requirements.txt").write_text("google-adk\n")
    done = _agenteval(["init", "--no-run"], project, GOOGLE_CLOUD_PROJECT="my-project")
    assert done.returncode == 0, done.stdout + done.stderr
    steps = done.stdout.split("next steps:")[1]
    assert re.search(r'set by  GOOGLE_GENAI_USE_VERTEXAI +the workflow, to "true": the agent\'s model gemini-2.0-flash \(home_agent/agent.py\)',
                     steps)
    assert re.search(r"variable GOOGLE_CLOUD_PROJECT +the agent's model", steps) and re.search(r"variable GOOGLE_CLOUD_LOCATION", steps)
    assert re.search(r"secret +GCP_CREDENTIALS +a Google Cloud service account key for Vertex AI", steps)
    assert "not set on this machine: GOOGLE_CLOUD_LOCATION" in steps and "GOOGLE_API_KEY" not in done.stdout
    assert "2 eval file(s) use ADK's legacy .test.json format" in done.stdout
    gate = yaml.safe_load((project / ".github" / "workflows" / "agenteval.yml").read_text())
    steps_ = gate["jobs"]["agenteval"]["steps"]
    auth = next(s for s in steps_ if s.get("uses", "").startswith("google-github-actions/auth@"))
    assert auth["with"] == {"credentials_json": "${{ secrets.GCP_CREDENTIALS }}"}
    assert steps_.index(auth) < next(i for i, s in enumerate(steps_) if s.get("id") == "agenteval")
    assert next(s for s in steps_ if s.get("id") == "agenteval")["env"] == {
        "GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "${{ vars.GOOGLE_CLOUD_PROJECT }}",
        "GOOGLE_CLOUD_LOCATION": "${{ vars.GOOGLE_CLOUD_LOCATION }}"}


def test_the_judge_cache_is_ignored_and_the_choice_said(tmp_path):
    project = _copy("newcomer", tmp_path)
    (project / ".gitignore").write_bytes(b"*.pyc\r\n")
    done = _agenteval(["init", "--no-run"], project)
    assert done.returncode == 0, done.stderr
    assert (project / ".gitignore").read_bytes() == b"*.pyc\r\n/.agenteval/results.json\r\n/.agenteval/agent.log\r\n/.agenteval/cache/\r\n"
    assert ("wrote     .gitignore (ignores /.agenteval/cache/: the judge cache, kept between CI runs by actions/cache; "
            "commit it instead for offline PR runs (docs/judge.md))") in done.stdout
    quiet = _agenteval(["init", "--no-run", "-q"], project)
    assert "unchanged" not in quiet.stdout and "found:" not in quiet.stdout and "next steps:" in quiet.stdout


LITELLM_AGENT = '''import os

from google.adk.agents import Agent
from google.adk.models.lite_llm import LiteLlm

root_agent = Agent(name="chat", model=LiteLlm(model=os.environ["MODEL"]), instruction="Chat.")
'''


def test_a_model_named_in_the_env_file_is_the_agents_model(tmp_path):
    """The model string is in .env.example, read by name: its provider's key, and the setting."""
    project = tmp_path / "chat"
    (project / "chat").mkdir(parents=True)
    (project / "chat" / "__init__.py").write_text("from . import agent\n")
    (project / "chat" / "agent.py").write_text(LITELLM_AGENT)
    (project / "chat" / ".env.example").write_text("MODEL=anthropic/claude-sonnet-4-5\nANTHROPIC_API_KEY=\n")
    (project / "chat" / "chat.evalset.json").write_text('{"eval_set_id": "chat", "eval_cases": [{"eval_id": "hi", "conversation": []}]}')
    done = _agenteval(["init", "--no-run"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    steps = done.stdout.split("next steps:")[1]
    assert re.search(r"secret +ANTHROPIC_API_KEY +the agent's model anthropic/claude-sonnet-4-5 \(chat/.env.example\); named in chat/.env.example", steps)
    assert re.search(r"variable MODEL +the agent reads it \(chat/agent.py\); named in chat/.env.example", steps)
    assert "GOOGLE_API_KEY" not in steps  # no judged metric, no Gemini model


def test_an_install_line_that_fails_with_no_alternative_is_flagged_in_the_next_steps(tmp_path):
    pytest.importorskip("setuptools", reason="the offline build try uses this environment's setuptools")
    project = _copy("weather_desk", tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('dependencies = ["google-adk>=1.20"]\n', ""))
    done = _agenteval(["init"], project)
    assert done.returncode == 2, done.stdout + done.stderr  # the first run lacked the key
    steps = done.stdout.split("next steps:")[1]
    assert re.search(r"install: `pip install -e .` FAILS here \(.*Multiple top-level packages.*\): fix it, or set `install:` in "
                     r"\.github/workflows/agenteval\.yml to a line that works, before the workflow runs", steps)
    gate = (project / ".github" / "workflows" / "agenteval.yml").read_text()
    assert "install: pip install -e ." in gate  # kept as found: nothing shown to work better


def test_the_vertex_switch_of_an_env_example_holds_whatever_key_init_runs_with(tmp_path):
    """adk-samples write `GOOGLE_GENAI_USE_VERTEXAI=1` in .env.example: the workflow runs the agent
    on Vertex AI even when the person running init has a Gemini API key set."""
    project = tmp_path / "home"
    (project / "home_agent").mkdir(parents=True)
    (project / "home_agent" / "__init__.py").write_text("from . import agent\n")
    (project / "home_agent" / "agent.py").write_text(VERTEX_AGENT)
    (project / ".env.example").write_text("GOOGLE_GENAI_USE_VERTEXAI=1\nGOOGLE_CLOUD_PROJECT=your-project\nGOOGLE_CLOUD_LOCATION=us-central1\n")
    (project / "home_agent" / "home.evalset.json").write_text('{"eval_set_id": "home", "eval_cases": [{"eval_id": "hi", "conversation": []}]}')
    done = _agenteval(["init", "--no-run"], project, GOOGLE_API_KEY="a-key-of-my-own")
    assert done.returncode == 0, done.stdout + done.stderr
    env = next(s for s in yaml.safe_load((project / ".github" / "workflows" / "agenteval.yml").read_text())["jobs"]["agenteval"]["steps"]
               if s.get("id") == "agenteval")["env"]
    assert env == {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "${{ vars.GOOGLE_CLOUD_PROJECT }}",
                   "GOOGLE_CLOUD_LOCATION": "${{ vars.GOOGLE_CLOUD_LOCATION }}"}
    assert "GCP_CREDENTIALS" in done.stdout and "GOOGLE_API_KEY" not in done.stdout.split("next steps:")[1]
