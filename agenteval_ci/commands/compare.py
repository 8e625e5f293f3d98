"""`agenteval compare [RESULTS]`: the noise-aware gate against the baseline."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.digest import ScoredResults
from ..core.gate import Comparison, compare
from ..core.gate_overrides import resolve_gate
from ..files.baseline_file import load_baseline
from ..files.discovery import results_to_read
from ..files.project import project_settings
from ..files.results_file import ResultsFile
from ..files.spilled_outcomes import SpilledOutcomes
from ..files.writing import write_pieces
from ..report import comparison_json_parts, render_comment
from ..report.console import PLAIN, Style, render_budgets, render_changes
from ..report.judge_notes import judge_notes
from ..report.view import head_to_head_line
from ..schema import Outcome, Verdict
from ..schema.project import DEFAULT_RESULTS
from ..schema.settings import GateSettings
from ._common import Done, Verbosity, applies_verbosity


@dataclass(frozen=True)
class CompareSettings:
    results: str | None = None  # default: the file `run` writes
    config: str | None = None  # agenteval.yaml (default: the nearest above)
    baseline: str | None = None  # default: agenteval.yaml's
    gate: GateSettings = field(default_factory=GateSettings.model_construct)  # overrides: only the settings given
    json: str | None = None  # the comparison ('-' for stdout)
    md: str | None = None  # the PR comment ('-' for stdout)
    style: Style = PLAIN
    verbosity: Verbosity = Verbosity()  # -q, --log-level


@dataclass(frozen=True)
class Compared(Done):
    comparison: Comparison


def _write(path: str, parts: Iterable[str]) -> None:
    if path == "-":
        sys.stdout.writelines(parts)
    else:
        write_pieces(path, parts)


def compare_and_report(results: ScoredResults, baseline_path: str | Path, settings: GateSettings, *, required: bool = False,
                       md_out: str | None = None, json_out: str | None = None) -> Comparison:
    """The comparison `agenteval run` and `compare` share; writes the requested reports."""
    baseline = load_baseline(baseline_path, required=required)
    if baseline is None:
        print(first_run_notice(baseline_path), file=sys.stderr)
    comparison = compare(results, baseline, settings, SpilledOutcomes())
    if md_out:
        _write(md_out, [render_comment(comparison, results, baseline_path=Path(baseline_path).as_posix())])
    if json_out:
        _write(json_out, comparison_json_parts(comparison))
    return comparison


def first_run_notice(baseline_path: str | Path) -> str:
    return (f"agenteval: NOTE: no baseline at {Path(baseline_path).as_posix()}: this is a first run, judged on thresholds only; "
            f"accept these results to create it: `agenteval accept` (it reads {DEFAULT_RESULTS}, which `agenteval run` writes; "
            "or name another results file), or comment `/agenteval accept` on the PR")


def verdict_line(comparison: Comparison, style: Style = PLAIN) -> str:
    counts = ", ".join(f"{n} {Outcome(o).words}" for o, n in comparison.counts.items() if n)
    reasons = list(comparison.reasons) or ["no credible regression"]
    why = f" {reasons[0]}" if len(reasons) == 1 else "".join(f"\n  - {r}" for r in reasons)  # one per line when several
    basis = "" if comparison.has_baseline else " (no baseline: thresholds only; create one with `agenteval accept` once these results are right)"
    verdict = style.paint(f"gate {comparison.verdict}", "red" if comparison.verdict == Verdict.FAILED else "green")
    return f"{verdict}{basis}:{why}\ncases: {counts or 'none'}"


def print_verdict(comparison: Comparison, style: Style, prefix: str = "", leading_blank: bool = False) -> None:
    """The cases that changed, named with their metrics baseline → PR, then the verdict (and
    the judges that changed since the baseline)."""
    changes = "\n\n".join(filter(None, [render_changes(comparison, style), render_budgets(comparison, style)])) if comparison.has_baseline else ""
    text = f"{changes}\n\n{prefix}{verdict_line(comparison, style)}" if changes else f"{prefix}{verdict_line(comparison, style)}"
    for record in comparison.head_to_head:  # shown whatever its verdict: wins, ties and losses are news either way
        text += "\nhead to head: " + head_to_head_line(record).replace("`", "")
    for advisory in comparison.advisories:  # gate.metrics' warn and report metrics: never the verdict's
        lines = advisory.reasons or tuple(f"{m.name}: {m.verdict}" for m in advisory.metrics)
        text += "\n" + style.paint(f"{advisory.severity} only (does not fail the gate):", "yellow") + "".join(f"\n  - {line}" for line in lines)
    notes = [note.replace("`", "").replace("**", "") for note in judge_notes(comparison.judge_changes)]
    if notes:
        text += "\n" + style.paint("judge changed since the baseline:", "yellow") + "".join(f"\n  - {note}" for note in notes)
    print(("\n" if leading_blank else "") + text)


@applies_verbosity
def compare_results(settings: CompareSettings) -> Compared:
    results = ResultsFile(results_to_read(settings.results, settings.config)).digest()
    project = project_settings(settings.config)
    target = project.baseline_target(settings.baseline)
    gate = resolve_gate(project.gate, settings.gate)
    comparison = compare_and_report(results, target.path, gate, required=target.required, md_out=settings.md, json_out=settings.json)
    if "-" not in (settings.md, settings.json):
        print_verdict(comparison, settings.style)
    return Compared(comparison.exit_code, comparison)
