"""Reading and writing results files, case by case: versioned, written atomically (writing.py).

Version 2's layout is one JSON document with one case per line, so that a writer never holds
more than the case it writes and a reader never more than the case it reads:

    {"schema_version":2,"cases":[
    {"suite":"default","eval_set_id":"home","eval_id":"lights",...},
    {"suite":"default","eval_set_id":"home","eval_id":"heat",...}
    ],"tool_version":"0.1.0","created_at":"...","num_runs":1,"stats":{...},"warnings":[]}

The fields after the cases are known only when the last case is scored (stats, warnings).
A name ending in `.gz` is written gzip-compressed, as a series of gzip members that each end
at a case (any gzip reader reads them as one stream; ours also jumps to one case's member).
Readers tell gzip by its magic bytes, not the name. A file in any other layout (version 1,
or one reformatted by a tool) is read whole, as before. docs/results-format.md.
"""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Optional, Protocol, TypeVar

import pydantic

from ..core.digest import CaseDigest, ResultsDigest, digest
from ..core.results_record import results_of
from ..errors import InputError, Problem
from ..schema import CaseResult, Results, RunRecord, Status
from ..schema.judge import JudgeFingerprint
from ..schema.problems import problems_from
from ..schema.results import SCHEMA_VERSION
from .readers import MAX_FILE_BYTES, check_data, decode_text, open_regular, parse_json
from .spill import SpilledDigests
from .writing import atomic_writer

HEAD = b'{"schema_version":2,"cases":[\n'
GZIP_MAGIC = b"\x1f\x8b"
GZIP_LEVEL = 6  # zlib's default: a third smaller than level 1 for 2.5x its (small) time
MEMBER_BYTES = 256 * 1024  # uncompressed bytes per gzip member: fetching one case inflates at most this
MEMBERS_KEPT = 4  # inflated members kept for reading cases again: neighbours are often read together
CHUNK = 1024 * 1024
FIRST_CHUNK = 16 * 1024  # a plain file's first read from a case's line (a line is ~6 KB)


def utc_timestamp() -> str:
    """Now, as the files record it: ISO 8601, UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_results(cases: list[CaseResult], **details: Any) -> Results:
    """A results file of these cases, stamped now (see `core.results_record.results_of` for `details`)."""
    return results_of(cases, created_at=utc_timestamp(), **details)


# ---------------------------------------------------------------- writing


class Position(NamedTuple):
    """Where a case's line starts: the file offset of the gzip member it is in (0 for a plain
    file) and the offset into that member's uncompressed bytes (into the file, for a plain one)."""

    member: int
    offset: int


def case_json(case: CaseResult) -> bytes:
    """One case as its line holds it: compact UTF-8 JSON (no raw newline can occur in it)."""
    return case.__pydantic_serializer__.to_json(case, exclude_none=True)


def _trailer(header: Results) -> bytes:
    rest = header.__pydantic_serializer__.to_json(header, exclude_none=True, exclude={"schema_version", "cases"})
    return b"\n]," + rest[1:] + b"\n"  # rest is an object with the required tool_version: never `{}`


class ResultsWriter:
    """Cases as they come, then the fields known at the end: version 2's layout on `out`.
    With `tell`, each add says where the case's line starts (to read the case again later)."""

    def __init__(self, out: BinaryIO, tell: Callable[[], Position] | None = None) -> None:
        self._out = out
        self._tell = tell
        self.count = 0
        out.write(HEAD)

    def add(self, case: CaseResult) -> Position | None:
        return self.add_json(case_json(case))

    def add_json(self, line: bytes) -> Position | None:
        """A case already serialised (merging copies shards' lines as they are); where it starts."""
        if self.count:
            self._out.write(b",\n")
        at = self._tell() if self._tell is not None else None
        self._out.write(line)
        self.count += 1
        return at

    def finish(self, header: Results) -> None:
        """The other fields; `header.cases` is ignored (the cases were added)."""
        self._out.write(_trailer(header))


class _GzipMembers:
    """A binary sink that writes gzip members of about MEMBER_BYTES, each ending at a write."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._pending: list[bytes] = []
        self._size = 0

    def tell(self) -> Position:
        """Where the next byte goes: the member being made, and the offset into it."""
        return Position(self._raw.tell(), self._size)

    def write(self, data: bytes) -> int:
        self._pending.append(data)
        self._size += len(data)
        if self._size >= MEMBER_BYTES:
            self.flush()
        return len(data)

    def flush(self) -> None:
        if self._pending:
            self._raw.write(gzip.compress(b"".join(self._pending), compresslevel=GZIP_LEVEL, mtime=0))
            self._pending, self._size = [], 0


class results_file:  # noqa: N801 - used as `with results_file(path) as writer:`, like open()
    """A results file written case by case: atomically (a temp file renamed when the block ends
    without an error), gzip when the name ends in `.gz`; `-` streams to stdout."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> ResultsWriter:
        if self.path == "-":
            sys.stdout.flush()
            self._context = None
            return ResultsWriter(sys.stdout.buffer)
        self._context = atomic_writer(self.path)
        raw = self._context.__enter__()
        self._gzip = _GzipMembers(raw) if self.path.endswith(".gz") else None
        if self._gzip is not None:
            return ResultsWriter(self._gzip, self._gzip.tell)  # type: ignore[arg-type]
        return ResultsWriter(raw, lambda: Position(0, raw.tell()))

    def __exit__(self, *exc: Any) -> bool | None:
        if self._context is None:
            sys.stdout.buffer.flush()
            return None
        if exc[0] is None and self._gzip is not None:
            self._gzip.flush()
        return self._context.__exit__(*exc)


def write_results(results: Results, path: str) -> None:
    """A whole results record; `-` writes to stdout."""
    with results_file(path) as writer:
        for case in results.cases:
            writer.add(case)
        writer.finish(results)


def dump_results(results: Results) -> bytes:
    """The file's bytes (uncompressed), as write_results writes them."""
    return HEAD + b",\n".join(case_json(c) for c in results.cases) + _trailer(results)


# ---------------------------------------------------------------- reading

Versioned = TypeVar("Versioned", bound=pydantic.BaseModel)


def check_version(name: str, data: Any, supported: int, kind: str) -> None:
    if not isinstance(data, dict):
        raise InputError(Problem(name, "$", f"not an agenteval {kind} (expected an object)"))
    version = data.get("schema_version")
    if not isinstance(version, int):
        raise InputError(Problem(name, "$.schema_version", f"missing or not an integer: is this an agenteval {kind}?"))
    if version > supported:
        raise InputError(
            Problem(name, "$.schema_version", f"version {version} is newer than this agenteval reads ({supported}); upgrade agenteval-ci")
        )


def parse_versioned(name: str, data: Any, model: type[Versioned], supported: int, kind: str) -> Versioned:
    """A versioned file of ours (results, baseline): refuse one we cannot read rather than misread it."""
    check_version(name, data, supported, kind)
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise InputError(problems_from(exc, name, model)) from None


def parse_versioned_text(name: str, text: str, model: type[Versioned], supported: int, kind: str) -> Versioned:
    """parse_versioned of a file's text: pydantic parses it straight into the model, without the
    tree of dicts json.loads would make first (for a 100,000-case baseline, a fifth of the peak
    memory). A file it refuses, or one that does not say its version, is read again the slow
    way, which names the problem as before."""
    try:
        parsed = model.model_validate_json(text)
    except ValueError:  # pydantic's ValidationError among them
        parsed = None
    if parsed is None or "schema_version" not in parsed.model_fields_set:
        return parse_versioned(name, parse_json(name, text), model, supported, kind)
    check_version(name, {"schema_version": vars(parsed)["schema_version"]}, supported, kind)
    return parsed


def results_from_data(name: str, data: Any) -> Results:
    return parse_versioned(name, data, Results, SCHEMA_VERSION, "results file")


class Keyed(Protocol):
    @property
    def key(self) -> str: ...


Record = TypeVar("Record", bound=Keyed)
Parsed = TypeVar("Parsed")


class _Summary(pydantic.BaseModel):
    """What a digest reads of a case's line; the rest (the eval case, the per-turn scores) is
    skipped. The runs are read whole, for what the digest computes of their turns (the recorded
    outputs' digest, the budgeted figures), and dropped once it is made."""

    model_config = pydantic.ConfigDict(extra="ignore")


class _RubricSummary(_Summary):
    rubric_id: str
    score: Optional[pydantic.FiniteFloat] = None


class _RunScoreSummary(_Summary):
    score: Optional[pydantic.FiniteFloat] = None
    status: Status = Status.NOT_EVALUATED
    rubric_scores: Optional[list[_RubricSummary]] = None


class _MetricSummary(_Summary):
    score: Optional[pydantic.FiniteFloat] = None
    threshold: Optional[pydantic.FiniteFloat] = None
    status: Status = Status.NOT_EVALUATED
    reason: Optional[str] = None
    config_fingerprint: str = ""
    judged_without: Optional[list[str]] = None
    judge: Optional[JudgeFingerprint] = None
    runs: list[_RunScoreSummary] = []


class _CaseSummary(_Summary):
    suite: str = "default"
    eval_set_id: str
    eval_set_file: Optional[str] = None
    eval_id: str
    fingerprint: str
    status: Status
    reason: Optional[str] = None
    runs_note: Optional[str] = None
    metrics: dict[str, _MetricSummary] = {}
    runs: list[RunRecord] = []
    planned_runs: Optional[int] = None


class ResultsFile:
    """A results file read case by case. Iterating yields every case, in file order; `header`
    (the file without its cases) is there once the iteration has ended; `fetch` reads chosen
    cases again. Version 2's layout streams; any other is read whole (older files were small)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = self.path.as_posix()
        self.header: Results | None = None
        self.positions: dict[str, Position] = {}
        self._whole: dict[str, CaseResult] | None = None
        self._gzip: bool | None = None
        self._members: dict[int, bytes] = {}  # the last members inflated, for reading cases again
        self._spilled: SpilledDigests | None = None  # digest()'s cases, with where each lies

    def __iter__(self) -> Iterator[CaseResult]:
        return self._read(self._case, lambda case: case)

    def digests(self) -> Iterator[CaseDigest]:
        """Each case's digest, in file order (only what a digest holds is read of each line)."""
        return self._read(self._summary, digest)

    def digest(self) -> ResultsDigest:
        """The file's other fields and every case's digest: what compare, accept and the reports
        hold. The digests are kept on disk (files/spill.py), with where each case lies: memory
        does not grow with the file."""
        cases = SpilledDigests()
        for position, case in self._records(self._summary, digest):
            cases.add(case, *position)
        self._spilled = cases
        assert self.header is not None  # set by the iteration's end
        return ResultsDigest(self.header, cases, self.fetch)

    def case_lines(self) -> Iterator[tuple[int, bytes]]:
        """Each case's line and its index, in file order, noting nothing of where it lies (for a
        reader that goes through the file once: `case_at` or `digest_at` parses a line)."""
        return ((index, line) for index, (_, line) in enumerate(self._records(lambda line, _: line, case_json)))

    def case_at(self, line: bytes, index: int) -> CaseResult:
        """The case on a line `case_lines` gave (its errors name `$.cases[index]`)."""
        return self._case(line, index)

    def digest_at(self, line: bytes, index: int) -> CaseDigest:
        """What a digest holds of the case on a line `case_lines` gave, read only for that."""
        return self._summary(line, index)

    def located_by(self, digests: SpilledDigests) -> ResultsFile:
        """This file's cases are where `digests` (added as the file was written) say they are."""
        self._spilled = digests
        return self

    def _read(self, parse: Callable[[bytes, int], Record], of_case: Callable[[CaseResult], Record]) -> Iterator[Record]:
        """Each line's record, noting where it lies (unless digest() noted it already, on disk)."""
        self.positions = {}
        for position, record in self._records(parse, of_case):
            if self._spilled is None:
                self.positions[record.key] = position
            yield record

    def _records(self, parse: Callable[[bytes, int], Parsed], of_case: Callable[[CaseResult], Parsed]) -> Iterator[tuple[Position, Parsed]]:
        """Each line's record and where it starts; a file in another layout is read whole and
        each case made one."""
        if not is_results_file(self.path):
            yield from ((Position(0, 0), of_case(case)) for case in self._read_whole())
            return
        lines = _lines(self.path, self.name)
        next(lines)  # HEAD
        trailer = None
        index = 0
        for position, line in lines:
            if line.startswith(b"]"):
                trailer = line
                break
            if not line:
                continue
            record = parse(line.removesuffix(b","), index)
            index += 1
            yield position, record
        if trailer is None or next(lines, None) is not None:
            raise InputError(Problem(self.name, "$", "the file ends before its cases do, or goes on after them: a results file cut short or edited?"))
        self.header = self._header(trailer)

    def _where(self, key: str) -> Position | None:
        if self._spilled is not None:
            found = self._spilled.where(key)
            return None if found is None else Position(*found)
        return self.positions.get(key)

    def _case(self, line: bytes, index: int) -> CaseResult:
        try:
            return CaseResult.model_validate_json(line)
        except pydantic.ValidationError as exc:
            raise self._line_error(line, index, exc) from None

    def _summary(self, line: bytes, index: int) -> CaseDigest:
        try:
            return digest(_CaseSummary.model_validate_json(line))
        except pydantic.ValidationError as exc:
            raise self._line_error(line, index, exc) from None

    def _line_error(self, line: bytes, index: int, exc: pydantic.ValidationError) -> InputError:
        """What is wrong with a case's line, said as the whole-file reader says it: a line that
        is not JSON pydantic takes (a lone surrogate, deep nesting) is parsed again to name why."""
        at = f"$.cases[{index}]"
        if any(error["type"] == "json_invalid" for error in exc.errors()):
            try:
                data = json.loads(line)
            except (ValueError, RecursionError) as err:  # not JSON, not UTF-8, too deep
                return InputError(Problem(self.name, at, f"not valid JSON: {err}"))
            check_data(self.name, data, prefix=at)  # raises for a lone surrogate or deep nesting
        return InputError(problems_from(exc, self.name, CaseResult, prefix=at))

    def _header(self, trailer: bytes) -> Results:
        text = "{" + decode_text(self.name, trailer[2:])
        data = parse_json(self.name, text)
        if not isinstance(data, dict):
            raise InputError(Problem(self.name, "$", "the fields after the cases are not an object"))
        return results_from_data(self.name, {"schema_version": 2, **data})

    def _read_whole(self) -> Iterator[CaseResult]:
        data = parse_json(self.name, decode_text(self.name, _whole_bytes(self.path, self.name)))
        results = results_from_data(self.name, data)
        self._whole = {c.key: c for c in results.cases}
        self.header = results.model_copy(update={"cases": []})
        yield from results.cases

    def read_all(self) -> Results:
        cases = list(self)
        assert self.header is not None  # set by the iteration's end
        return self.header.model_copy(update={"cases": cases})

    def fetch(self, keys: Iterable[str]) -> dict[str, CaseResult]:
        """These cases whole (keys not in the file are left out), read again from the file."""
        if self._whole is not None:
            return {k: self._whole[k] for k in keys if k in self._whole}
        found = {k: where for k in keys if (where := self._where(k)) is not None}
        return {key: self._case(self.line(key), 0) for key in sorted(found, key=found.__getitem__)}

    def line(self, key: str) -> bytes:
        """A case's JSON as the file holds it (after the iteration found where it is)."""
        if self._whole is not None:
            return case_json(self._whole[key])
        where = self._where(key)
        if where is None:
            raise KeyError(key)
        member, offset = where
        if self._gzip is None:
            self._gzip = _is_gzip(self.path, self.name)
        if self._gzip:
            inflated = self._members.get(member)
            if inflated is None:
                inflated = _member_bytes(self.path, self.name, member)
                self._members = {**dict(list(self._members.items())[-(MEMBERS_KEPT - 1) :]), member: inflated}
            end = inflated.find(b"\n", offset)
            if end >= 0:
                return inflated[offset:end].removesuffix(b",")
        return _line_at(self.path, self.name, Position(member, offset)).removesuffix(b",")


def is_results_file(path: str | Path) -> bool:
    """Whether the file begins as version 2's layout does (plain or gzip)."""
    start = b""
    for _, _, chunk in _chunks(Path(path), Path(path).as_posix(), Position(0, 0)):
        start += chunk
        if len(start) >= len(HEAD):
            break
    return start.startswith(HEAD)


def read_results(path: str | Path) -> Results:
    """A whole results file in memory (small files, tests); big ones are read with ResultsFile."""
    return ResultsFile(path).read_all()


def _whole_bytes(path: Path, name: str) -> bytes:
    """A file in another layout, whole (inflated if gzip), within the readers' size limit."""
    parts, size = [], 0
    for _, _, chunk in _chunks(path, name, Position(0, 0)):
        size += len(chunk)
        if size > MAX_FILE_BYTES:
            raise InputError(Problem(name, "$", f"more than {MAX_FILE_BYTES:,} bytes in a layout read whole (not version 2's, one case a line)"))
        parts.append(chunk)
    return b"".join(parts)


def _is_gzip(path: Path, name: str) -> bool:
    with open_regular(path) as f:
        return f.read(2) == GZIP_MAGIC


def _chunks(path: Path, name: str, start: Position) -> Iterator[tuple[int, int, bytes]]:
    """(member, offset into it, bytes) from `start` to the end of the file: a plain file's bytes,
    or a gzip file's inflated bytes member by member (a plain file is one member at 0)."""
    gzipped = _is_gzip(path, name)
    with open_regular(path) as f:
        if not gzipped:
            f.seek(start.offset)
            offset, size = start.offset, FIRST_CHUNK  # small first: a case fetched alone is one line
            while chunk := f.read(size):
                yield 0, offset, chunk
                offset, size = offset + len(chunk), min(2 * size, CHUNK)
            return
        f.seek(start.member)
        skip = start.offset  # the first member's bytes before the wanted line
        for member, offset, chunk in _inflated(f, start.member, name):
            if skip:
                cut = min(skip, len(chunk))
                chunk, offset, skip = chunk[cut:], offset + cut, skip - cut
            if chunk:
                yield member, offset, chunk


def _member_bytes(path: Path, name: str, member: int) -> bytes:
    """One gzip member, inflated whole (at most about MEMBER_BYTES when we wrote it)."""
    parts = []
    for at, _, chunk in _chunks(path, name, Position(member, 0)):
        if at != member:
            break
        parts.append(chunk)
    return b"".join(parts)


def _inflated(f: BinaryIO, member: int, name: str) -> Iterator[tuple[int, int, bytes]]:
    """Each gzip member's bytes from the file offset `member` on, with where each member starts."""
    inflater, produced, consumed = zlib.decompressobj(wbits=31), 0, 0
    pending = f.read(CHUNK)
    try:
        while pending:
            out = inflater.decompress(pending)
            if out:
                yield member, produced, out
                produced += len(out)
            if inflater.eof:  # the member ended; another may follow
                used = len(pending) - len(inflater.unused_data)
                member += consumed + used
                pending = inflater.unused_data or f.read(CHUNK)
                inflater, produced, consumed = zlib.decompressobj(wbits=31), 0, 0
            else:
                consumed += len(pending)
                pending = f.read(CHUNK)
    except zlib.error as exc:
        raise InputError(Problem(name, "$", f"not a valid gzip file: {exc}")) from None
    if consumed:
        raise InputError(Problem(name, "$", "the gzip data ends in the middle of a member: a file cut short?"))


def _lines(path: Path, name: str, start: Position | None = None) -> Generator[tuple[Position, bytes], None, None]:
    """Each line (without its newline) and where it starts, from `start` on; never more in memory
    than the longest line and a chunk."""
    start = start or Position(0, 0)
    parts: list[bytes] = []
    size = 0
    at = start
    for member, offset, chunk in _chunks(path, name, start):
        pos = 0
        while True:
            end = chunk.find(b"\n", pos)
            if not parts and pos < len(chunk):
                at = Position(member, offset + pos)
            if end < 0:
                if pos < len(chunk):
                    parts.append(chunk[pos:])
                    size += len(chunk) - pos
                break
            parts.append(chunk[pos:end])
            yield at, b"".join(parts)
            parts, size, pos = [], 0, end + 1
        if size > MAX_FILE_BYTES:
            raise InputError(Problem(name, "$", f"a line longer than {MAX_FILE_BYTES:,} bytes: a case too big to read"))
    if parts:
        yield at, b"".join(parts)


def _line_at(path: Path, name: str, position: Position) -> bytes:
    line = next(_lines(path, name, position), None)
    if line is None:
        raise InputError(Problem(name, "$", "changed while it was being read"))
    return line[1]
