"""`kind: agent_engine`: a real two-agent ADK app served by a loopback fake of Vertex AI Agent
Engine's REST API (sessions through :query, turns through :streamQuery) that checks and rotates
access tokens google-auth gets from a fake token endpoint: the recorded turns and the scores
equal the in-process run of the same agent; a wrong resource name stops the command (exit 2)."""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path

import pytest
import yaml

from agenteval_ci.cli import main
from tests.agents.remote.test_adk_api_server import _without_run_specifics, project  # noqa: F401 - a fixture
from tests.agents.remote.test_auth import google_env  # noqa: F401 - a fixture
from tests.agents.test_adk_app_details import PACKAGE, responder
from tests.fakes.agent_engine import FakeAgentEngine
from tests.fakes.gemini import FakeGemini
from tests.fakes.google_auth import FakeTokenEndpoint

CRITERIA = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}


@pytest.fixture
def gemini(project, monkeypatch):
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        (project / "test_config.json").write_text(json.dumps({"criteria": CRITERIA}))
        yield fake


def _engine_run(agent: dict, results: str) -> int:
    config = {"suites": [{"agent": agent, "eval_sets": "shop.evalset.json", "eval_config": "test_config.json"}]}
    Path("agenteval.yaml").write_text(yaml.safe_dump(config))
    return main(["run", "--json", results, "--no-gate", "-q"])


def _scores(case: dict) -> dict:
    return {name: (m.get("score"), m.get("status")) for name, m in case["metrics"].items() if name not in ("latency", "invocation_duration_v1")}


@pytest.mark.parametrize("legacy", [False, True], ids=["async_methods", "deployed_before_async_methods"])
def test_scores_and_turns_equal_the_in_process_run_while_tokens_rotate(gemini, google_env, legacy):
    assert main(["run", f"agents/{PACKAGE}", "shop.evalset.json", "--config_file_path", "test_config.json", "--json", "in_process.json", "-q"]) == 0
    agent_module = importlib.import_module(f"{PACKAGE}.agent")
    with FakeTokenEndpoint() as tokens, FakeAgentEngine(agent_module.root_agent, tokens, legacy=legacy, revoke_after=2) as engine:
        google_env(tokens)
        assert _engine_run({"kind": "agent_engine", "url": engine.url}, "engine.json") == 0
        sessions = [r for r in engine.requests if r["path"].endswith(":query") and r["input"].get("state")]
    [ours] = json.loads(Path("in_process.json").read_text())["cases"]
    [theirs] = json.loads(Path("engine.json").read_text())["cases"]
    local, remote = ours["runs"][0]["invocations"], theirs["runs"][0]["invocations"]
    assert len(local) == len(remote) == 2
    for mine, deployed in zip(local, remote):
        assert {k: v for k, v in _without_run_specifics(deployed).items() if k != "app_details"} == \
               {k: v for k, v in _without_run_specifics(mine).items() if k != "app_details"}
    assert _scores(theirs) == _scores(ours) and theirs["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0
    assert theirs["runs"][0]["tokens"] == ours["runs"][0]["tokens"]
    assert sessions and sessions[0]["input"]["state"]["customer_name"] == "Ada"  # the case's initial state
    assert engine.refusals == 1 and len(tokens.requests) == 2  # the revoked token was replaced once
    assert not [t for t in tokens.issued if t in Path("engine.json").read_text()]


def test_a_wrong_resource_name_stops_the_command_saying_what_was_tried(gemini, google_env, capsys):
    agent_module = importlib.import_module(f"{PACKAGE}.agent")
    with FakeTokenEndpoint() as tokens, FakeAgentEngine(agent_module.root_agent, tokens) as engine:
        google_env(tokens)
        wrong = engine.url.replace("us-central1", "europe-west1")
        started = time.monotonic()
        code = _engine_run({"kind": "agent_engine", "url": wrong}, "engine.json")
        took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2 and took < 5.0
    assert f"no Agent Engine at {wrong}: GET answered HTTP 404" in err and "does not exist" in err and "region" in err
    assert not [r for r in engine.requests if r["path"].endswith(":query")]  # no session was tried


@pytest.mark.parametrize("agent, expected", [
    ({"kind": "agent_engine", "resource_name": "projects/p/reasoningEngines/1"}, "expected projects/PROJECT/locations/LOCATION/reasoningEngines/ID"),
    ({"kind": "agent_engine", "url": "https://us-central1-aiplatform.googleapis.com/v1/projects/p"}, "an Agent Engine's URL ends in"),
    ({"kind": "agent_engine", "url": "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/reasoningEngines/1",
      "resource_name": "projects/p/locations/us-central1/reasoningEngines/2"}, "is not the engine the url names"),
    ({"kind": "http", "url": "http://127.0.0.1:9/turn", "resource_name": "projects/p/locations/l/reasoningEngines/1"}, "only for kind agent_engine"),
])
def test_a_wrong_engine_config_is_a_usage_error(tmp_path, capsys, agent, expected):
    from tests.agents.remote.helpers import weather_case, write_project

    write_project(tmp_path, agent, [weather_case("c", ["Paris"])])
    assert main(["run", "--config", str(tmp_path / "agenteval.yaml"), "-q"]) == 2
    assert expected in capsys.readouterr().err


def test_a_resource_name_is_served_at_its_regions_endpoint():
    from agenteval_ci.schema.remote_agent import RemoteAgentConfig

    config = RemoteAgentConfig.model_validate({"kind": "agent_engine", "resource_name": "projects/p/locations/europe-west4/reasoningEngines/7"})
    assert config.url == "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/reasoningEngines/7"


def test_headers_other_than_authorization_keep_the_default_google_auth(gemini, google_env):
    """`X-Goog-User-Project` (a quota project) is no credential: the access token still goes."""
    agent_module = importlib.import_module(f"{PACKAGE}.agent")
    with FakeTokenEndpoint() as tokens, FakeAgentEngine(agent_module.root_agent, tokens) as engine:
        google_env(tokens)
        assert _engine_run({"kind": "agent_engine", "url": engine.url, "headers": {"X-Goog-User-Project": "demo-project"}}, "engine.json") == 0
    assert engine.refusals == 0 and tokens.requests
