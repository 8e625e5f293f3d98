"""`kind: adk_api_server`: `adk api_server` serving a real two-agent ADK app against the fake
Gemini, started and stopped by the config's command, its spans sent to our receiver: every
recorded field and every score equals the in-process run of the same agent, and the rubric
judges are sent the same prompts; the server keeps its sessions in memory, not in the project."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval_ci.cli import main
from tests.agents.remote.helpers import free_port
from tests.agents.test_adk_app_details import AGENT, JUDGE, PACKAGE, REQUEST, RUBRICS, STATE, responder
from tests.fakes.gemini import FakeGemini

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the ADK server exports spans with opentelemetry-exporter-otlp-proto-http")

CRITERIA = {
    "tool_trajectory_avg_score": 1.0,
    "response_match_score": 0.5,
    "rubric_based_tool_use_quality_v1": {"threshold": 0.5, "judge_model_options": JUDGE, "rubrics": RUBRICS},
    "rubric_based_final_response_quality_v1": {"threshold": 0.5, "judge_model_options": JUDGE, "rubrics": RUBRICS},
    "hallucinations_v1": {"threshold": 0.5, "judge_model_options": JUDGE},
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    agents = tmp_path / "agents"
    package = agents / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(AGENT)
    case = {
        "eval_id": "late_order",
        "session_input": {"app_name": PACKAGE, "user_id": "u1", "state": STATE},
        "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": REQUEST}]}, "final_response": {"role": "model", "parts": [{"text": "I refunded 20 EUR on order A-17."}]},
             "intermediate_data": {"tool_uses": [{"name": "lookup_order", "args": {"order_id": "A-17"}}, {"name": "transfer_to_agent", "args": {"agent_name": "refunds"}},
                                                  {"name": "refund", "args": {"order_id": "A-17", "amount_eur": 20.0, "reason": "late"}}]}},
            {"user_content": {"role": "user", "parts": [{"text": "Thanks!"}]}, "final_response": {"role": "model", "parts": [{"text": "I refunded 20 EUR on order A-17."}]}},
        ],
    }
    (tmp_path / "shop.evalset.json").write_text(json.dumps({"eval_set_id": "shop", "eval_cases": [case]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": CRITERIA}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(agents))
    yield tmp_path
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def _without_run_specifics(invocation: dict[str, Any]) -> dict[str, Any]:
    """What differs between any two runs: ids (ADK draws a fresh one per function call), clocks."""
    text = re.sub(r'"adk-[0-9a-f-]{36}"', '"adk-id"', json.dumps(invocation))
    return {k: v for k, v in json.loads(text).items() if k not in ("invocation_id", "creation_timestamp", "duration")}


def _judge_prompts(fake: FakeGemini) -> list[str]:
    return sorted(r.prompt_text for r in fake.requests if "systemInstruction" not in r.body)


def test_scores_and_records_equal_the_in_process_run(project, monkeypatch):
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        args = ["--config_file_path", "test_config.json", "--json", "in_process.json", "-q"]
        assert main(["run", f"agents/{PACKAGE}", "shop.evalset.json", *args]) == 0
        in_process_prompts = _judge_prompts(fake)
        fake.requests.clear()

        port = free_port()
        agent = {
            "kind": "adk_api_server", "url": f"http://127.0.0.1:{port}",
            "start": f"{sys.executable} -m google.adk.cli api_server --host 127.0.0.1 --port {port} agents",
            "traces": True, "ready_timeout_seconds": 120,
        }
        config = {"suites": [{"agent": agent, "eval_sets": "shop.evalset.json", "eval_config": "test_config.json"}], "judge": {"cache": False}}
        Path("agenteval.yaml").write_text(yaml.safe_dump(config))
        assert main(["run", "--json", "remote.json", "--no-gate", "-q"]) == 0
        remote_prompts = _judge_prompts(fake)

    [ours] = json.loads(Path("in_process.json").read_text())["cases"]
    [theirs] = json.loads(Path("remote.json").read_text())["cases"]
    local_turns, remote_turns = ours["runs"][0]["invocations"], theirs["runs"][0]["invocations"]
    assert len(local_turns) == len(remote_turns) == 2
    for local, remote in zip(local_turns, remote_turns):
        assert _without_run_specifics(remote) == _without_run_specifics(local)
    assert remote_turns[0]["app_details"]["agent_details"]["refunds"]["instructions"].startswith("You refund orders for Ada.")
    scores = lambda case: {name: (m.get("score"), m.get("status")) for name, m in case["metrics"].items() if name not in ("latency", "invocation_duration_v1")}  # clocks
    assert scores(theirs) == scores(ours)
    assert theirs["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0
    assert theirs["runs"][0]["tokens"] == ours["runs"][0]["tokens"]
    assert remote_prompts == in_process_prompts  # the rubric and hallucination judges saw the same context
    assert "judged_without" not in theirs["metrics"]["rubric_based_tool_use_quality_v1"]
    assert not [p.as_posix() for p in Path("agents").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]  # no session.db left in the project

