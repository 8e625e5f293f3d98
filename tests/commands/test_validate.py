"""`agenteval validate`: files and folders, every problem with file and JSON path."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

GOOD_CASE = {"eval_id": "a", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]}


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_a_folder_of_valid_files_passes(tmp_path, capsys):
    _write(tmp_path / "evals" / "home.evalset.json", {"eval_set_id": "home", "eval_cases": [GOOD_CASE]})
    _write(tmp_path / "evals" / "deep" / "old.test.json", [{"query": "hi", "expected_tool_use": [], "reference": "hello"}])
    _write(tmp_path / "evals" / "test_config.json", {"criteria": {"trajectory_precision": 0.5, "response_match_score": 0.7}})
    _write(tmp_path / "evals" / "notes.json", {"not": "an eval set"})  # not a pattern we check
    assert main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "3 file(s) checked, 0 invalid" in out and "legacy test file, 1 case(s)" in out


def test_every_problem_of_every_file_is_printed_and_exit_is_1(tmp_path, capsys):
    bad_case = {"eval_id": "a", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}, "final_answer": "x"}]}
    _write(tmp_path / "bad.evalset.json", {"eval_set_id": "s", "eval_cases": [GOOD_CASE, bad_case]})
    _write(tmp_path / "test_config.json", {"criteria": {"no_such_metric": 1.0, "trajectory_single_tool_use": 0.5}})
    _write(tmp_path / "good.evalset.json", {"eval_set_id": "s", "eval_cases": [GOOD_CASE]})
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "$.eval_cases[1].conversation[0].final_answer" in out
    assert "$.criteria.no_such_metric: unknown metric 'no_such_metric'" in out
    assert "$.criteria.trajectory_single_tool_use" in out and "tool_name" in out  # required key missing
    assert "3 file(s) checked, 2 invalid" in out


def test_a_missing_path_is_a_usage_error(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_informational_metrics_take_no_threshold(tmp_path, capsys):
    _write(tmp_path / "test_config.json", {"criteria": {"token_usage_v1": 100}})
    assert main(["validate", str(tmp_path / "test_config.json")]) == 1
    assert "informational" in capsys.readouterr().out
