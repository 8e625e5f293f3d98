"""Eval set formats beyond google-adk's own, one module each, registered here as data.

A format says whether parsed JSON looks like it (`recognises`, a quick look at keys) and reads
it into the EvalSet every caller scores (`read`), raising InputError whose problems name the
file, the JSON path and the format the file was read as.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import Problem
from ...schema import EvalSet
from . import gemini_dataset


@dataclass(frozen=True)
class EvalSetFormat:
    name: str  # how errors name the format a file was read as
    recognises: Callable[[Any], bool]
    read: Callable[[str, Any], tuple[EvalSet, list[Problem]]]


FORMATS: tuple[EvalSetFormat, ...] = (
    EvalSetFormat(gemini_dataset.FORMAT_NAME, gemini_dataset.recognises, gemini_dataset.read),
)


def format_of(data: Any) -> EvalSetFormat | None:
    return next((f for f in FORMATS if f.recognises(data)), None)
