"""`agenteval score` end to end through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main


def _eval_set(tmp_path: Path, name: str, tool_args: dict, reply: str) -> Path:
    data = {
        "eval_set_id": "home",
        "eval_cases": [
            {
                "eval_id": "lights",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "Turn off the bedroom light"}], "role": "user"},
                        "final_response": {"parts": [{"text": reply}], "role": "model"},
                        "intermediate_data": {"tool_uses": [{"name": "set_device", "args": tool_args}]},
                    }
                ],
            }
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_identical_outputs_pass_and_write_results(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2, "on": False}, "The bedroom light is off.")
    actual = _eval_set(tmp_path, "actual.json", {"id": 2.0, "on": False}, "The bedroom light is off.")
    out = tmp_path / "results.json"
    assert main(["score", str(expected), "--actual", str(actual), "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    metric = results["cases"][0]["metrics"]["tool_trajectory_avg_score"]
    assert results["schema_version"] == 1
    assert metric["score"] == 1.0 and metric["status"] == "PASSED"
    assert results["cases"][0]["metrics"]["response_match_score"]["score"] == 1.0


def test_wrong_tool_args_fail_the_case(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    actual = _eval_set(tmp_path, "actual.json", {"id": 3}, "The bedroom light is off.")
    assert main(["score", str(expected), "--actual", str(actual)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_unknown_key_under_invocation_is_a_clear_error(tmp_path, capsys):
    path = _eval_set(tmp_path, "bad.evalset.json", {}, "x")
    data = json.loads(path.read_text())
    data["eval_cases"][0]["conversation"][0]["final_answer"] = "x"
    path.write_text(json.dumps(data))
    assert main(["score", str(path), "--actual", str(path)]) == 2
    err = capsys.readouterr().err
    assert "$.eval_cases[0].conversation[0].final_answer" in err
    assert "unknown key 'final_answer' in Invocation" in err and "final_response" in err
    assert "Traceback" not in err
