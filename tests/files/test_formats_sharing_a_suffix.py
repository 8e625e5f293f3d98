"""Two eval set formats may read the same suffix (a second CSV layout beside Vertex's rows): each
is tried in order, one whose `parse` gives None passes the file on, and validate's folder peek
asks each format of the suffix. Until this, the first .csv format took every .csv file."""

from __future__ import annotations

from typing import Any, Optional

from agenteval_ci.files import formats
from agenteval_ci.files.eval_sets import load_eval_set
from agenteval_ci.files.formats import EvalSetFormat, holds_a_dataset
from agenteval_ci.schema import EvalSet
from agenteval_ci.schema.eval_set import EvalCase

PIPED = "case|question\nc1|What is 2+2?\n"  # a made-up layout: not Vertex's columns


def _parse(name: str, text: str) -> Optional[list[list[str]]]:
    lines = text.splitlines()
    return [line.split("|") for line in lines[1:]] if lines and lines[0] == "case|question" else None


def _read(name: str, data: Any) -> tuple[EvalSet, list]:
    cases = [EvalCase.model_validate({"eval_id": eid, "conversation": [{"user_content": {"parts": [{"text": q}]}}]}) for eid, q in data]
    return EvalSet(eval_set_id=name, eval_cases=cases), []


PIPE_FORMAT = EvalSetFormat("piped table", lambda data: False, _read, lambda name, data: {}, (".csv",), _parse,
                            lambda text, suffix: text.startswith("case|question"))


def _with_a_second_csv_format(monkeypatch) -> None:
    monkeypatch.setattr(formats, "FORMATS", (PIPE_FORMAT, *formats.FORMATS))


def test_each_format_of_a_suffix_is_tried_in_order(tmp_path, monkeypatch):
    _with_a_second_csv_format(monkeypatch)
    piped, vertex = tmp_path / "piped.csv", tmp_path / "vertex.csv"
    piped.write_text(PIPED)
    vertex.write_text('prompt,reference\n"What is 2+2?",4\n')
    [case] = load_eval_set(piped).eval_set.eval_cases
    assert case.eval_id == "c1" and case.conversation[0].user_content.parts[0].text == "What is 2+2?"
    [row] = load_eval_set(vertex).eval_set.eval_cases  # the first format passed it on to Vertex's
    assert row.conversation[0].final_response.parts[0].text == "4"


def test_validates_folder_peek_asks_every_format_of_the_suffix(tmp_path, monkeypatch):
    piped = tmp_path / "piped.csv"
    piped.write_text(PIPED)
    assert not holds_a_dataset(piped)  # Vertex's columns alone do not find it
    _with_a_second_csv_format(monkeypatch)
    assert holds_a_dataset(piped)
