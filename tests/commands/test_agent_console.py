"""A failing agent's console stays readable: google-adk's tracebacks go to .agenteval/agent.log,
the terminal shows one line per failed run and a count with the log's path (issue 22)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.agents.test_adk_agent import AGENT_DIR, travel_model
from tests.commands.test_fail_closed import agenteval
from tests.fakes.gemini import FakeGemini

CASES = 20


def adk_project(root: Path, cases: int = CASES) -> Path:
    """The example ADK travel agent, its one case copied `cases` times."""
    shutil.copytree(AGENT_DIR, root / "travel")
    example = json.loads((AGENT_DIR / "travel.evalset.json").read_text())
    case = example["eval_cases"][0]
    example["eval_cases"] = [{**case, "eval_id": f"case{i}"} for i in range(cases)]
    (root / "travel.evalset.json").write_text(json.dumps(example))
    (root / "agenteval.yaml").write_text("suites:\n  - agent: travel\n    eval_sets: travel.evalset.json\n")
    return root


def test_an_adk_agent_without_a_key_prints_no_traceback_over_20_cases(tmp_path):
    project = adk_project(tmp_path)
    done = agenteval(project, "run", timeout=180)
    console = done.stdout + done.stderr
    assert done.returncode == 1
    assert "Traceback" not in console and "Node execution failed" not in console
    assert len(console.splitlines()) < 3 * CASES, console
    assert console.count("no model API key") == CASES + 2  # each case's line, the verdict, the one-line error
    assert f"the agent logged {2 * CASES} record(s) with a traceback: see .agenteval/agent.log" in done.stderr
    filed = (project / ".agenteval" / "agent.log").read_text()
    assert filed.count("Node execution failed with exception") == CASES and "Traceback (most recent call last)" in filed
    quiet = agenteval(project, "run", "-q", timeout=180)
    assert "Traceback" not in quiet.stdout + quiet.stderr and len((quiet.stdout + quiet.stderr).splitlines()) <= 5
    shown = agenteval(project, "run", "--log-level", "debug", timeout=180)
    assert shown.stderr.count("Node execution failed with exception") == CASES  # debug shows everything


def test_a_tool_that_raises_is_one_line_per_case_and_its_traceback_is_in_the_log(tmp_path):
    project = adk_project(tmp_path, cases=3)
    agent = project / "travel" / "agent.py"
    agent.write_text(agent.read_text().replace('    """Returns the current weather in a city."""\n',
                                               '    """Returns the current weather in a city."""\n    raise RuntimeError("the weather backend is down")\n'))
    with FakeGemini(responder=travel_model) as fake:
        done = agenteval(project, "run", env=fake.env(), timeout=180)
    console = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in console
    assert console.count("turn 1: RuntimeError: the weather backend is down") == 3 + 1  # each case, and the verdict's first
    verdict, _, next_block = done.stdout.partition("\nnext:\n")
    assert len(next_block.splitlines()) == 4, console  # the fixed pointers to the results and reports
    assert len(verdict.splitlines() + done.stderr.splitlines()) <= 2 * 3 + 9, console  # two per case, the verdict, notes
    filed = (project / ".agenteval" / "agent.log").read_text()
    assert 'raise RuntimeError("the weather backend is down")' in filed
