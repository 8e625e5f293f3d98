"""What `agenteval run` prints, end to end: a golden file of the terminal after a change.

The project has the three kinds of eval set whose ids are file paths or unreadable: a legacy
`.test.json` file (its eval set and its case are both named after the file), an EvalSet that
ADK converted (its eval id is the author's absolute path), and an ordinary EvalSet. The agent
is a Python function whose behaviour an environment variable changes, run through the CLI in
a fresh interpreter, first to accept a baseline, then with a change that regresses two cases
(one of them still above its thresholds), fixes one and adds one.
Regenerate the golden file with AGENTEVAL_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.test_comment import check_golden

ROOT = Path(__file__).resolve().parents[2]

AGENT = '''
import os

CHANGED = os.environ.get("AGENT_CHANGED") == "1"


def answer(text, session):
    if "light" in text:
        return {"response": "The bedroom light is off.", "tool_calls": [{"name": "set_device", "args": {"id": 2, "on": CHANGED}}]}
    if "dim" in text:  # after the change: a looser reply, still above response_match_score's 0.8
        reply = "The hall lamp is dimmed to 30 percent now." if CHANGED else "The hall lamp is dimmed to 30 percent."
        return {"response": reply, "tool_calls": [{"name": "dim", "args": {"level": 30}}]}
    if "jazz" in text:  # fixed by the change
        return {"response": "Playing jazz.", "tool_calls": [{"name": "play", "args": {"genre": "jazz" if CHANGED else "rock"}}]}
    if "pack" in text:
        return {"response": "Take an umbrella.", "tool_calls": [{"name": "forecast", "args": {"city": "Rome"}}]}
    return {"response": "It is sunny in Paris.", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]}
'''


def _invocation(user: str, reply: str, tool: str, args: dict) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": {"role": "model", "parts": [{"text": reply}]},
            "intermediate_data": {"tool_uses": [{"name": tool, "args": args}]}}


def _project(root: Path, with_new_case: bool) -> None:
    home = [("lights", _invocation("Turn off the bedroom light", "The bedroom light is off.", "set_device", {"id": 2, "on": False})),
            ("dimmer", _invocation("Please dim the hall lamp", "The hall lamp is dimmed to 30 percent.", "dim", {"level": 30})),
            ("music", _invocation("Play jazz", "Playing jazz.", "play", {"genre": "jazz"}))]
    if with_new_case:
        home.append(("weather", _invocation("Weather in Paris?", "It is sunny in Paris.", "get_weather", {"city": "Paris"})))
    evals = root / "eval"
    (evals / "data").mkdir(parents=True, exist_ok=True)
    (evals / "home.evalset.json").write_text(json.dumps({"eval_set_id": "home", "eval_cases": [
        {"eval_id": eval_id, "conversation": [inv]} for eval_id, inv in home]}))
    (evals / "data" / "simple.test.json").write_text(json.dumps([{
        "query": "Weather in Paris?", "reference": "It is sunny in Paris.",
        "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Paris"}}]}]))
    converted = "/usr/local/home/author/projects/travel/eval/data/pretrip.test.json"  # as ADK's migration leaves it
    (evals / "data" / "pretrip.evalset.json").write_text(json.dumps({"eval_set_id": "a554f356-c2b0-4b18-94cb-479d98b3192f", "eval_cases": [
        {"eval_id": converted, "conversation": [_invocation("What should I pack?", "Take an umbrella.", "forecast", {"city": "Rome"})]}]}))
    (root / "agent.py").write_text(AGENT)
    (root / "agenteval.yaml").write_text('suites:\n  - agent: agent.py:answer\n    eval_sets: ["eval/*.evalset.json", "eval/data/*.json"]\n')


def _agenteval(args: list[str], cwd: Path, changed: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "AGENT_CHANGED")}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="120", AGENT_CHANGED="1" if changed else "0")
    return subprocess.run([sys.executable, "-m", "agenteval_ci", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_terminal_after_a_change_matches_the_golden_file(tmp_path):
    _project(tmp_path, with_new_case=False)
    first = _agenteval(["run"], tmp_path, changed=False)
    assert first.returncode == 1 and "1 case(s) below their thresholds" in first.stdout, first.stdout + first.stderr  # music
    assert _agenteval(["accept"], tmp_path, changed=False).returncode == 0
    _project(tmp_path, with_new_case=True)
    after = _agenteval(["run"], tmp_path, changed=True)
    assert after.returncode == 1, after.stdout + after.stderr
    text = re.sub(r"^\d+\.\ds;", "1.0s;", after.stdout, flags=re.M)  # the one figure that varies run to run
    check_golden("terminal.txt", text)
    assert "PASS" not in text.split("changes from the baseline")[0].split("REGRESSED")[1].splitlines()[0]
    assert str(tmp_path) not in text and "/usr/local" not in text and "simple.test.json" not in text


def test_every_report_names_and_words_the_cases_as_the_terminal_does(tmp_path):
    """The comment (a golden file), the HTML report and JUnit of the same run: labels without
    paths, the outcome word first, no PASS beside a regression."""
    from xml.etree import ElementTree as ET

    _project(tmp_path, with_new_case=False)
    _agenteval(["run"], tmp_path, changed=False)
    assert _agenteval(["accept"], tmp_path, changed=False).returncode == 0
    _project(tmp_path, with_new_case=True)
    assert _agenteval(["run"], tmp_path, changed=True).returncode == 1
    reports = {}
    for fmt in ("md", "html", "junit"):
        done = _agenteval(["report", ".agenteval/results.json", "--format", fmt], tmp_path, changed=True)
        assert done.returncode == 0, done.stderr  # a report renders; the gate is compare's
        reports[fmt] = re.sub(r"\| duration \| [\d.]+s \|", "| duration | 1.0s |", done.stdout)
    check_golden("comment_labels.md", reports["md"])
    assert "#### `dimmer` · response_match_score" in reports["md"] and "<sub>default / home / dimmer</sub>" in reports["md"]
    html = reports["html"]
    assert "<code>default / home / dimmer</code></td><td class=\"regressed\">REGRESSED</td>" in html
    assert "<code>default / home / weather</code></td><td class=\"new\">NEW (PASS)</td>" in html
    assert "/usr/local" not in html.split("<h2>Cases</h2>")[1].split("<tr class=\"detail\"")[0]
    suite = ET.fromstring(reports["junit"]).find("testsuite")
    cases = {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}
    assert set(cases) == {("default.home", n) for n in ("lights", "dimmer", "music", "weather")} | {
        ("default.simple", "simple"), ("default.a554f356-c2b0-4b18-94cb-479d98b3192f", "pretrip")}
    assert cases[("default.home", "dimmer")].find("failure").get("message") == "REGRESSED: response_match_score"
    assert cases[("default.home", "music")].find("failure") is None


@pytest.mark.parametrize(("eval_set_id", "eval_id"), [
    ("home", "lights_off"),
    ("tests/legacy/home.test.json", "tests/legacy/home.test.json"),  # a legacy file: both named after it
    ("home", "/Users/me/project/tests/home/lights.evalset.json"),  # converted by ADK: the author's path
    ("a/b/c/d.evalset.json", "case"),
])
def test_a_case_printed_as_it_is_scored_is_labelled_as_it_alone_would_be(monkeypatch, eval_set_id, eval_id):
    """`score` prints each case as it is scored, with no other case to tell it from: its label is
    case_labels' of it alone, made without looking for clashes there cannot be."""
    from agenteval_ci.report import table
    from agenteval_ci.schema import CaseResult, EvalCase, Status
    from agenteval_ci.schema.labels import case_labels

    case = CaseResult(eval_set_id=eval_set_id, eval_id=eval_id, fingerprint="f", status=Status.PASSED, eval_case=EvalCase(eval_id=eval_id, conversation=[]))
    alone = case_labels([case])[case.key]
    monkeypatch.setattr(table, "case_labels", lambda cases: pytest.fail("labels worked out for a case alone"))
    assert table.Table().lines(case)[0].endswith(f" {alone}")
