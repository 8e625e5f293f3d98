"""Projects, ports and process checks for the remote-agent tests."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import yaml

SERVERS = Path(__file__).resolve().parent / "servers"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def weather_case(eval_id: str, cities: list[str], state: dict[str, Any] | None = None) -> dict[str, Any]:
    turns = []
    for city in cities:
        turns.append({
            "user_content": {"role": "user", "parts": [{"text": f"weather in {city}"}]},
            "final_response": {"role": "model", "parts": [{"text": f"It is sunny in {city}."}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}}]},
        })
    case: dict[str, Any] = {"eval_id": eval_id, "conversation": turns}
    if state is not None:
        case["session_input"] = {"app_name": "weather", "user_id": "u1", "state": state}
    return case


def write_project(folder: Path, agent: Any, cases: list[dict[str, Any]], criteria: dict[str, Any] | None = None, **suite: Any) -> Path:
    (folder / "evals").mkdir(parents=True, exist_ok=True)
    (folder / "evals" / "weather.evalset.json").write_text(json.dumps({"eval_set_id": "weather", "eval_cases": cases}))
    (folder / "evals" / "test_config.json").write_text(json.dumps({"criteria": criteria or {"tool_trajectory_avg_score": 1.0}}))
    config = {"suites": [{"agent": agent, "eval_sets": ["evals/*.evalset.json"], **suite}]}
    path = folder / "agenteval.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def python_command(script: str, *args: str) -> str:
    return " ".join([sys.executable, str(SERVERS / script), *args])


def recorded_pids(path: Path) -> tuple[int, list[int]]:
    """(process group, pids) the test server wrote."""
    lines = path.read_text().split()
    return int(lines[1]), [int(x) for x in lines[2:]]


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def group_alive(pgid: int) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False


NODE_AGENT = Path(__file__).resolve().parent / "node_agent"
NODE_CACHE = Path(__file__).resolve().parents[3] / ".agenteval" / "node-cache"


def node_modules() -> Path:
    """The Node test agent's packages, installed once per lockfile (npm ci into an ignored cache);
    skips when node or npm is absent."""
    import hashlib
    import shutil
    import subprocess

    import pytest

    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node and npm are needed for the Node.js test agent")
    lock = (NODE_AGENT / "package-lock.json").read_bytes()
    folder = NODE_CACHE / hashlib.sha256(lock).hexdigest()[:16]
    if not (folder / "node_modules").is_dir():
        staging = NODE_CACHE / f"staging-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(NODE_AGENT / name, staging / name)
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=staging, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"npm ci failed for the Node test agent:\n{done.stdout}\n{done.stderr}")
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    return folder / "node_modules"
