"""`agenteval report RESULTS --format md|summary|html|junit|json [-o FILE]`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.baseline import load_baseline
from ..core.gate import compare
from ..core.settings import resolve_gate
from ..errors import EXIT_PASSED
from ..files.project import project_settings
from ..files.results import read_results
from ..files.writing import write_atomic
from ..report import comparison_json, render_comment, render_html, render_junit, render_summary
from ..schema.settings import GateSettings
from ._common import Done

FORMATS = ("md", "summary", "html", "junit", "json")


@dataclass(frozen=True)
class ReportSettings:
    results: str
    format: str  # one of FORMATS
    output: str | None = None  # default: stdout
    config: str | None = None
    baseline: str | None = None
    gate: GateSettings = field(default_factory=GateSettings.model_construct)  # overrides: only the settings given


def report(settings: ReportSettings) -> Done:
    results = read_results(settings.results)
    project = project_settings(settings.config)
    target = project.baseline_target(settings.baseline)
    gate = resolve_gate(project.gate, settings.gate)
    comparison = compare(results, load_baseline(target.path, required=target.required), gate)
    shown = target.path.as_posix()
    renderers: dict[str, Callable[[], str]] = {
        "md": lambda: render_comment(comparison, results, baseline_path=shown),
        "summary": lambda: render_summary(comparison, results, baseline_path=shown),
        "html": lambda: render_html(comparison, results),
        "junit": lambda: render_junit(results, comparison),
        "json": lambda: comparison_json(comparison),
    }
    text = renderers[settings.format]()
    if settings.output:
        write_atomic(settings.output, text)
    else:
        sys.stdout.write(text)
    return Done(EXIT_PASSED)
