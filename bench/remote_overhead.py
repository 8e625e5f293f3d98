"""Overhead per turn of the remote path (kind: http, our JSON contract over loopback HTTP)
against the same agent in-process (a Python callable), at concurrency 8, and the bound honoured.

The agent sleeps AGENT_MS per turn in both forms; the remote server is a stdlib HTTP server we
start. Prints seconds per run, the extra milliseconds per turn of the remote path (HTTP hop
included) and the highest number of turns the server saw at once.

    python bench/remote_overhead.py [CASES] [AGENT_MS]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agenteval_ci.cli import main  # noqa: E402
from tests.agents.remote.helpers import free_port, weather_case, write_project  # noqa: E402

SERVER = '''
import json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
delay = float(os.environ["AGENT_MS"]) / 1000
lock, now, peak = threading.Lock(), [0], [0]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock:
            now[0] += 1; peak[0] = max(peak[0], now[0])
            open(os.environ["PEAK"], "w").write(str(peak[0]))
        time.sleep(delay)
        with lock: now[0] -= 1
        city = body["message"].rsplit(" ", 1)[-1]
        data = json.dumps({"response": f"It is sunny in {city}.", "tool_calls": [{"name": "get_weather", "args": {"city": city}}]}).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
'''

CALLABLE = '''
import time, os
def agent(text, session):
    time.sleep(float(os.environ["AGENT_MS"]) / 1000)
    city = text.rsplit(" ", 1)[-1]
    return {"response": f"It is sunny in {city}.", "tool_calls": [{"name": "get_weather", "args": {"city": city}}]}
'''


def timed(config: Path) -> float:
    started = time.perf_counter()
    assert main(["run", "--config", str(config), "--json", str(config.parent / "r.json"), "--no-gate", "-q"]) == 0
    return time.perf_counter() - started


def main_bench(cases: int, agent_ms: float) -> None:
    import os

    os.environ["AGENT_MS"] = str(agent_ms)
    turns = cases * 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "server.py").write_text(SERVER)
        (folder / "bot.py").write_text(CALLABLE)
        evals = [weather_case(f"c{i}", ["Rome", "Oslo"]) for i in range(cases)]
        local = write_project(folder / "local", "../bot.py:agent", evals, concurrency=8)
        port = free_port()
        remote_agent = {"kind": "http", "url": f"http://127.0.0.1:{port}/", "start": f"{sys.executable} ../server.py",
                        "env": {"PEAK": str(folder / "peak")}}
        remote = write_project(folder / "remote", remote_agent, evals, concurrency=8)
        timed(remote)  # warm: start-up and imports not counted below
        best_local = min(timed(local) for _ in range(3))
        best_remote = min(timed(remote) for _ in range(3))
        per_turn_ms = (best_remote - best_local) / turns * 8 * 1000  # 8 turns overlap at once
        print(json.dumps({
            "cases": cases, "turns": turns, "agent_ms_per_turn": agent_ms, "concurrency": 8,
            "in_process_s": round(best_local, 3), "remote_s": round(best_remote, 3),
            "remote_over_in_process": round(best_remote / best_local, 3),
            "extra_ms_per_turn_incl_http_hop_and_server_start": round(per_turn_ms, 2),
            "peak_turns_at_the_server": int((folder / "peak").read_text()),
        }))


if __name__ == "__main__":
    main_bench(int(sys.argv[1]) if len(sys.argv) > 1 else 100, float(sys.argv[2]) if len(sys.argv) > 2 else 50)
