"""The baseline file read case by case (docs/baseline.md): each case is parsed and checked on
its own and kept on disk (files/spill.py), so a 100,000-case baseline is never one tree of
objects in memory.

The file is followed as JSON of any layout (ours is `json.dumps(indent=2, sort_keys=True)`):
the top-level fields other than `suites` are small and parsed whole; `suites` is walked suite
by suite and eval set by eval set, and each case's object is parsed and validated as a
BaselineCase on its own. A
file this reader cannot follow, or whose content is wrong anywhere (broken or cut-short JSON,
an unknown key, a newer version), is read again whole by the reader that names the problem
(the file and the JSON path, exit 2): memory matters only for a baseline that works.
"""

from __future__ import annotations

import io
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO

import pydantic

from ..core.baseline import baseline_json_parts
from ..errors import UsageError
from ..schema.baseline import BASELINE_VERSION, Baseline, BaselineCase
from .json_stream import _Incomplete, _Text
from .readers import decode_text, open_regular, read_bytes
from .results_file import check_version, parse_versioned, parse_versioned_text
from .spill import CaseStore, SpilledCases
from .writing import write_pieces


def load_baseline(path: str | Path, *, required: bool = False) -> Baseline | None:
    """None when there is no baseline yet (a first run); UsageError when one was named
    explicitly (`required`) and is missing; InputError (naming the file) when it is unusable."""
    name = Path(path).as_posix()
    if os.path.lexists(path) and not Path(path).exists():
        raise UsageError(f"baseline {name}: a broken symlink or a symlink loop")
    if not Path(path).exists():
        if required:
            raise UsageError(f"baseline {name}: file not found (it was named explicitly; drop --baseline or "
                             "agenteval.yaml's `baseline:` to run without one)")
        return None
    return read_baseline(path)  # case by case, its cases kept on disk


def parse_baseline(name: str, data: Any) -> Baseline:
    """Parsed JSON as a baseline; `name` says where it came from (a file, a file at a commit)."""
    return parse_versioned(name, data, Baseline, BASELINE_VERSION, "baseline")


def write_baseline(path: str | Path, baseline: Baseline) -> None:
    """Atomically: a run cut short leaves the old file whole."""
    write_pieces(path, baseline_json_parts(baseline))


def utc_now() -> str:
    """The time a baseline is made, for its provenance (the core keeps no clock)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def read_baseline(path: str | Path) -> Baseline:
    """The baseline at `path` (which exists), its cases on disk; InputError naming the file when unusable."""
    name = Path(path).as_posix()
    with open_regular(path) as f:
        found = _streamed(f, name)
    if found is None:
        return parse_versioned_text(name, decode_text(name, read_bytes(path)), Baseline, BASELINE_VERSION, "baseline")
    return found


def parse_baseline_text(name: str, text: str) -> Baseline:
    """A baseline held as text (fetched through the API); `name` says where it came from."""
    found = _streamed(io.BytesIO(text.encode("utf-8", "surrogatepass")), name)
    return found if found is not None else parse_versioned_text(name, text, Baseline, BASELINE_VERSION, "baseline")


def _streamed(f: BinaryIO, name: str) -> Baseline | None:
    """The baseline, or None when the file is not one this reader can vouch for."""
    try:
        return _baseline(_Text(_NoSurrogateEscapes(f)), name)  # type: ignore[arg-type]
    except (ValueError, _Incomplete, RecursionError, pydantic.ValidationError):  # UnicodeDecodeError is a ValueError
        return None


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class _NoSurrogateEscapes:
    """The file's bytes, refused (ValueError: read whole) at the first escaped surrogate: a lone
    one must be named as the whole reader names it, and a valid pair (an emoji written with
    ensure_ascii) is rare enough in a baseline to be read whole too."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        self._tail = b""

    def read(self, size: int = -1) -> bytes:
        data = self._f.read(size)
        if _SURROGATE_ESCAPE.search(self._tail + data):
            raise ValueError("an escaped surrogate")
        self._tail = data[-5:]
        return data


def _baseline(text: _Text, name: str) -> Baseline | None:
    store = CaseStore()
    others: dict[str, Any] = {}
    suites: dict[str, dict[str, SpilledCases]] | None = None
    for key in _keys(text):
        if key in others or (key == "suites" and suites is not None):
            return None  # a repeated key: read whole, as the json module reads it
        if key == "suites":
            suites = _suites(text, store)
            if suites is None:
                return None
        else:
            others[key] = text.value()
    if text.skip_whitespace() != "":
        return None
    check_version(name, others, BASELINE_VERSION, "baseline")  # a newer file is refused, never misread
    head = Baseline.model_validate({**others, "suites": {}})
    # The cases were each validated; the record around them is not validated again (that
    # would copy them into memory).
    return head.model_copy(update={"suites": suites or {}})


def _keys(text: _Text) -> Any:
    """The keys of the object at the position, each with the position at its value."""
    text.expect("{")
    first = True
    while text.skip_whitespace() != "}":
        if not first:
            text.expect(",")
        key = text.value()
        if not isinstance(key, str):
            raise ValueError("a key that is not a string")
        text.expect(":")
        first = False
        yield key
    text.at += 1


def _suites(text: _Text, store: CaseStore) -> dict[str, dict[str, SpilledCases]] | None:
    suites: dict[str, dict[str, SpilledCases]] = {}
    if text.skip_whitespace() != "{":
        return None
    for suite in _keys(text):
        if suite in suites or text.skip_whitespace() != "{":
            return None
        sets: dict[str, SpilledCases] = {}
        for eval_set_id in _keys(text):
            if eval_set_id in sets or text.skip_whitespace() != "{":
                return None
            cases = sets[eval_set_id] = store.new_cases()
            for eval_id in _keys(text):
                if eval_id in cases or text.skip_whitespace() != "{":
                    return None
                case = BaselineCase.model_validate(text.value())
                cases.set_packed(eval_id, case.__pydantic_serializer__.to_json(case, exclude_none=True))
        suites[suite] = sets
    return suites
