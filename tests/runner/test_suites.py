"""Running a callable agent over suites: failures, timeouts, repeats, order, shards, return shapes."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from agenteval_ci.errors import InputError, UsageError
from agenteval_ci.files.project import load_project
from agenteval_ci.runner.progress import Progress
from agenteval_ci.runner.suites import run_suites
from agenteval_ci.schema import ShardInfo, Status

AGENT = '''
import asyncio

async def echo(text, session):
    if session.case_id == "boom":
        raise RuntimeError("the tool backend is down")
    if session.case_id == "slow":
        await asyncio.sleep(5)
    session.state["turns"] = session.state.get("turns", 0) + 1
    return {"response": f"echo {text} #{session.state['turns']}", "tool_calls": [{"name": "lookup", "args": {"q": text}}]}

def vertex(text, session):
    return {"response": f"echo {text} #{len(session.history) + 1}", "predicted_trajectory": [{"tool_name": "lookup", "tool_input": {"q": text}}]}

def bad(text, session):
    return {"answer": text}
'''


def turn(text: str, n: int) -> dict:
    return {
        "user_content": {"parts": [{"text": text}]},
        "final_response": {"parts": [{"text": f"echo {text} #{n}"}]},
        "intermediate_data": {"tool_uses": [{"name": "lookup", "args": {"q": text}}]},
    }


def make_project(tmp_path: Path, case_ids: list[str], function: str = "echo", extra: str = "") -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    cases = [{"eval_id": i, "conversation": [turn(f"hi {i}", 1), turn(f"bye {i}", 2)]} for i in case_ids]
    (tmp_path / "evals").mkdir(exist_ok=True)
    (tmp_path / "evals" / "a.evalset.json").write_text(json.dumps({"eval_set_id": "set_a", "eval_cases": cases}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"suites:\n  - agent: agent.py:{function}\n    eval_sets: evals/*.json\n{textwrap.indent(extra, '    ')}")
    return config


def run(config: Path, shard: ShardInfo | None = None):
    project = load_project(config)
    return run_suites(project.suites, shard=shard, progress=Progress(0, io.StringIO(), bar=False))


def test_a_raising_and_a_slow_case_fail_alone(tmp_path):
    ids = ["c1", "boom", "c2", "slow", "c3"]
    results = run(make_project(tmp_path, ids, extra="turn_timeout_seconds: 0.3\nconcurrency: 2\n"))
    by_id = {c.eval_id: c for c in results.cases}
    assert [c.eval_id for c in results.cases] == ids  # eval-set order, whatever finished first
    assert by_id["boom"].status == Status.FAILED
    assert "turn 1: RuntimeError: the tool backend is down" in by_id["boom"].reason
    assert by_id["slow"].status == Status.FAILED
    assert "timed out after 0.3s" in by_id["slow"].reason
    assert all(by_id[i].status == Status.PASSED for i in ("c1", "c2", "c3"))
    assert by_id["boom"].metrics["failure"].score == 1.0
    assert by_id["c1"].metrics["failure"].score == 0.0
    assert by_id["slow"].metrics["latency"].score >= 0.3
    assert by_id["slow"].metrics["latency"].status == Status.INFORMATIONAL


def test_multi_turn_replays_against_one_session_and_repeats(tmp_path):
    results = run(make_project(tmp_path, ["c1"], extra="num_runs: 3\n"))
    case = results.cases[0]
    assert results.num_runs == 3 and len(case.runs) == 3
    # "#2" in the second reply proves the state carried over between turns of one run.
    assert [inv.final_response.text for inv in case.runs[0].invocations] == ["echo hi c1 #1", "echo bye c1 #2"]
    assert case.status == Status.PASSED
    assert results.stats.agent_turns == 6


def test_vertex_return_shape(tmp_path):
    results = run(make_project(tmp_path, ["c1"], function="vertex"))
    assert results.cases[0].status == Status.PASSED
    assert [c.name for c in results.cases[0].runs[0].invocations[0].tool_calls] == ["lookup"]


def test_a_reply_of_the_wrong_shape_fails_the_case_saying_why(tmp_path):
    results = run(make_project(tmp_path, ["c1"], function="bad"))
    assert results.cases[0].status == Status.FAILED
    assert "at $.response: required key 'response' is missing; at $.answer: unknown key 'answer'" in results.cases[0].reason


def test_shards_partition_the_cases(tmp_path):
    config = make_project(tmp_path, [f"c{i}" for i in range(12)])
    shards = [run(config, ShardInfo(index=i, count=3)) for i in (1, 2, 3)]
    ids = [c.eval_id for s in shards for c in s.cases]
    assert sorted(ids) == sorted(f"c{i}" for i in range(12))
    assert all(s.cases for s in shards)
    assert shards[0].shard == ShardInfo(index=1, count=3)


def test_yaml_errors_name_the_file_and_the_key(tmp_path):
    config = tmp_path / "agenteval.yaml"
    config.write_text("suites:\n  - agent: a.py:f\n    eval_sets: x.json\n    concurency: 4\n")
    with pytest.raises(InputError) as err:
        load_project(config)
    assert f"{config.as_posix()} at $.suites[0].concurency: unknown key" in str(err.value)
    config.write_text("suites:\n  - agent: a.py:f\n    eval_sets: nothing/*.json\n")
    with pytest.raises(InputError, match=r"\$\.suites\[0\]\.eval_sets\[0\]: 'nothing/\*\.json' matches no file"):
        load_project(config)
    config.write_text("suites: [\n")
    with pytest.raises(InputError, match="not valid YAML at line"):
        load_project(config)


def test_a_missing_agent_function_is_a_usage_error(tmp_path):
    config = make_project(tmp_path, ["c1"], function="nope")
    with pytest.raises(UsageError, match="cannot load agent 'agent.py:nope'.*no function 'nope'"):
        run(config)


def test_progress_prints_plain_lines_and_a_summary():
    out = io.StringIO()
    progress = Progress(2, out, bar=False, every_seconds=0)
    progress.case_done(failed=False)
    progress.case_done(failed=True)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("agenteval: 1/2 cases, 0 failed")
    assert lines[1].startswith("agenteval: 2/2 cases, 1 failed")
    assert lines[2].startswith("agenteval: ran 2 case(s)")
    bar = io.StringIO()
    Progress(4, bar, bar=True).case_done(failed=False)
    assert bar.getvalue().startswith("\r[#######.......................] 1/4 cases")


PACED = '''
import asyncio, os

async def paced(text, session):
    if text.startswith("hi "):
        with open(os.environ["PACED_LOG"], "a") as log:
            log.write(session.case_id + "\\n")
    await asyncio.sleep(0.3 if session.case_id == "c00" else 0.005)
    return {"response": f"echo {text} #{1 if text.startswith('hi ') else 2}", "tool_calls": [{"name": "lookup", "args": {"q": text}}]}
'''


def test_cases_stream_out_in_order_with_a_bounded_window_ahead(tmp_path, monkeypatch):
    """A run hands each case on as it is scored, in eval-set order; workers go on past a slow
    case, but never more than the window of cases ahead of the oldest one not handed on."""
    from agenteval_ci.runner import suites

    monkeypatch.setattr(suites, "MIN_WINDOW", 1)
    monkeypatch.setattr(suites, "WINDOW_PER_WORKER", 2)  # concurrency 3: a window of 6
    log = tmp_path / "started.txt"
    monkeypatch.setenv("PACED_LOG", str(log))
    ids = [f"c{i:02d}" for i in range(20)]
    config = make_project(tmp_path, ids, function="paced", extra="concurrency: 3\n")
    (tmp_path / "agent.py").write_text(PACED)
    emitted: list[str] = []
    started_at_emit: list[int] = []

    def emit(case):
        started_at_emit.append(len(log.read_text().split()))
        emitted.append(case.eval_id)

    project = load_project(config)
    results = run_suites(project.suites, progress=Progress(0, io.StringIO(), bar=False), emit=emit)
    assert emitted == ids and results.cases == []
    assert results.stats.agent_turns == 40
    assert all(started - done <= 6 for done, started in enumerate(started_at_emit))
    assert started_at_emit[0] > 3  # the workers went on past the slow first case
