"""Eval set formats beyond google-adk's own, one module each, registered here as data.

A format says whether parsed JSON looks like it (`recognises`, a quick look at keys), reads it
into the EvalSet every caller scores (`read`) and, as recorded outputs for `score --actual`,
into each case's turns (`read_traces`). A format kept in files that are not JSON names their
suffixes and how their text becomes the data `read` takes (`parse`). Every InputError's
problems name the file, the JSON path (or row) and the format the file was read as.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Optional

from ...errors import Problem
from ...schema import EvalSet, Invocation
from . import gemini_dataset, vertex_rows


@dataclass(frozen=True)
class EvalSetFormat:
    name: str  # how errors name the format a file was read as
    recognises: Callable[[Any], bool]
    read: Callable[[str, Any], tuple[EvalSet, list[Problem]]]
    read_traces: Callable[[str, Any], dict[str, list[Invocation]]]
    suffixes: tuple[str, ...] = ()  # files that are not JSON, read by `parse`
    parse: Optional[Callable[[str, str], Any]] = None  # None from it: not this format's file, the next format of the suffix reads it
    holds: Optional[Callable[[str, str], bool]] = None  # (text, suffix): a peek at a text file found in a folder


FORMATS: tuple[EvalSetFormat, ...] = (
    EvalSetFormat(gemini_dataset.FORMAT_NAME, gemini_dataset.recognises, gemini_dataset.read, gemini_dataset.read_traces),
    EvalSetFormat(vertex_rows.FORMAT_NAME, vertex_rows.recognises, vertex_rows.read, vertex_rows.read_traces,
                  vertex_rows.SUFFIXES, vertex_rows.parse, vertex_rows.has_columns),
)

TEXT_SUFFIXES = tuple(dict.fromkeys(suffix for f in FORMATS for suffix in f.suffixes))


def format_of(data: Any) -> EvalSetFormat | None:
    return next((f for f in FORMATS if f.recognises(data)), None)


def misnamed(name: str, text: str) -> Problem | None:
    """What a file that is not JSON is, when a format can tell (a JSON Lines file named .json)."""
    return vertex_rows.misnamed_jsonl(name, text)


def parsed_by_suffix(name: str, text: str) -> tuple[EvalSetFormat, Any] | None:
    """A file whose suffix a format reads as text (JSONL, CSV): its format and its data. Formats
    sharing a suffix are tried in order; one whose `parse` gives None passes the file on."""
    suffix = PurePath(name).suffix.lower()
    for found in FORMATS:
        data = found.parse(name, text) if suffix in found.suffixes and found.parse else None
        if data is not None:
            return found, data
    return None


PEEK_BYTES = 4 * 1024 * 1024  # a file found in a folder is looked into only this far


def holds_a_dataset(path: Path) -> bool:
    """Whether a file found in a folder (not named as an eval set) is one of these formats: a
    JSON file a format recognises, or JSONL/CSV text a format of its suffix `holds` (Vertex's:
    a first row with one of its columns). A file too big to peek at, or unreadable, is left to the reader it is named to."""
    try:
        if path.stat().st_size > PEEK_BYTES:
            return False
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return any(f.holds(text, suffix) for f in FORMATS if suffix in f.suffixes and f.holds)
    try:
        return format_of(json.loads(text)) is not None
    except ValueError:
        return False
