"""Vertex AI evaluation rows (a JSONL file, a CSV file with a header, or a JSON list of objects)
as an EvalSet (`prompt`, `reference`, `reference_trajectory`) and as recorded outputs (`prompt`,
`response`, `predicted_trajectory`). A row is named `row_N` (N from 1, in file order); errors
name the row: `line N` of a JSONL file, `row N` of a CSV file (the header is row 0), `$[i]` of a
JSON list.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import pydantic

from ...errors import InputError, Problem
from ...schema import EvalSet, Invocation
from ...schema.content import Content, FunctionCall
from ...schema.eval_set import EvalCase, IntermediateData
from ...schema.problems import problems_from
from ..readers import check_data

if TYPE_CHECKING:  # the rows' models are built when rows are read (_valid_rows), not by every score
    from ...schema.vertex_rows import ToolStep, VertexRow

FORMAT_NAME = "Vertex AI evaluation rows"
SUFFIXES = (".jsonl", ".csv")
_COLUMNS = {"prompt", "reference", "response", "reference_trajectory", "predicted_trajectory"}


class Rows(list[tuple[str, Any]]):
    """Rows read from a JSONL or CSV file, each with where it is in the file."""


def parse(name: str, text: str) -> Rows:
    """A JSONL or CSV file's rows (by its suffix), each a JSON object or a CSV record (a field
    for each column of the header, quotes closed)."""
    rows = _csv_rows(name, text) if PurePath(name).suffix.lower() == ".csv" else _jsonl_rows(name, text)
    if not rows:  # an empty file is a mistake, not a passing eval set of nothing
        raise InputError(_problem(name, "$", "holds no rows"))
    return rows


def _csv_rows(name: str, text: str) -> Rows:
    rows, problems = Rows(), []
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        for i, record in enumerate(reader, start=1):
            if None in record:  # DictReader keeps the fields past the header under None
                problems.append(_problem(name, f"row {i}", f"has more fields than the header's {len(reader.fieldnames or [])} columns"))
            else:
                rows.append((f"row {i}", dict(record)))
    except csv.Error as exc:
        problems.append(_problem(name, f"row {len(rows) + len(problems) + 1}", f"not a valid CSV record: {exc}"))
    if problems:
        raise InputError(problems)
    return rows


def _jsonl_rows(name: str, text: str) -> Rows:
    rows, problems = Rows(), []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                rows.append((f"line {n}", json.loads(line)))
            except ValueError as exc:
                problems.append(_problem(name, f"line {n}", f"not valid JSON: {exc}; a JSONL file holds one JSON object a line"))
    if problems:
        raise InputError(problems)
    return rows


def has_columns(text: str, suffix: str) -> bool:
    """Whether the first row of JSONL or CSV text names one of Vertex's columns."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if suffix == ".csv":
        return bool(_COLUMNS & {cell.strip().strip('"') for cell in first.split(",")})
    try:
        row = json.loads(first)
    except ValueError:
        return False
    return isinstance(row, dict) and bool(_COLUMNS & row.keys())


def misnamed_jsonl(name: str, text: str) -> Problem | None:
    """A file not named .jsonl that holds one JSON object a line: what to do, instead of JSON's
    "Extra data" at line 2."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or PurePath(name).suffix.lower() in SUFFIXES:
        return None
    try:
        if not all(isinstance(json.loads(line), dict) for line in lines[:2]):
            return None
    except ValueError:
        return None
    return Problem(name, "$", f"holds one JSON object a line (JSON Lines), not one JSON document; name it .jsonl to read it as {FORMAT_NAME}")


def recognises(data: Any) -> bool:
    """JSONL/CSV rows, or a JSON list of objects with Vertex's columns (no legacy `query`)."""
    if isinstance(data, Rows):
        return True
    return (isinstance(data, list) and bool(data) and all(isinstance(r, dict) for r in data)
            and any(_COLUMNS & r.keys() for r in data) and not any("query" in r or "data" in r for r in data))


def read(name: str, data: Any) -> tuple[EvalSet, list[Problem]]:
    rows, warnings = _valid_rows(name, data, need="prompt")
    cases = [EvalCase(eval_id=row_id, conversation=[_invocation(row.prompt or "", row.reference, row.reference_trajectory)])
             for row_id, row in rows]
    return EvalSet(eval_set_id=name, name=name, eval_cases=cases), warnings


def read_traces(name: str, data: Any) -> dict[str, list[Invocation]]:
    rows, _ = _valid_rows(name, data, need="prompt")
    return {row_id: [_invocation(row.prompt or "", row.response, row.predicted_trajectory)] for row_id, row in rows}


def _labelled(data: Any) -> list[tuple[str, Any]]:
    return list(data) if isinstance(data, Rows) else [(f"$[{i}]", row) for i, row in enumerate(data)]


def _valid_rows(name: str, data: Any, need: str) -> tuple[list[tuple[str, VertexRow]], list[Problem]]:
    from ...schema.vertex_rows import VertexRow

    problems: list[Problem] = []
    warnings: list[Problem] = []
    rows = []
    for i, (at, raw) in enumerate(_labelled(data), start=1):
        if not isinstance(raw, dict):
            problems.append(_problem(name, at, f"a row must be an object with Vertex's columns, got {type(raw).__name__}"))
            continue
        check_data(name, raw, prefix=at)
        try:
            row = VertexRow.model_validate(raw)
        except pydantic.ValidationError as exc:
            problems += [_problem(name, p.json_path, p.message) for p in problems_from(exc, name, VertexRow, prefix=at)]
            continue
        if not getattr(row, need):
            problems.append(_problem(name, f"{at}.{need}", f"required column {need!r} is missing or empty"))
            continue
        warnings += [Problem(name, f"{at}.{key}", f"unknown column in {FORMAT_NAME}; ignored") for key in row.model_extra or {}]
        rows.append((f"row_{i}", row))
    if problems:
        raise InputError(problems)
    return rows, warnings


def _invocation(prompt: str, response: str | None, trajectory: list[ToolStep] | None) -> Invocation:
    calls = [FunctionCall(name=step.tool_name, args=step.tool_input) for step in trajectory or []]
    return Invocation(
        user_content=Content.from_text(prompt, "user"),
        final_response=Content.from_text(response, "model") if response is not None else None,
        intermediate_data=IntermediateData(tool_uses=calls),
    )


def _problem(name: str, at: str, message: str) -> Problem:
    return Problem(name, at, f"{message} (read as {FORMAT_NAME})")
