"""`validate FOLDER` finds the other formats we read by what the files hold (a Gemini-platform
dataset in any *.json, Vertex rows in *.jsonl / *.csv), not only ADK's file names; other JSON,
and what lies in hidden or installed folders, is left alone."""

from __future__ import annotations

import json

from agenteval_ci.cli import main

DATASET = {"eval_cases": [{"eval_case_id": "greet", "prompt": {"role": "user", "parts": [{"text": "hi"}]},
                           "reference": {"response": {"role": "model", "parts": [{"text": "hello"}]}}}]}


def test_a_folder_of_datasets_is_checked(tmp_path, capsys):
    data = tmp_path / "tests" / "eval" / "datasets"
    data.mkdir(parents=True)
    (data / "basic-dataset.json").write_text(json.dumps(DATASET))
    (data / "rows.jsonl").write_text(json.dumps({"prompt": "hi", "reference": "hello"}) + "\n")
    (data / "rows.csv").write_text("prompt,reference\nhi,hello\n")
    (tmp_path / "package.json").write_text(json.dumps({"name": "x"}))  # JSON, not a dataset
    (tmp_path / "prices.csv").write_text("item,price\na,1\n")  # CSV, not rows
    hidden = tmp_path / ".venv" / "lib"
    hidden.mkdir(parents=True)
    (hidden / "dataset.json").write_text("{ broken")
    assert main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("ok      ") == 3 and "3 file(s) checked, 0 invalid" in out, out
    for name in ("basic-dataset.json", "rows.jsonl", "rows.csv"):
        assert name in out


def test_a_broken_dataset_in_a_folder_fails_with_its_json_path(tmp_path, capsys):
    broken = json.loads(json.dumps(DATASET))
    broken["eval_cases"][0]["prompt"] = 5
    (tmp_path / "data.json").write_text(json.dumps(broken))
    assert main(["validate", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "INVALID" in out and "data.json" in out and "$.eval_cases[0].prompt" in out, out
