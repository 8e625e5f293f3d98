"""`kind: http`: a JSON-contract agent started by the config's command, scored and gated, and
every fault (never ready, 500, garbage, a hang, a crash mid-run) failing the gate with its reason,
no process of the agent's group left behind, never a hang."""

from __future__ import annotations

import gc
import json
import time
import warnings

import pytest

from agenteval_ci.cli import main
from tests.agents.remote.helpers import alive, free_port, group_alive, python_command, recorded_pids, weather_case, write_project


def _agent(port: int, **extra) -> dict:
    return {"kind": "http", "url": f"http://127.0.0.1:{port}/turn", "start": python_command("json_agent.py"), "ready_timeout_seconds": 20, **extra}


def _run(config, *args: str) -> tuple[int, dict]:
    out = config.parent / "results.json"
    code = main(["run", "--config", str(config), "--json", str(out), "-q", *args])
    return code, json.loads(out.read_text()) if out.exists() else {}


def _no_orphans(pids_file) -> None:
    pgid, pids = recorded_pids(pids_file)
    assert not group_alive(pgid)
    assert not any(alive(pid) for pid in pids)


def test_started_agent_is_scored_with_its_tool_calls_state_and_usage(tmp_path):
    port = free_port()
    pids = tmp_path / "pids"
    cases = [weather_case("rome", ["Rome", "Oslo"], state={"user": "Ada"}), weather_case("lima", ["Lima"])]
    config = write_project(tmp_path, _agent(port, env={"AGENT_PIDS": str(pids)}), cases,
                           {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5})
    code, results = _run(config)
    assert code == 0, results
    rome = next(c for c in results["cases"] if c["eval_id"] == "rome")
    first, second = rome["runs"][0]["invocations"]
    events = first["intermediate_data"]["invocation_events"]
    assert [p["function_call"] for e in events for p in (e.get("content") or {}).get("parts", []) if p.get("function_call")] == [{"name": "get_weather", "args": {"city": "Rome"}}]
    assert [p["function_response"]["response"] for e in events for p in (e.get("content") or {}).get("parts", []) if p.get("function_response")] == [{"sky": "sunny"}]
    # The state the agent handed back came with the next turn; the case's initial state with the first.
    assert first["final_response"]["parts"][0]["text"] == "It is sunny in Rome. (turn 1, Ada)"
    assert second["final_response"]["parts"][0]["text"] == "It is sunny in Oslo. (turn 2, Ada)"
    assert rome["runs"][0]["tokens"] == {"input": 24, "output": 14}
    assert rome["runs"][0]["cost_usd"] == pytest.approx(2 * (12 * 0.30 + 7 * 2.50) / 1e6)  # priced by the model it named
    assert rome["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0
    _no_orphans(pids)
    assert "listening on" in (tmp_path / ".agenteval" / "agent.log").read_text()


def test_a_regressing_agent_fails_the_gate_against_the_baseline(tmp_path):
    port = free_port()
    config = write_project(tmp_path, _agent(port), [weather_case("rome", ["Rome"]), weather_case("lima", ["Lima"])])
    code, _ = _run(config)
    assert code == 0
    assert main(["accept", "--config", str(config), str(tmp_path / "results.json")]) == 0
    agent = _agent(port, env={"AGENT_MODE": "wrong_city"})
    write_project(tmp_path, agent, [weather_case("rome", ["Rome"]), weather_case("lima", ["Lima"])])
    code, results = _run(config)
    assert code == 1
    assert results["cases"][0]["metrics"]["tool_trajectory_avg_score"]["score"] == 0.0


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("http500", "answered HTTP 500: '{\"error\": \"database unavailable\"}'"),
        ("garbage", "answered something that is not JSON"),
        ("hang", "timed out after 1.5s"),
        ("die_after:1", "the agent's server is gone: the agent's command"),
        ("never_ready", "was not ready within 2s"),
    ],
)
def test_every_fault_fails_the_gate_with_its_reason_and_leaves_no_process(tmp_path, mode, reason, capsys):
    port = free_port()
    pids = tmp_path / "pids"
    agent = _agent(port, env={"AGENT_MODE": mode, "AGENT_PIDS": str(pids)}, ready_timeout_seconds=2, stop_timeout_seconds=1)
    config = write_project(tmp_path, agent, [weather_case(f"c{i}", ["Rome"]) for i in range(3)], turn_timeout_seconds=1.5, concurrency=1)
    started = time.monotonic()
    code, results = _run(config)
    assert code == 1
    assert time.monotonic() - started < 20
    errors = [run.get("error") for case in results["cases"] for run in case["runs"]]
    assert any(reason in (e or "") for e in errors), errors
    if mode.startswith("die_after"):
        assert errors[0] is None and "crashing now" in errors[1] and "exited with code 3" in errors[2]
    else:
        assert all(errors)
    _no_orphans(pids)


def test_a_running_agent_given_by_url_and_a_reply_that_breaks_the_contract(tmp_path):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the connection stays open until the client closes it

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            data = json.dumps({"response": "hi", "tool_calls": [{"args": {}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        config = write_project(tmp_path, {"kind": "http", "url": f"http://127.0.0.1:{port}/"}, [weather_case("rome", ["Rome"])])
        gc.collect()  # earlier tests' garbage is not this run's
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            code, results = _run(config)
            gc.collect()
    finally:
        server.shutdown()
        server.server_close()
    assert code == 1
    assert "invalid reply at $.tool_calls[0].name: Field required" in results["cases"][0]["runs"][0]["error"]
    # The run closed its connection pool itself; no socket to the agent was left for the garbage collector.
    assert not [str(w.message) for w in caught if issubclass(w.category, ResourceWarning) and f"{port})" in str(w.message)]


def test_config_errors_name_the_key(tmp_path, capsys):
    config = write_project(tmp_path, {"kind": "http", "url": "ftp://x", "headers": {"X-Token": "${NOT_SET_ANYWHERE}"}}, [weather_case("rome", ["Rome"])])
    assert main(["run", "--config", str(config)]) == 2
    assert "$.suites[0].agent.url: expected an http:// or https:// URL, got 'ftp://x'" in capsys.readouterr().err
    config = write_project(tmp_path, {"kind": "http", "url": "http://127.0.0.1:9/", "headers": {"X-Token": "${NOT_SET_ANYWHERE}"}}, [weather_case("rome", ["Rome"])])
    assert main(["run", "--config", str(config)]) == 2
    assert "$.suites[0].agent.headers.X-Token: ${NOT_SET_ANYWHERE} is not set" in capsys.readouterr().err
    config = write_project(tmp_path, {"kind": "http", "url": "http://127.0.0.1:9/", "typo": 1}, [weather_case("rome", ["Rome"])])
    assert main(["run", "--config", str(config)]) == 2
    assert "$.suites[0].agent.typo: unknown key 'typo' in RemoteAgentConfig" in capsys.readouterr().err
