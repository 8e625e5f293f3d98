"""Reading and writing results files: versioned, written atomically (writing.py)."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import pydantic

from ..core.results import results_of
from ..errors import InputError, Problem
from ..schema import CaseResult, Results
from ..schema.problems import problems_from
from ..schema.results import SCHEMA_VERSION
from .readers import read_json
from .writing import write_atomic


def utc_timestamp() -> str:
    """Now, as the files record it: ISO 8601, UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_results(cases: list[CaseResult], **details: Any) -> Results:
    """A results file of these cases, stamped now (see `core.results.results_of` for `details`)."""
    return results_of(cases, created_at=utc_timestamp(), **details)


def dump_results(results: Results) -> bytes:
    """UTF-8 JSON, compact: machines read it (a 2,000-case run is 11 MB instead of 25 MB
    indented); `agenteval report` and `jq` are how people read it. Bytes, because decoding
    11 MB only to encode it again costs a quarter of writing it."""
    return results.__pydantic_serializer__.to_json(results, exclude_none=True) + b"\n"


def write_results(results: Results, path: str) -> None:
    """`-` writes to stdout."""
    data = dump_results(results)
    if path == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(path, data)


Versioned = TypeVar("Versioned", bound=pydantic.BaseModel)


def parse_versioned(name: str, data: Any, model: type[Versioned], supported: int, kind: str) -> Versioned:
    """A versioned file of ours (results, baseline): refuse one we cannot read rather than misread it."""
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", f"not an agenteval {kind} (expected an object)"))
    version = data.get("schema_version")
    if not isinstance(version, int):
        raise InputError(Problem(name, "$.schema_version", f"missing or not an integer: is this an agenteval {kind}?"))
    if version > supported:
        raise InputError(
            Problem(name, "$.schema_version", f"version {version} is newer than this agenteval reads ({supported}); upgrade agenteval-ci")
        )
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, model)) from None


def results_from_data(name: str, data: Any) -> Results:
    return parse_versioned(name, data, Results, SCHEMA_VERSION, "results file")


def read_results(path: str | Path) -> Results:
    return results_from_data(Path(path).as_posix(), read_json(path))
