"""The gate fails closed: a broken agent, a missing key or lost coverage never passes.

Each test plays one way a new user saw the gate go green on a broken agent, through the
real `agenteval` process (exit codes, what a person reads, the files left behind).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenteval_ci.cli import main

AGENT = '''
import os, sys, time

def lookup(q):
    if os.environ.get("BREAK") == "tool" and q in ("hi c2", "hi c4"):
        raise RuntimeError("the tool backend is down")
    if os.environ.get("BREAK") == "worse" and q == "hi c1":
        return "something else entirely"
    return q

def agent(text, session):
    mode = os.environ.get("BREAK", "")
    if mode == "raise":
        raise RuntimeError("boom")
    if mode == "none":
        return None
    if mode == "exit":
        sys.exit(0)
    if mode == "sleep":
        time.sleep(3600)
    if mode == "nokey":
        from google import genai
        genai.Client()
    return {"response": f"echo {lookup(text)}", "tool_calls": [{"name": "lookup", "args": {"q": text}}]}
'''


def _turn(text: str) -> dict:
    return {
        "user_content": {"role": "user", "parts": [{"text": text}]},
        "final_response": {"role": "model", "parts": [{"text": f"echo {text}"}]},
        "intermediate_data": {"tool_uses": [{"name": "lookup", "args": {"q": text}}]},
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Five cases, all passing in the committed baseline."""
    (tmp_path / "agent.py").write_text(AGENT)
    cases = [{"eval_id": f"c{i}", "conversation": [_turn(f"hi c{i}")]} for i in range(5)]
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "a.evalset.json").write_text(json.dumps({"eval_set_id": "set_a", "eval_cases": cases}))
    (tmp_path / "agenteval.yaml").write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n    turn_timeout_seconds: 5\n")
    assert agenteval(tmp_path, "run", "--json", "base.json").returncode == 0
    assert agenteval(tmp_path, "accept", "base.json").returncode == 0
    return tmp_path


def agenteval(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    environ = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), **(env or {})}
    return subprocess.run([sys.executable, "-m", "agenteval_ci", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("mode, why", [
    ("raise", "RuntimeError: boom"),
    ("none", "invalid reply"),
    ("exit", "SystemExit"),
    ("nokey", "no model API key"),
])
def test_an_agent_that_cannot_run_fails_the_gate(project, mode, why):
    done = agenteval(project, "run", "--json", "r.json", env={"BREAK": mode})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gate failed" in done.stdout and "5 case(s) whose agent runs failed" in done.stdout
    assert why in done.stdout
    assert "Traceback" not in done.stderr
    results = json.loads((project / "r.json").read_text())  # written even when user code called sys.exit
    assert {c["status"] for c in results["cases"]} == {"FAILED"}


def test_no_key_says_so_once_and_points_at_the_fork_safe_workflow(project):
    done = agenteval(project, "run", env={"BREAK": "nokey"})
    assert done.stderr.count("agenteval: error: no model API key") == 1
    assert "docs/action.md" in done.stderr


def test_a_tool_raising_in_two_of_five_cases_fails_the_gate(project):
    done = agenteval(project, "run", "--md", "comment.md", env={"BREAK": "tool"})
    assert done.returncode == 1
    assert "2 case(s) whose agent runs failed (first: default/set_a/c2: 1 of 1 run(s) failed: turn 1: RuntimeError: the tool backend is down)" in done.stdout
    assert "cases: 2 regressed, 3 unchanged" in done.stdout
    assert "whose agent runs failed" in (project / "comment.md").read_text()


def test_a_blocked_sync_agent_cannot_keep_the_process_alive(project):
    started = time.monotonic()
    done = agenteval(project, "run", "--json", "r.json", env={"BREAK": "sleep"}, timeout=30)
    assert done.returncode == 1
    assert time.monotonic() - started < 25
    assert "timed out after 5s" in done.stdout and (project / "r.json").is_file()


def test_a_per_case_drop_is_its_own_outcome_and_fails_a_deterministic_suite(project):
    done = agenteval(project, "run", env={"BREAK": "worse"})
    assert done.returncode == 1
    assert "response_match_score: regressed (deterministic" in done.stdout


def test_lost_coverage_fails_the_gate_unless_told_to_warn(project):
    assert agenteval(project, "run", "--json", "r.json").returncode == 0
    results = json.loads((project / "r.json").read_text())
    metric = results["cases"][3]["metrics"]["response_match_score"]
    metric.update(status="NOT_EVALUATED", score=None, reason="unparseable judge reply")
    for run in metric["runs"]:
        run.update(status="NOT_EVALUATED", score=None)
    (project / "r.json").write_text(json.dumps(results))
    done = agenteval(project, "compare", "r.json", "--md", "c.md")
    assert done.returncode == 1
    assert "lost coverage" in done.stdout and "default/set_a/c3 response_match_score: unparseable judge reply" in done.stdout
    assert "cases: 1 unevaluated, 4 unchanged" in done.stdout
    assert "lost coverage" in (project / "c.md").read_text()
    (project / "agenteval.yaml").write_text((project / "agenteval.yaml").read_text() + "gate:\n  not_evaluated: warn\n")
    warned = agenteval(project, "compare", "r.json", "--md", "c.md")
    assert warned.returncode == 0 and "warning (gate.not_evaluated: warn)" in (project / "c.md").read_text()
    refused = agenteval(project, "accept", "r.json")
    assert refused.returncode == 2 and "response_match_score not evaluated: unparseable judge reply" in refused.stderr
    assert agenteval(project, "accept", "r.json", "--allow-failed").returncode == 0


def test_a_config_without_the_criteria_wrapper_is_an_error(project):
    (project / "evals" / "test_config.json").write_text(json.dumps({"tool_trajectory_avg_score": 1.0}))
    done = agenteval(project, "run")
    assert done.returncode == 2
    assert "evals/test_config.json at $.criteria: no gated metric" in done.stderr


def test_a_named_baseline_must_exist_and_the_default_missing_is_a_loud_first_run(project):
    done = agenteval(project, "run", "--baseline", "nothere.json")
    assert done.returncode == 2 and "nothere.json: file not found" in done.stderr
    (project / ".agenteval" / "baseline.json").unlink()
    first = agenteval(project, "run")
    assert first.returncode == 0 and "this is a first run, judged on thresholds only" in first.stderr


def test_accept_refuses_failed_runs(project):
    agenteval(project, "run", "--json", "r.json", env={"BREAK": "raise"})
    done = agenteval(project, "accept", "r.json")
    assert done.returncode == 2 and "run(s) failed" in done.stderr and "--allow-failed" in done.stderr


def test_thresholds_only_never_passes_a_case_with_nothing_evaluated(tmp_path, capsys, monkeypatch):
    """Two expected turns, one actual: every reference metric is NOT_EVALUATED, so no evidence."""
    case = {"eval_id": "c0", "conversation": [_turn("hi c0"), _turn("again")]}
    (tmp_path / "a.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [case]}))
    (tmp_path / "actual.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{**case, "conversation": [_turn("hi c0")]}]}))
    main(["score", str(tmp_path / "a.evalset.json"), "--actual", str(tmp_path / "actual.json"), "--json", str(tmp_path / "r.json")])
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["compare", "r.json", "--fail-on", "threshold"]) == 1
    assert "1 case(s) with no evaluated gated metric (first: default/s/c0" in capsys.readouterr().out


def test_an_async_agent_calling_sys_exit_fails_its_run_not_the_process(project):
    (project / "agent.py").write_text("import sys\nasync def agent(text, session):\n    sys.exit(0)\n")
    done = agenteval(project, "run", "--json", "r.json")
    assert done.returncode == 1 and "SystemExit(0)" in done.stdout and (project / "r.json").is_file()
