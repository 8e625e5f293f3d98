"""Vertex AI evaluation rows (JSONL, CSV, a JSON list) as eval sets and recorded outputs, through
the real CLI; malformed rows are exit 2 naming the file and the row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "vertex"
FORMAT = "read as Vertex AI evaluation rows"


def _scores(tmp_path: Path, suffix: str) -> dict:
    out = tmp_path / f"results-{suffix}.json"
    assert main(["score", str(DATA / f"dataset.{suffix}"), "--actual", str(DATA / f"responses.{suffix}"), "--json", str(out)]) == 1
    return {c["eval_id"]: {k: m.get("score") for k, m in c["metrics"].items()} for c in json.loads(out.read_text())["cases"]}


def test_jsonl_csv_and_a_json_list_of_the_same_rows_score_the_same(tmp_path):
    jsonl, csv, listed = (_scores(tmp_path, s) for s in ("jsonl", "csv", "json"))
    assert jsonl == csv == listed
    assert jsonl["row_1"]["tool_trajectory_avg_score"] == 1.0 and jsonl["row_1"]["response_match_score"] == 1.0
    assert jsonl["row_2"]["tool_trajectory_avg_score"] == 0.0  # one of the two reference calls made


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "json"])
def test_the_rows_validate_as_an_eval_set(suffix, capsys):
    assert main(["validate", str(DATA / f"dataset.{suffix}")]) == 0
    assert "eval set, 2 case(s)" in capsys.readouterr().out


def test_every_bad_line_of_a_jsonl_file_is_named(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "a"}\n{"prompt": 3\nnot json\n')
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert "at line 2: not valid JSON" in out and "at line 3: not valid JSON" in out and FORMAT in out
    assert "Extra data" not in out


def test_malformed_rows_name_the_row_and_the_column(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "a", "reference_trajectory": [{"tool_name": "t"}]}\n{"reference": "no prompt"}\n')
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert "at line 1.reference_trajectory[0].tool_input: required key 'tool_input' is missing" in out
    assert "at line 2.prompt: required column 'prompt' is missing or empty" in out


def test_a_csv_cell_that_is_not_json_names_its_row(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text('prompt,reference_trajectory\nhi,"[{""tool_name"": 1, ""tool_input"": {}}]"\nho,[oops\n')
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert "at row 1.reference_trajectory[0].tool_name" in out
    assert "at row 2.reference_trajectory: not valid JSON in this cell" in out


def test_a_bad_row_of_recorded_outputs_is_exit_2(tmp_path, capsys):
    actual = tmp_path / "responses.jsonl"
    actual.write_text('{"prompt": "x", "predicted_trajectory": "[{]"}\n')
    assert main(["score", str(DATA / "dataset.jsonl"), "--actual", str(actual)]) == 2
    assert "line 1.predicted_trajectory" in capsys.readouterr().err


def test_json_lines_named_json_says_what_it_is_not_extra_data(tmp_path, capsys):
    misnamed = tmp_path / "rows.json"
    misnamed.write_text((DATA / "dataset.jsonl").read_text())
    assert main(["validate", str(misnamed)]) == 2
    out = capsys.readouterr().out
    assert "holds one JSON object a line (JSON Lines)" in out and "name it .jsonl" in out and "Extra data" not in out
    assert main(["score", str(DATA / "dataset.jsonl"), "--actual", str(misnamed)]) == 2
    assert "name it .jsonl" in capsys.readouterr().err


def test_broken_json_that_is_not_json_lines_keeps_the_parsers_message(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("[1,\n2]x\n")
    assert main(["validate", str(broken)]) == 2
    assert "not valid JSON: Extra data at line 2" in capsys.readouterr().out


def test_csv_records_that_do_not_fit_the_header_name_their_row(tmp_path, capsys):
    extra = tmp_path / "extra.csv"
    extra.write_text("prompt,reference\nhi,there,extra\n")
    unclosed = tmp_path / "unclosed.csv"
    unclosed.write_text('prompt,reference\nhi,there\n"ho\n')
    assert main(["validate", str(extra), str(unclosed)]) == 2
    out = capsys.readouterr().out
    assert "extra.csv at row 1: has more fields than the header's 2 columns" in out
    assert "unclosed.csv at row 2: not a valid CSV record" in out


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_an_empty_file_is_not_an_eval_set_of_nothing(tmp_path, suffix, capsys):
    empty = tmp_path / f"empty.{suffix}"
    empty.write_text("prompt,reference\n" if suffix == "csv" else "\n")
    assert main(["validate", str(empty)]) == 2
    assert "holds no rows (read as Vertex AI evaluation rows)" in capsys.readouterr().out
