"""session_state_match with a real google-adk agent against the fake Gemini: the final session state
is read from the in-process session and from `adk api_server`'s session (GET after the case), the
same for both; a case that sets the wrong preference is caught and shown as a state diff, and a
rule ignores the timestamp the agent writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval_ci.cli import main
from tests.agents.remote.helpers import free_port
from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply

PACKAGE = "prefs_state_agent"
AGENT = '''
import time

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext


def set_theme(theme: str, tool_context: ToolContext) -> dict:
    """Saves the user's colour theme.

    Args:
      theme: "dark" or "light".
    """
    tool_context.state["theme"] = theme
    tool_context.state["updated_at"] = time.time()
    return {"saved": theme}


root_agent = LlmAgent(name="prefs", model="gemini-2.5-flash", instruction="You save preferences for {user}.", tools=[set_theme])
'''
STATE = {"user": "Ada"}
CRITERIA = {"session_state_match": {"threshold": 1.0, "state_rules": {"updated_at": "ignore"}}}


def responder(request: GeminiRequest) -> dict[str, Any]:
    """Sets the theme the user names (the last word of the first user text), then says so."""
    if request.function_responses:
        return text_reply("Saved.")
    return function_call_reply([("set_theme", {"theme": request.last_user_text.split()[-1]})])


def _case(eval_id: str, says: str, expects: str) -> dict[str, Any]:
    return {
        "eval_id": eval_id,
        "session_input": {"app_name": PACKAGE, "user_id": "u1", "state": STATE},
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": f"Use the theme {says}"}]},
                          "final_response": {"role": "model", "parts": [{"text": "Saved."}]}}],
        "final_session_state": {**STATE, "theme": expects, "updated_at": 1700000000.0},
    }


@pytest.fixture
def project(tmp_path, monkeypatch):
    package = tmp_path / "agents" / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(AGENT)
    cases = [_case("dark", "dark", "dark"), _case("wrong_preference", "light", "dark")]
    (tmp_path / "prefs.evalset.json").write_text(json.dumps({"eval_set_id": "prefs", "eval_cases": cases}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": CRITERIA}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "agents"))
    yield tmp_path
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def _cases(path: str) -> dict[str, dict[str, Any]]:
    return {c["eval_id"]: c for c in json.loads(Path(path).read_text())["cases"]}


def test_the_state_metric_reads_in_process_and_api_server_sessions_alike(project, monkeypatch, capsys):
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        assert main(["run", f"agents/{PACKAGE}", "prefs.evalset.json", "--config_file_path", "test_config.json", "--json", "in_process.json", "-q"]) == 1
        port = free_port()
        agent = {"kind": "adk_api_server", "url": f"http://127.0.0.1:{port}", "ready_timeout_seconds": 120,
                 "start": f"{sys.executable} -m google.adk.cli api_server --host 127.0.0.1 --port {port} agents"}
        config = {"suites": [{"agent": agent, "eval_sets": "prefs.evalset.json", "eval_config": "test_config.json"}]}
        Path("agenteval.yaml").write_text(yaml.safe_dump(config))
        assert main(["run", "--json", "remote.json", "-q"]) == 1

    for path in ("in_process.json", "remote.json"):
        cases = _cases(path)
        dark, wrong = cases["dark"], cases["wrong_preference"]
        state = dark["runs"][0]["final_session_state"]
        assert state["user"] == "Ada" and state["theme"] == "dark" and isinstance(state["updated_at"], float), path
        assert dark["metrics"]["session_state_match"]["score"] == 1.0, path  # the timestamp differs, and is ignored
        assert wrong["runs"][0]["final_session_state"]["theme"] == "light", path
        metric = wrong["metrics"]["session_state_match"]
        assert (metric["score"], metric["status"]) == (0.5, "FAILED"), path  # user matches, theme does not
        checks = {c["path"]: c for c in metric["runs"][0]["details"]["state"]}
        assert set(checks) == {"user", "theme"}  # updated_at is left out: ignored
        assert (checks["theme"]["expected"], checks["theme"]["actual"], checks["theme"]["matched"]) == ("dark", "light", False)

    assert main(["report", "remote.json", "--format", "html", "-o", "report.html"]) == 0
    report = Path("report.html").read_text()
    assert "Final session state (expected -&gt; actual per key" in report
    assert "!     theme: &#34;dark&#34; -&gt; &#34;light&#34;   ✗ exact" in report
