"""Small helpers the commands share."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..errors import Problem
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
        help=f"read the baseline path and gate settings from this project file (default: ./{DEFAULT_PROJECT_FILE} when present)",
    )


class ProjectSettings(NamedTuple):
    baseline: Path  # relative to the yaml's folder
    gate: GateSettings
    baseline_given: bool  # agenteval.yaml names it: a missing file is an error, not a first run


def project_settings(config: str | None) -> ProjectSettings:
    """Baseline path and gate settings of the project file, or the defaults."""
    path = config or (DEFAULT_PROJECT_FILE if Path(DEFAULT_PROJECT_FILE).is_file() else None)
    if path is None:
        return ProjectSettings(Path(DEFAULT_BASELINE), GateSettings(), False)
    from ..project import read_project_config  # yaml and the suite loader: not every command needs them

    project = read_project_config(path)
    return ProjectSettings(Path(path).parent / project.baseline, project.gate, project.baseline_named)
