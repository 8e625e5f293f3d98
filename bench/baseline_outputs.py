"""The recorded outputs beside a baseline at the size issue 27 asks about (a 10,000-case suite):
its bytes on disk against the same records as plain indented JSON (the anchor: what putting them
in baseline.json would add to the reviewed file), the time to write it, and the time to read the
few records a judge change needs (lazily) against parsing the whole file.

    python bench/baseline_outputs.py [--cases 10000] [--runs 3] [--wanted 100]
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import time
from pathlib import Path

from agenteval_ci.core.recorded_outputs import recorded_case
from agenteval_ci.files.baseline_outputs import read_outputs, write_outputs
from agenteval_ci.schema import CaseResult, EvalCase, Invocation, RunRecord, Status
from agenteval_ci.schema.recorded_outputs import RecordedCase


def case(i: int, runs: int) -> CaseResult:
    """A home-automation turn: a request, two tool calls with responses, a reply."""
    turn = {
        "user_content": {"role": "user", "parts": [{"text": f"Turn off the lights in room {i} and set the thermostat to {18 + i % 6}"}]},
        "final_response": {"role": "model", "parts": [{"text": f"Done: room {i}'s lights are off and the thermostat is at {18 + i % 6} degrees."}]},
        "intermediate_data": {
            "tool_uses": [{"name": "set_light", "args": {"room": str(i), "on": False}}, {"name": "set_thermostat", "args": {"temperature": 18 + i % 6}}],
            "tool_responses": [{"name": "set_light", "response": {"ok": True}}, {"name": "set_thermostat", "response": {"ok": True, "now": 18 + i % 6}}],
        },
    }
    invocation = Invocation.model_validate(turn)
    return CaseResult(eval_set_id="home", eval_id=f"case_{i}", fingerprint=f"{i:016x}", status=Status.PASSED,
                      runs=[RunRecord(index=r, invocations=[invocation]) for r in range(runs)],
                      eval_case=EvalCase(eval_id=f"case_{i}", conversation=[invocation]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wanted", type=int, default=100)
    args = parser.parse_args()
    records = [recorded_case(case(i, args.runs)) for i in range(args.cases)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "baseline.outputs.jsonl.gz"
        started = time.perf_counter()
        write_outputs(path, records)
        wrote = time.perf_counter() - started
        anchor = json.dumps([r.model_dump(mode="json", exclude_none=True) for r in records], indent=2).encode()
        wanted = {r.digest for r in records[:: max(1, args.cases // args.wanted)]}
        started = time.perf_counter()
        found = read_outputs(path, wanted)
        lazy = time.perf_counter() - started
        started = time.perf_counter()
        with gzip.open(path, "rt") as stream:
            whole = [RecordedCase.model_validate_json(line) for line in list(stream)[1:]]
        full = time.perf_counter() - started
        size = path.stat().st_size
    assert len(found) == len(wanted) and len(whole) == args.cases
    print(f"{args.cases} cases x {args.runs} runs: outputs file {size / 1e6:.2f} MB vs {len(anchor) / 1e6:.1f} MB as indented JSON "
          f"({len(anchor) / size:.0f}x smaller); written in {wrote:.2f} s")
    print(f"reading {len(wanted)} records: {lazy:.2f} s lazily vs {full:.2f} s parsing every record ({full / lazy:.1f}x)")


if __name__ == "__main__":
    main()
