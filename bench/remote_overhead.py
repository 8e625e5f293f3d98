"""Overhead per turn of the remote path (kind: http, our JSON contract over loopback HTTP)
against the same agent in-process (a Python callable), at concurrency 8; the bare HTTP hop
measured beside it, so "beyond the HTTP hop" is a subtraction of two measured figures; the
server's start and stop timed apart; and the bound honoured (the most turns the server saw at once).

Interleaved, REPEATS times each (the best wall time, the median repeat's mean turn latency):
- in_process:  `run_suites` with the callable agent (the anchor);
- remote:      `run_suites` with kind http against the server, already running (no start);
- bare_wait:   the agent's wait alone, 8 at once (the hop's anchor);
- bare_hop:    the same turns as bare HTTP (a bare httpx client, a pool of 8) to the same server.

Two readings of "extra ms per turn": the mean turn latency (what each turn waits longer), and
the wall time (a run of N turns at concurrency 8 takes about N/8 turn latencies, so a difference
D of wall times is D*8/N ms on each turn; it also counts per-turn costs outside the turn itself).
The server's start (the first run's `start` until the ready check passes) and stop (SIGTERM to
its group until it is gone) come from a project with `start:`, timed apart.

    python bench/remote_overhead.py [--cases 200] [--agent-ms 50] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agenteval_ci.agents import load_agent  # noqa: E402
from agenteval_ci.files.project import load_project  # noqa: E402
from agenteval_ci.runner.progress import Progress  # noqa: E402
from agenteval_ci.runner.suites import run_suites  # noqa: E402
from tests.agents.remote.helpers import free_port, weather_case, write_project  # noqa: E402

CONCURRENCY = 8

# The agent: sleeps AGENT_MS, answers with one tool call. GET /peak answers (and resets) the
# most turns it served at once.
SERVER = '''
import json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
delay = float(os.environ["AGENT_MS"]) / 1000
lock, now, peak = threading.Lock(), [0], [0]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as uvicorn and Node do: headers and body are two writes
    def log_message(self, *a): pass
    def do_GET(self):
        with lock: data, peak[0] = str(peak[0]).encode(), 0
        self._send(data)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock: now[0] += 1; peak[0] = max(peak[0], now[0])
        time.sleep(delay)
        with lock: now[0] -= 1
        city = body["message"].rsplit(" ", 1)[-1]
        self._send(json.dumps({"response": f"It is sunny in {city}.", "tool_calls": [{"name": "get_weather", "args": {"city": city}}]}).encode())
    def _send(self, data):
        self.send_response(200); self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
'''

CALLABLE = '''
import os, time
def agent(text, session):
    time.sleep(float(os.environ["AGENT_MS"]) / 1000)
    city = text.rsplit(" ", 1)[-1]
    return {"response": f"It is sunny in {city}.", "tool_calls": [{"name": "get_weather", "args": {"city": city}}]}
'''

CITIES = ["Rome", "Oslo"]


@dataclass
class Sample:
    seconds: float  # wall time of all turns
    turn_ms: list[float]  # each turn's latency


def run_sample(config: Path) -> Sample:
    suites = load_project(config).suites
    started = time.perf_counter()
    results = run_suites(suites, progress=Progress(0, io.StringIO(), bar=False))
    seconds = time.perf_counter() - started
    runs = [r for c in results.cases for r in c.runs]
    errors = [r.error for r in runs if r.error]
    assert not errors and results.passed, errors[:3]
    return Sample(seconds, [i.duration * 1000 for r in runs for i in r.invocations])


def bare_wait(turns: int, agent_ms: float) -> Sample:
    """The agent's wait alone, 8 at once."""
    async def one(bound: asyncio.Semaphore, latencies: list[float]) -> None:
        async with bound:
            started = time.perf_counter()
            await asyncio.sleep(agent_ms / 1000)
            latencies.append((time.perf_counter() - started) * 1000)

    return _sample(lambda bound, latencies: asyncio.gather(*(one(bound, latencies) for _ in range(turns))))


def bare_hop(url: str, turns: int) -> Sample:
    """The same turns as bare HTTP: a POST of a contract body each, the reply parsed, 8 at once
    over a pool of 8 connections."""
    async def all_turns(bound: asyncio.Semaphore, latencies: list[float]) -> None:
        limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
        async with httpx.AsyncClient(limits=limits, trust_env=False) as client:
            async def one(i: int) -> None:
                body = {"session_id": f"s{i}", "message": f"weather in {CITIES[i % 2]}", "state": {}, "case_id": "c", "run": 0, "turn": 1}
                async with bound:
                    started = time.perf_counter()
                    response = await client.post(url, json=body)
                    response.raise_for_status()
                    json.loads(response.content)
                    latencies.append((time.perf_counter() - started) * 1000)

            await asyncio.gather(*(one(i) for i in range(turns)))

    return _sample(all_turns)


def _sample(turns: Callable[[asyncio.Semaphore, list[float]], object]) -> Sample:
    latencies: list[float] = []

    async def timed() -> float:
        started = time.perf_counter()
        await turns(asyncio.Semaphore(CONCURRENCY), latencies)  # type: ignore[misc]
        return time.perf_counter() - started

    return Sample(asyncio.run(timed()), latencies)


def start_and_stop(config: Path) -> tuple[float, float]:
    """Seconds from the first run's start until the server is ready, and to stop it."""
    suite = load_project(config).suites[0]
    case = next(suite.eval_sets[0].cases())

    async def both() -> tuple[float, float]:
        agent = load_agent(suite.agent, CONCURRENCY)
        started = time.perf_counter()
        await agent.start(case, 0)
        ready = time.perf_counter()
        await agent.aclose()
        agent.close()
        return ready - started, time.perf_counter() - ready

    return asyncio.run(both())


def serve(folder: Path, port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen([sys.executable, str(folder / "server.py")], env={**os.environ, "PORT": str(port)})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/peak", trust_env=False)
            return server
        except httpx.ConnectError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError("the bench server did not start")


def peak(port: int) -> int:
    return int(httpx.get(f"http://127.0.0.1:{port}/peak", trust_env=False).text)


def projects(folder: Path, cases: int, port: int) -> dict[str, Path]:
    (folder / "server.py").write_text(SERVER)
    (folder / "bot.py").write_text(CALLABLE)
    evals = [weather_case(f"c{i}", CITIES) for i in range(cases)]
    started = {"kind": "http", "url": f"http://127.0.0.1:{free_port()}/", "start": f"{sys.executable} ../server.py"}
    return {
        "in_process": write_project(folder / "local", "../bot.py:agent", evals, concurrency=CONCURRENCY),
        "remote": write_project(folder / "remote", {"kind": "http", "url": f"http://127.0.0.1:{port}/"}, evals, concurrency=CONCURRENCY),
        "started": write_project(folder / "started", started, evals[:1], concurrency=CONCURRENCY),
    }


def measure(cases: int, agent_ms: float, repeats: int) -> dict[str, object]:
    os.environ["AGENT_MS"] = str(agent_ms)
    turns = cases * len(CITIES)
    with tempfile.TemporaryDirectory() as tmp:
        folder, port = Path(tmp), free_port()
        configs = projects(folder, cases, port)
        server = serve(folder, port)
        try:
            kinds: dict[str, Callable[[], Sample]] = {
                "in_process": lambda: run_sample(configs["in_process"]),
                "remote": lambda: run_sample(configs["remote"]),
                "bare_wait": lambda: bare_wait(turns, agent_ms),
                "bare_hop": lambda: bare_hop(f"http://127.0.0.1:{port}/", turns),
            }
            for take in kinds.values():
                take()  # warm: imports and first connections not counted
            samples: dict[str, list[Sample]] = {name: [] for name in kinds}
            peaks, starts, stops = [], [], []
            for _ in range(repeats):
                for name, take in kinds.items():
                    peak(port)
                    samples[name].append(take())
                    if name == "remote":
                        peaks.append(peak(port))
                start, stop = start_and_stop(configs["started"])
                starts.append(start)
                stops.append(stop)
        finally:
            server.terminate()
            server.wait()
    return report(samples, turns, agent_ms, repeats, peaks, starts, stops)


def report(samples: dict[str, list[Sample]], turns: int, agent_ms: float, repeats: int, peaks: list[int], starts: list[float], stops: list[float]) -> dict[str, object]:
    wall = {name: min(s.seconds for s in taken) for name, taken in samples.items()}
    # Turns record their duration in whole ms: a mean per repeat resolves finer; the median repeat.
    latency = {name: statistics.median(statistics.fmean(s.turn_ms) for s in taken) for name, taken in samples.items()}
    by_latency = {"remote_extra": latency["remote"] - latency["in_process"], "http_hop": latency["bare_hop"] - latency["bare_wait"]}
    by_wall = {"remote_extra": (wall["remote"] - wall["in_process"]) * CONCURRENCY / turns * 1000,
               "http_hop": (wall["bare_hop"] - wall["bare_wait"]) * CONCURRENCY / turns * 1000}
    for figures in (by_latency, by_wall):
        figures["beyond_hop"] = figures["remote_extra"] - figures["http_hop"]
    return {
        "turns": turns, "agent_ms_per_turn": agent_ms, "concurrency": CONCURRENCY, "repeats": repeats,
        "wall_s": _rounded(wall, 3),
        "mean_turn_ms": _rounded(latency, 2),
        "remote_over_in_process_wall": round(wall["remote"] / wall["in_process"], 3),
        "ms_per_turn_by_turn_latency": _rounded(by_latency, 2),
        "ms_per_turn_by_wall_time": _rounded(by_wall, 2),
        "server_start_s": round(min(starts), 3),
        "server_stop_s": round(min(stops), 3),
        "peak_turns_at_the_server": max(peaks),
    }


def _rounded(values: dict[str, float], digits: int) -> dict[str, float]:
    return {name: round(value, digits) for name, value in values.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--agent-ms", type=float, default=50.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(measure(args.cases, args.agent_ms, args.repeats), indent=1))


if __name__ == "__main__":
    main()
