"""Concurrency of `agenteval run`: a callable agent with 200 ms per turn over 100 cases,
default concurrency (8) against concurrency 1 (how a serial runner like `adk eval` runs
an agent's cases). Prints both wall times and the ratio.

    python bench/run_concurrency.py [--cases 100] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
from pathlib import Path

from agenteval_ci.files.project import load_project
from agenteval_ci.runner.progress import Progress
from agenteval_ci.runner.suites import run_suites

AGENT = """
import time

def slow_echo(text, session):
    time.sleep({latency})  # a model call's worth of latency, in a worker thread
    return {{"response": "echo " + text, "tool_calls": []}}
"""


def write_project(folder: Path, cases: int, latency: float, concurrency: int) -> Path:
    (folder / "agent.py").write_text(AGENT.format(latency=latency))
    eval_cases = [
        {
            "eval_id": f"case_{i}",
            "conversation": [{"user_content": {"parts": [{"text": f"q{i}"}]}, "final_response": {"parts": [{"text": f"echo q{i}"}]}}],
        }
        for i in range(cases)
    ]
    (folder / "bench.evalset.json").write_text(json.dumps({"eval_set_id": "bench", "eval_cases": eval_cases}))
    config = folder / f"agenteval-{concurrency}.yaml"
    config.write_text(f"suites:\n  - agent: agent.py:slow_echo\n    eval_sets: bench.evalset.json\n    concurrency: {concurrency}\n")
    return config


def wall_time(config: Path) -> float:
    suites = load_project(config).suites
    started = time.monotonic()
    results = run_suites(suites, progress=Progress(0, io.StringIO(), bar=False))
    assert results.passed and len(results.cases) == len(list(suites[0].eval_sets[0].cases()))
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        default = wall_time(write_project(Path(tmp), args.cases, args.latency, 8))
        serial = wall_time(write_project(Path(tmp), args.cases, args.latency, 1))
    print(f"{args.cases} cases x {args.latency * 1000:.0f} ms per turn")
    print(f"concurrency 1 (serial): {serial:6.2f} s")
    print(f"concurrency 8 (default): {default:6.2f} s")
    print(f"speed-up: {serial / default:.1f}x")


if __name__ == "__main__":
    main()
