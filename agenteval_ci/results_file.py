"""Reading and writing results files: versioned, written atomically."""

from __future__ import annotations

import errno
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import pydantic

from . import __version__
from .errors import InputError, Problem, UsageError
from .loader import problems_from, read_json
from .readers import regular_or_kind
from .schema import AdaptiveInfo, CaseResult, Results, RunStats, ShardInfo
from .schema.results import SCHEMA_VERSION


def new_results(
    cases: list[CaseResult],
    *,
    num_runs: int,
    suites: list[str] | None = None,
    stats: RunStats | None = None,
    warnings: list[str] | None = None,
    shard: ShardInfo | None = None,
    commit: str | None = None,
    case_filter: list[str] | None = None,
    adaptive: AdaptiveInfo | None = None,
) -> Results:
    return Results(
        tool_version=__version__,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        num_runs=num_runs,
        suites=suites or sorted({c.suite for c in cases}) or ["default"],
        shard=shard,
        case_filter=case_filter,
        commit=commit,
        stats=stats or RunStats(),
        adaptive=adaptive,
        warnings=warnings or [],
        cases=cases,
    )


def write_atomic(path: str | Path, content: str | bytes) -> None:
    """Temp file in the same folder, then rename: a reader never sees half a file, and a
    write that fails (a name too long, a parent that is a file, a read-only folder, text
    that is not valid Unicode) leaves the old file as it was and no temp file behind."""
    target = Path(path)
    name = target.as_posix()
    try:
        data = content.encode("utf-8") if isinstance(content, str) else content
    except UnicodeEncodeError as exc:
        shown = ascii(exc.object[max(0, exc.start - 20) : exc.end + 20])
        raise InputError(
            Problem(name, "$", f"cannot write: the text holds a lone surrogate (not valid Unicode) near {shown}")
        ) from None
    if os.path.isdir(target):
        raise UsageError(f"{name}: is a folder; name a file to write")
    kind = regular_or_kind(target)
    if kind:  # a device, FIFO or socket: renaming over it would replace it (as root, /dev/stdout itself)
        raise UsageError(f"{name}: cannot write here: {kind}")
    try:
        if any(os.path.isfile(parent) for parent in target.parents):
            raise NotADirectoryError(errno.ENOTDIR, "a parent of it is a file, not a folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:200]}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise UsageError(f"{name}: cannot write here: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            # mkstemp's 0600 would hide the file from the next step (another user in a container):
            # a replaced file keeps its mode, a new one gets what open() would give it.
            os.fchmod(f.fileno(), _mode_for(target))
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{name}: cannot write here: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux tells it (other threads create files too)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0o022)  # elsewhere setting it is the only way to read it; set straight back
        os.umask(umask)
        return umask


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
