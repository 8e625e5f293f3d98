"""`agenteval report RESULTS --format md|summary|html|junit|json [-o FILE]`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.gate import compare
from ..core.gate_overrides import resolve_gate
from ..errors import EXIT_PASSED
from ..files.baseline_file import load_baseline
from ..files.project import project_settings
from ..files.results_file import ResultsFile
from ..files.spilled_outcomes import SpilledOutcomes
from ..files.writing import write_pieces
from ..report import comparison_json_parts, html_parts, junit_parts, render_comment, render_summary
from ..schema.settings import GateSettings
from ._common import Done, Verbosity, applies_verbosity

FORMATS = ("md", "summary", "html", "junit", "json")


@dataclass(frozen=True)
class ReportSettings:
    results: str
    format: str  # one of FORMATS
    output: str | None = None  # default: stdout
    config: str | None = None
    baseline: str | None = None
    gate: GateSettings = field(default_factory=GateSettings.model_construct)  # overrides: only the settings given
    verbosity: Verbosity = Verbosity()  # -q, --log-level


@applies_verbosity
def report(settings: ReportSettings) -> Done:
    results = ResultsFile(settings.results).digest()
    project = project_settings(settings.config)
    target = project.baseline_target(settings.baseline)
    gate = resolve_gate(project.gate, settings.gate)
    comparison = compare(results, load_baseline(target.path, required=target.required), gate, SpilledOutcomes())
    shown = target.path.as_posix()
    renderers: dict[str, Callable[[], Iterable[str]]] = {
        "md": lambda: [render_comment(comparison, results, baseline_path=shown)],
        "summary": lambda: [render_summary(comparison, results, baseline_path=shown)],
        "html": lambda: html_parts(comparison, results),  # every case: written as made, never held
        "junit": lambda: junit_parts(results, comparison),
        "json": lambda: comparison_json_parts(comparison),
    }
    write_text(settings.output, renderers[settings.format]())
    return Done(EXIT_PASSED)


def write_text(path: str | None, parts: Iterable[str]) -> None:
    """Text made in pieces, to a file (atomically) or to stdout."""
    if not path:
        for part in parts:
            sys.stdout.write(part)
        return
    write_pieces(path, parts)

