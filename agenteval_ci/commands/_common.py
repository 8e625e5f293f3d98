"""What the commands share: where their results go, how the table looks, warnings."""

from __future__ import annotations

import errno
import fnmatch
import gc
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Problem, UsageError
from ..files.readers import printable, regular_or_kind
from ..files.results import write_results
from ..report.console import PLAIN, Style
from ..report.table import render_table
from ..report.view import judged_blind_warnings
from ..schema import Results

if TYPE_CHECKING:
    from ..core.gate import Comparison


@dataclass(frozen=True)
class Done:
    """What every command ends with: the process's exit code."""

    exit_code: int


@dataclass(frozen=True)
class Output:
    """Where a command's results file goes and how its table is printed."""

    json: str | None = None  # the results file ('-' for stdout)
    detailed: bool = False  # adk eval's per-turn details
    quiet: bool = False  # no table
    style: Style = PLAIN


def print_warnings(warnings: Iterable[Problem | str]) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: reference counting frees acyclic records, and
    the collector's passes over tens of thousands of live ones cost ~10% of `score`."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def output_results(results: Results, output: Output, warnings: Iterable[Problem] = ()) -> None:
    """The results file (it keeps the load warnings, already printed when found, and those
    about the scores), then the table unless the results went to stdout."""
    save_results(results, output, warnings)
    print_table(results, output)


def save_results(results: Results, output: Output, warnings: Iterable[Problem] = ()) -> None:
    about_scores = judged_blind_warnings(results)
    print_warnings(about_scores)
    if output.json:
        write_results(results.model_copy(update={"warnings": [*(str(w) for w in warnings), *about_scores]}), output.json)


def print_table(results: Results, output: Output, comparison: Comparison | None = None) -> None:
    """The table, each case tagged with its outcome against the baseline when there is one;
    not with `--quiet`, nor when stdout carries the results file."""
    if output.json == "-" or output.quiet:
        return
    outcomes = {c.key: c.outcome for c in comparison.cases} if comparison and comparison.has_baseline else None
    print(render_table(results, detailed=output.detailed, style=output.style, outcomes=outcomes))


def files_in(paths: Iterable[str], patterns: Iterable[str]) -> list[Path]:
    """Files named, and the files under folders named that match a pattern, sorted per folder."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(_files_under(path, tuple(patterns)))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{raw}: {regular_or_kind(path) or 'no such file or folder'}")
    return files


def _files_under(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    """Regular files whose names match, in every folder below (symlinked folders not entered).
    A folder that vanishes or cannot be listed (/proc, a race) is passed by; one the user may
    not read is said, so a check does not pass by its files in silence."""
    found = []

    def unreadable(error: OSError) -> None:
        if error.errno in (errno.EACCES, errno.EPERM):
            print_warnings([f"{printable(error.filename or folder)}: cannot list it (permission denied); its files are not checked"])

    for here, _, names in os.walk(folder, onerror=unreadable):
        found += [Path(here, n) for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns) and Path(here, n).is_file()]
    return sorted(found)
