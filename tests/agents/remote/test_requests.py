"""What goes out to a remote agent and when: a refused connection retried (nothing was sent),
the configured headers only to the agent's own server, a session that never opens bounded by the
turn timeout, a receiver port that is taken named; the A2A card never sends us elsewhere."""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import pytest

from agenteval_ci.cli import main
from tests.agents.remote.helpers import free_port, weather_case, write_project


class Recorder(ThreadingHTTPServer):
    """A loopback server that records each request's path and headers and answers with `reply`."""

    daemon_threads = True

    def __init__(self, reply: Callable[[BaseHTTPRequestHandler], tuple[int, dict]], port: int = 0):
        self.seen: list[tuple[str, str, dict[str, str]]] = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _answer(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.server.seen.append((self.command, self.path, dict(self.headers)))
                status, body = reply(self)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

        super().__init__(("127.0.0.1", port), Handler)
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


def weather(handler: BaseHTTPRequestHandler) -> tuple[int, dict]:
    return 200, {"response": "It is sunny in Rome.", "tool_calls": [{"name": "get_weather", "args": {"city": "Rome"}}]}


def _run(config) -> tuple[int, dict]:
    out = config.parent / "results.json"
    code = main(["run", "--config", str(config), "--json", str(out), "-q"])
    return code, json.loads(out.read_text())


def _errors(results: dict) -> list:
    return [run.get("error") for case in results["cases"] for run in case["runs"]]


def test_a_refused_connection_is_retried_and_headers_go_only_to_the_agents_server(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", "s3cret")
    port = free_port()
    with Recorder(lambda handler: (200, {})) as elsewhere:
        # Ready by a check on another server, while nothing listens at the agent's port yet: the
        # first POST is refused and retried until the agent listens (a moment later).
        agent = {"kind": "http", "url": f"http://127.0.0.1:{port}/turn", "ready": f"{elsewhere.url}/ready",
                 "headers": {"Authorization": "Bearer ${AGENT_TOKEN}"}}
        config = write_project(tmp_path, agent, [weather_case("rome", ["Rome"])])
        agents: list[Recorder] = []
        late = threading.Timer(0.15, lambda: agents.append(Recorder(weather, port)))
        late.start()
        try:
            code, results = _run(config)
        finally:
            late.join()
            for server in agents:
                server.__exit__()
    assert code == 0, _errors(results)
    [(method, path, headers)] = agents[0].seen
    assert (method, path, headers["Authorization"]) == ("POST", "/turn", "Bearer s3cret")
    assert headers["traceparent"].startswith("00-")
    assert elsewhere.seen and all("Authorization" not in headers for _, _, headers in elsewhere.seen)


def test_a_connection_never_made_fails_the_run_after_the_tries(tmp_path):
    with Recorder(lambda handler: (200, {})) as ready:
        agent = {"kind": "http", "url": f"http://127.0.0.1:{free_port()}/", "ready": f"{ready.url}/"}
        code, results = _run(write_project(tmp_path, agent, [weather_case("rome", ["Rome"])]))
    assert code == 1
    assert "cannot connect after 4 tries: ConnectError" in _errors(results)[0]


def test_a_session_that_never_opens_fails_its_run_within_the_turn_timeout(tmp_path):
    release = threading.Event()

    def adk_server(handler: BaseHTTPRequestHandler) -> tuple[int, dict]:
        if handler.command == "POST":  # accepts the session, never answers
            release.wait(30)
        return 200, []

    with Recorder(adk_server) as server:
        agent = {"kind": "adk_api_server", "url": server.url, "app_name": "weather"}
        config = write_project(tmp_path, agent, [weather_case("rome", ["Rome"])], turn_timeout_seconds=0.5)
        try:
            code, results = _run(config)
        finally:
            release.set()
    assert code == 1
    assert "opening the session: no answer within 0.5s" in _errors(results)[0]


def test_a_receiver_port_that_is_taken_fails_the_runs_naming_it(tmp_path):
    with socket.socket() as taken, Recorder(weather) as server:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        agent = {"kind": "http", "url": server.url, "traces": True, "otlp_port": port}
        code, results = _run(write_project(tmp_path, agent, [weather_case("rome", ["Rome"])]))
    assert code == 1
    assert f"the OTLP receiver cannot listen on 127.0.0.1 (otlp_port {port})" in _errors(results)[0]


def test_an_a2a_cards_address_is_used_only_on_the_configured_server():
    a2a = pytest.importorskip("agenteval_ci.agents.remote.a2a", reason="kind a2a needs the a2a extra")
    ours = "http://127.0.0.1:8001"
    assert a2a.on_our_server("http://127.0.0.1:8001/rpc", ours) == "http://127.0.0.1:8001/rpc"
    assert a2a.on_our_server("http://127.0.0.1:80/", "http://127.0.0.1") == "http://127.0.0.1:80/"
    for elsewhere in ("http://10.0.0.7:8001/rpc", "https://127.0.0.1:8001/", "http://localhost:8001/", "http://127.0.0.1:9/"):
        assert a2a.on_our_server(elsewhere, ours) == ours


class DropsAfterAnError(ThreadingHTTPServer):
    """ADK's api_server as uvicorn serves it when a tool raises: /run answers 500 on a
    keep-alive connection (no `Connection: close`), then the server closes that connection. Here
    the close comes when the next request arrives on it, unread: the worst moment of that race."""

    daemon_threads = True

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.connections = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                self.server.connections += 1

            def do_GET(self):  # the ready check
                self._answer(200, [])

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                self.server.requests.append(self.path)
                if self.path.endswith("/sessions"):
                    return self._answer(200, {"id": body["sessionId"]})
                text = body["newMessage"]["parts"][0]["text"]
                if "Oslo" in text:  # the tool raised
                    self._answer(500, "Internal Server Error")
                    select.select([self.connection], [], [], 10)  # the next request, or the client's close
                    self.close_connection = True  # closed with the request unread: a reset
                    return
                call = {"name": "get_weather", "args": {"city": "Rome"}}
                self._answer(200, [
                    {"author": "weather", "content": {"role": "model", "parts": [{"functionCall": call}]}},
                    {"author": "weather", "content": {"role": "model", "parts": [{"text": "It is sunny in Rome."}]}},
                ])

            def _answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()


def test_a_connection_the_server_closes_after_an_error_does_not_fail_the_next_case(tmp_path):
    server = DropsAfterAnError()
    try:
        agent = {"kind": "adk_api_server", "url": f"http://127.0.0.1:{server.server_address[1]}", "app_name": "weather"}
        cases = [weather_case("oslo", ["Oslo"]), weather_case("rome", ["Rome"]), weather_case("rome_again", ["Rome"])]
        code, results = _run(write_project(tmp_path, agent, cases, concurrency=1))
    finally:
        server.shutdown()
        server.server_close()
    errors = {case["eval_id"]: [run.get("error") for run in case["runs"]] for case in results["cases"]}
    assert code == 1
    assert "answered HTTP 500" in errors["oslo"][0]
    assert errors["rome"] == errors["rome_again"] == [None]  # each case after the error opened and ran its session
    assert server.connections == 2  # the error's connection was dropped; the others were kept alive


@pytest.mark.parametrize("status", [401, 403])
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}])
def test_a_server_refusing_the_ready_check_fails_the_runs_at_once_saying_what_to_set(tmp_path, status, headers):
    with Recorder(lambda handler: (status, {"detail": "Not authenticated"})) as server:
        agent = {"kind": "adk_api_server", "url": server.url, "app_name": "weather", "ready_timeout_seconds": 20, "headers": headers}
        started = time.monotonic()
        code, results = _run(write_project(tmp_path, agent, [weather_case("rome", ["Rome"]), weather_case("paris", ["Paris"])]))
        took = time.monotonic() - started
        polled = len(server.seen)
    assert code == 1 and took < 10 and polled == 1  # one answer, not 20 s of polling
    errors = _errors(results)
    assert errors[0] == errors[1] and f"GET {server.url}/list-apps answered HTTP {status}" in errors[0]
    if headers:
        assert "the agent's headers (Authorization) were refused: check their values" in errors[0]
    else:
        assert "set the credentials it asks for in the agent's `headers`" in errors[0]


def test_a_ready_check_on_another_server_refused_says_the_headers_do_not_go_there(tmp_path):
    with Recorder(lambda handler: (401, {})) as elsewhere, Recorder(weather) as server:
        agent = {"kind": "http", "url": server.url, "ready": f"{elsewhere.url}/ready", "headers": {"Authorization": "Bearer s3cret"}}
        code, results = _run(write_project(tmp_path, agent, [weather_case("rome", ["Rome"])]))
    assert code == 1 and len(elsewhere.seen) == 1 and not server.seen
    assert "the agent's `headers` go only to its own server: point `ready` at a check there" in _errors(results)[0]
