"""`agenteval compare RESULTS [--baseline PATH] [--fail-on ...] [--json OUT] [--md OUT]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pydantic

from ..baseline import load_baseline
from ..errors import UsageError
from ..gate import Comparison, compare
from ..report import comparison_json, render_comment
from ..report.console import PLAIN, Style, render_changes
from ..results_file import read_results, write_atomic
from ..schema import Results
from ..schema.project import DEFAULT_BASELINE, DEFAULT_RESULTS
from ..schema.settings import GateSettings
from ._common import ProjectSettings, add_config_option, project_settings, results_path

_GATE_FLAGS = ("fail_on", "tolerance", "confidence", "seed")


def add_gate_options(parser: argparse.ArgumentParser) -> None:
    """Flags override agenteval.yaml's `gate:` and `baseline:`, which override the defaults."""
    defaults = GateSettings()
    add_config_option(parser)
    parser.add_argument("--baseline", help=f"the baseline file (default: agenteval.yaml's `baseline`, else {DEFAULT_BASELINE})")
    parser.add_argument("--fail-on", choices=["regression", "threshold", "never"],
                        help=f"regression: noise-aware comparison with the baseline; threshold: ADK's absolute rule; never: report only (default {defaults.fail_on})")
    parser.add_argument("--tolerance", type=float, help=f"a metric's mean may drop this much without failing (default {defaults.tolerance})")
    parser.add_argument("--confidence", type=float, help=f"confidence level of the gate's tests (default {defaults.confidence})")
    parser.add_argument("--seed", type=int, help=f"seed of the bootstrap: same inputs, same verdict (default {defaults.seed})")


def baseline_and_gate(args: argparse.Namespace) -> ProjectSettings:
    """The baseline, the gate with the flags applied, and whether the baseline was named (must exist)."""
    baseline, settings, given = project_settings(args.config)
    overrides = {name: getattr(args, name) for name in _GATE_FLAGS if getattr(args, name) is not None}
    try:
        settings = GateSettings.model_validate({**settings.model_dump(), **overrides})
    except pydantic.ValidationError as exc:
        raise UsageError("; ".join(f"--{e['loc'][0].replace('_', '-')}: {e['msg']}" for e in exc.errors())) from None
    return ProjectSettings(Path(args.baseline) if args.baseline else baseline, settings, bool(args.baseline) or given)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="?", help=f"a results file (default: {DEFAULT_RESULTS} in the project's folder)")
    add_gate_options(parser)
    parser.add_argument("--json", metavar="OUT", help="write the comparison as JSON ('-' for stdout)")
    parser.add_argument("--md", metavar="OUT", help="write the PR comment markdown ('-' for stdout)")


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        write_atomic(path, text)


def compare_and_report(results: Results, baseline_path: str | Path, settings: GateSettings, *, required: bool = False,
                       md_out: str | None = None, json_out: str | None = None) -> Comparison:
    """The comparison `agenteval run` and `compare` share; writes the requested reports."""
    baseline = load_baseline(baseline_path, required=required)
    if baseline is None:
        print(first_run_notice(baseline_path), file=sys.stderr)
    comparison = compare(results, baseline, settings)
    if md_out:
        _write(md_out, render_comment(comparison, results, baseline_path=Path(baseline_path).as_posix()))
    if json_out:
        _write(json_out, comparison_json(comparison))
    return comparison


def first_run_notice(baseline_path: str | Path) -> str:
    return (f"agenteval: NOTE: no baseline at {Path(baseline_path).as_posix()}: this is a first run, judged on thresholds only; "
            f"accept these results to create it: `agenteval accept` (it reads {DEFAULT_RESULTS}, which `agenteval run` writes; "
            "or name another results file), or comment `/agenteval accept` on the PR")


def verdict_line(comparison: Comparison, style: Style = PLAIN) -> str:
    counts = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in comparison.counts.items() if n)
    reasons = list(comparison.reasons) or ["no credible regression"]
    why = f" {reasons[0]}" if len(reasons) == 1 else "".join(f"\n  - {r}" for r in reasons)  # one per line when several
    basis = "" if comparison.has_baseline else " (no baseline: thresholds only; create one with `agenteval accept` once these results are right)"
    verdict = style.paint(f"gate {comparison.verdict}", "red" if comparison.verdict == "failed" else "green")
    return f"{verdict}{basis}:{why}\ncases: {counts or 'none'}"


def print_verdict(comparison: Comparison, prefix: str = "", leading_blank: bool = False) -> None:
    """The cases that changed, named with their metrics baseline → PR, then the verdict."""
    style = Style.of(sys.stdout)
    changes = render_changes(comparison, style) if comparison.has_baseline else ""
    text = f"{changes}\n\n{prefix}{verdict_line(comparison, style)}" if changes else f"{prefix}{verdict_line(comparison, style)}"
    print(("\n" if leading_blank else "") + text)


def run(args: argparse.Namespace) -> int:
    results = read_results(results_path(args))
    baseline, settings, required = baseline_and_gate(args)
    comparison = compare_and_report(results, baseline, settings, required=required, md_out=args.md, json_out=args.json)
    if "-" not in (args.md, args.json):
        print_verdict(comparison)
    return comparison.exit_code
