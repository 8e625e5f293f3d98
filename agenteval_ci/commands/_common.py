"""Small helpers the commands share."""

from __future__ import annotations

import argparse
import errno
import fnmatch
import gc
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..discovery import default_results, find_project_file, project_root
from ..errors import Problem, UsageError
from ..readers import printable, regular_or_kind
from ..report.console import Style
from ..report.table import render_table
from ..report.view import judged_blind_warnings
from ..results_file import write_results
from ..schema import Results
from ..schema.project import DEFAULT_BASELINE, DEFAULT_PROJECT_FILE
from ..schema.settings import GateSettings

if TYPE_CHECKING:
    from ..gate import Comparison


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


def output_results(results: Results, args: argparse.Namespace, warnings: Iterable[Problem] = ()) -> None:
    """`--json OUT` (the file keeps the load warnings, already printed when found, and those
    about the scores), then the table unless the results went to stdout."""
    save_results(results, args, warnings)
    print_table(results, args)


def save_results(results: Results, args: argparse.Namespace, warnings: Iterable[Problem] = ()) -> None:
    about_scores = judged_blind_warnings(results)
    print_warnings(about_scores)
    if args.json:
        write_results(results.model_copy(update={"warnings": [*(str(w) for w in warnings), *about_scores]}), args.json)


def print_table(results: Results, args: argparse.Namespace, comparison: Comparison | None = None) -> None:
    """The table, each case tagged with its outcome against the baseline when there is one;
    not with `--quiet`, nor when stdout carries the results file."""
    if args.json == "-" or getattr(args, "quiet", False):
        return
    outcomes = {c.key: c.outcome for c in comparison.cases} if comparison and comparison.has_baseline else None
    print(render_table(results, detailed=args.print_detailed_results, style=Style.of(sys.stdout), outcomes=outcomes))


def add_detailed_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--print_detailed_results", "--print-detailed-results", "--detailed", dest="print_detailed_results", action="store_true",
        help="as adk eval: per run and turn, the prompt, expected vs actual response and tool calls, and each metric's score",
    )


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", metavar="YAML",
        help=f"read the baseline path and gate settings from this project file (default: the nearest {DEFAULT_PROJECT_FILE} here or above)",
    )


class ProjectSettings(NamedTuple):
    baseline: Path  # relative to the yaml's folder
    gate: GateSettings
    baseline_given: bool  # agenteval.yaml names it: a missing file is an error, not a first run


def project_settings(config: str | None) -> ProjectSettings:
    """Baseline path and gate settings of the project file (given, or the nearest above the
    working folder), or the defaults under the project root: one baseline per project, from
    whichever subfolder a command runs."""
    path = config or find_project_file()
    if path is None:
        return ProjectSettings(project_root() / DEFAULT_BASELINE, GateSettings(), False)
    from ..project import read_project_config  # yaml and the suite loader: not every command needs them

    project = read_project_config(path)
    return ProjectSettings(Path(path).parent / project.baseline, project.gate, project.baseline_named)


def results_path(args: argparse.Namespace) -> str:
    """RESULTS as given, else the file `agenteval run` writes by default."""
    if args.results:
        return args.results
    path = default_results(args.config)
    if not path.is_file():
        raise UsageError(f"no results file at {path.as_posix()}: run `agenteval run` first, or name a results file")
    return str(path)


def files_in(paths: list[str], patterns: Iterable[str]) -> list[Path]:
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
