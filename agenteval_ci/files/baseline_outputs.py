"""The recorded outputs file beside a baseline (schema/recorded_outputs.py, docs/baseline.md).

Gzip, one JSON line a case, written atomically in one pass (a 10,000-case suite never sits in
memory as one string) with a fixed gzip timestamp, so the same records give the same bytes and
an accept that changes nothing changes no file. Read lazily: only the lines of the digests
asked for are parsed, the rest are skipped by their first bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import pydantic

from ..core.recorded_outputs import recorded_case
from ..errors import InputError, Problem
from ..schema import CaseResult
from ..schema.problems import problems_from
from ..schema.recorded_outputs import OUTPUTS_VERSION, OutputsHeader, RecordedCase
from .writing import write_atomic_with

SUFFIX = ".outputs.jsonl.gz"
MAX_LINE_BYTES = 64 * 1024 * 1024  # one case's recorded runs
_PREFIX = b'{"digest":"'


def outputs_path(baseline_path: str | Path) -> Path:
    """`.agenteval/baseline.json` -> `.agenteval/baseline.outputs.jsonl.gz`."""
    path = Path(baseline_path)
    return path.with_name(path.name.removesuffix(".json") + SUFFIX)


def write_outputs(path: str | Path, records: Iterable[RecordedCase]) -> int:
    """The file, of `records` (each digest once, first one kept); how many were written."""
    count = 0

    def write(handle: BinaryIO) -> None:
        nonlocal count
        count = _write_records(handle, records)

    write_atomic_with(path, write)
    return count


def outputs_bytes(records: Iterable[RecordedCase]) -> tuple[bytes, int]:
    """The file's bytes, held in memory (the action commits them through the API), and how many records."""
    buffer = io.BytesIO()
    count = _write_records(buffer, records)
    return buffer.getvalue(), count


def _write_records(handle: BinaryIO, records: Iterable[RecordedCase]) -> int:
    seen: set[str] = set()
    with gzip.GzipFile(fileobj=handle, mode="wb", mtime=0, filename="") as out:
        out.write(OutputsHeader().model_dump_json().encode() + b"\n")
        for record in records:
            if record.digest not in seen:
                seen.add(record.digest)
                out.write(record.__pydantic_serializer__.to_json(record, exclude_none=True) + b"\n")
    return len(seen)


def save_outputs(baseline_path: str | Path, wanted: set[str], cases: Iterable[CaseResult]) -> int:
    """The outputs file beside a baseline just accepted from the results' `cases` (read a case
    at a time from the results file): the records of the digests it points to (`wanted`), from
    the results or carried over from the file there (a partial accept keeps the cases and
    metrics it did not change). Written before the baseline: a failure leaves both as they were,
    and extra records are harmless."""
    path = outputs_path(baseline_path)
    return write_outputs(path, accepted_records(wanted, cases, path))


def accepted_records(wanted: set[str], cases: Iterable[CaseResult], previous: Path | bytes | None, name: str = "") -> Iterator[RecordedCase]:
    """The records of an accepted baseline's outputs file: those of the `wanted` digests from
    the results' cases (one at a time), then the rest carried over from the `previous` file (a
    path, or its bytes)."""
    fresh: set[str] = set()
    for case in cases:
        record = recorded_case(case)
        if record.digest in wanted:
            fresh.add(record.digest)
            yield record
    if previous is not None:
        yield from kept_records(previous, wanted - fresh, name)


def read_outputs(path: str | Path, wanted: set[str]) -> dict[str, RecordedCase]:
    """The records of the `wanted` digests found in the file ({} when there is no file).
    InputError, naming the file and the line, when it cannot be read."""
    found: dict[str, RecordedCase] = {}
    name = Path(path).as_posix()
    for digest, line, number in _lines(Path(path), name):
        if digest in wanted and digest not in found:
            found[digest] = _parse(name, line, number)
    return found


def kept_records(source: Path | bytes, wanted: set[str], name: str = "") -> Iterator[RecordedCase]:
    """The records of `wanted` in a file (or its bytes), one at a time (an accept carrying them over)."""
    name = name or (source.as_posix() if isinstance(source, Path) else "<recorded outputs>")
    for digest, line, number in _lines(source, name):
        if digest in wanted:
            yield _parse(name, line, number)


def _lines(source: Path | bytes, name: str) -> Iterator[tuple[str, bytes, int]]:
    if isinstance(source, Path) and not source.is_file():
        return
    try:
        with gzip.open(source if isinstance(source, Path) else io.BytesIO(source), "rb") as stream:
            header = stream.readline(MAX_LINE_BYTES)
            _check_header(name, header)
            for number, line in enumerate(iter(lambda: stream.readline(MAX_LINE_BYTES + 1), b""), start=2):
                if len(line) > MAX_LINE_BYTES:
                    raise InputError(Problem(name, f"line {number}", f"longer than {MAX_LINE_BYTES:,} bytes"))
                if not line.startswith(_PREFIX):
                    raise InputError(Problem(name, f"line {number}", "not a recorded case"))
                yield line[len(_PREFIX):len(_PREFIX) + 64].split(b'"', 1)[0].decode("ascii", "replace"), line, number
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(Problem(name, "$", f"not a readable gzip file of recorded outputs ({exc})")) from None


def _check_header(name: str, line: bytes) -> None:
    try:
        header = OutputsHeader.model_validate_json(line)
    except pydantic.ValidationError:
        raise InputError(Problem(name, "line 1", "not an agenteval recorded outputs file")) from None
    if header.schema_version > OUTPUTS_VERSION:
        raise InputError(Problem(name, "line 1", f"version {header.schema_version} is newer than this agenteval reads ({OUTPUTS_VERSION}); upgrade agenteval-ci"))


def _parse(name: str, line: bytes, number: int) -> RecordedCase:
    try:
        return RecordedCase.model_validate(json.loads(line))
    except ValueError as exc:
        if isinstance(exc, pydantic.ValidationError):
            raise InputError(problems_from(exc, f"{name} line {number}", RecordedCase)) from None
        raise InputError(Problem(name, f"line {number}", f"not JSON ({exc})")) from None
