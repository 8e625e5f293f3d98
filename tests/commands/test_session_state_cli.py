"""session_state_match end to end through `agenteval run` with a Python callable and a JSON-contract
server: rules (number tolerance, regex, ignore) over the state, partial credit per key, the state diff
in the PR comment, "not reported" never a pass, and bad rules exit 2 naming the file and JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval_ci.cli import main
from tests.agents.remote.helpers import free_port, python_command

AGENT = '''
import os, time

def agent(text, session):
    theme = os.environ.get("THEME") or text.split()[-1]
    session.state.update(theme=theme, volume=0.71, saved_at=time.time(), session_ref="s-" + str(session.run_index))
    return "Saved."
'''
EXPECTED = {"theme": "dark", "volume": 0.7, "saved_at": 1.0, "session_ref": "s-0"}
RULES = {"volume": {"number": {"abs": 0.05}}, "saved_at": "ignore", "session_ref": {"regex": "s-[0-9]+"}}


def _project(tmp_path: Path, criteria: dict[str, Any], agent: Any = "prefs.py:agent", expected: dict[str, Any] | None = EXPECTED) -> Path:
    (tmp_path / "prefs.py").write_text(AGENT)
    case: dict[str, Any] = {"eval_id": "dark", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "Use the theme dark"}]}}]}
    if expected is not None:
        case["final_session_state"] = expected
    (tmp_path / "prefs.evalset.json").write_text(json.dumps({"eval_set_id": "prefs", "eval_cases": [case]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": criteria}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(yaml.safe_dump({"suites": [{"agent": agent, "eval_sets": "prefs.evalset.json", "eval_config": "test_config.json"}]}))
    return config


def _metric(results: Path) -> dict[str, Any]:
    [case] = json.loads(results.read_text())["cases"]
    return case["metrics"]["session_state_match"]


def test_rules_give_full_credit_and_without_them_each_key_counts(tmp_path):
    config = _project(tmp_path, {"session_state_match": {"threshold": 1.0, "state_rules": RULES}})
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(config), "--json", str(out), "-q"]) == 0
    assert _metric(out)["score"] == 1.0
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"session_state_match": 0.5}}))
    assert main(["run", "--config", str(config), "--json", str(out), "-q"]) == 0
    # exact: theme and session_ref match, volume (0.71 vs 0.7) and the timestamp do not
    assert _metric(out)["score"] == 0.5


def test_a_wrong_preference_is_a_regression_shown_as_a_state_diff(tmp_path, monkeypatch, capsys):
    config = _project(tmp_path, {"session_state_match": {"threshold": 1.0, "state_rules": RULES}})
    passing, failing, baseline = tmp_path / "pass.json", tmp_path / "fail.json", tmp_path / "baseline.json"
    assert main(["run", "--config", str(config), "--json", str(passing), "-q"]) == 0
    assert main(["accept", str(passing), "--baseline", str(baseline)]) == 0
    monkeypatch.setenv("THEME", "light")
    assert main(["run", "--config", str(config), "--json", str(failing), "-q", "--no-gate"]) == 1  # below its threshold
    assert _metric(failing)["score"] == pytest.approx(2 / 3)  # theme wrong; saved_at ignored, so 3 keys count
    capsys.readouterr()
    assert main(["compare", str(failing), "--baseline", str(baseline), "--md", "-"]) == 1
    comment = capsys.readouterr().out
    assert "Final session state, expected -> actual per key" in comment
    assert '!     theme: "dark" -> "light"   ✗ exact' in comment
    assert "      volume: 0.7 -> 0.71   ✓ number (abs 0.05)" in comment


def test_no_expected_state_or_no_reported_state_is_not_evaluated_never_a_pass(tmp_path, capsys):
    config = _project(tmp_path, {"session_state_match": 1.0}, expected=None)
    out = tmp_path / "results.json"
    main(["run", "--config", str(config), "--json", str(out), "-q"])
    metric = _metric(out)
    assert metric["status"] == "NOT_EVALUATED" and "no final_session_state" in metric["reason"]


def test_the_json_contract_reports_its_last_state_and_a_server_without_state_is_not_evaluated(tmp_path):
    port = free_port()
    agent = {"kind": "http", "url": f"http://127.0.0.1:{port}/turn", "start": python_command("json_agent.py"), "ready_timeout_seconds": 20}
    expected = {"turns": 1, "user": "Ada"}
    config = _project(tmp_path, {"session_state_match": 1.0}, agent=agent, expected=expected)
    data = json.loads((tmp_path / "prefs.evalset.json").read_text())
    data["eval_cases"][0]["session_input"] = {"app_name": "prefs", "user_id": "u1", "state": {"user": "Ada"}}
    (tmp_path / "prefs.evalset.json").write_text(json.dumps(data))
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(config), "--json", str(out), "-q"]) == 0
    [case] = json.loads(out.read_text())["cases"]
    assert case["runs"][0]["final_session_state"] == expected
    assert _metric(out)["score"] == 1.0

    agent["env"] = {"AGENT_OMIT_STATE": "1"}
    config.write_text(yaml.safe_dump({"suites": [{"agent": agent, "eval_sets": "prefs.evalset.json", "eval_config": "test_config.json"}]}))
    main(["run", "--config", str(config), "--json", str(out), "-q"])
    metric = _metric(out)
    assert metric["status"] == "NOT_EVALUATED" and "did not report its final session state" in metric["reason"]


@pytest.mark.parametrize(
    "criterion, where, message",
    [
        ({"threshold": 1, "state_rules": {"theme": "fuzzy"}}, "session_state_match.state_rules.theme", "unknown rule 'fuzzy'"),
        ({"threshold": 1, "state_rules": {"$": "text"}}, "session_state_match.state_rules", "the whole state ($) takes exact, ignore, subset, superset"),
        ({"threshold": 1, "state_rule": {}}, "session_state_match.state_rule", "unknown key 'state_rule'; session_state_match reads: threshold"),
    ],
)
def test_bad_state_rules_are_exit_2_naming_the_file_and_path(tmp_path, capsys, criterion, where, message):
    config = _project(tmp_path, {"session_state_match": criterion})
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "test_config.json" in err and where in err and message in err, err
