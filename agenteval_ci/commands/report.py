"""`agenteval report RESULTS [--baseline PATH] --format md|summary|html|junit|json [-o FILE]`."""

from __future__ import annotations

import argparse
import sys

from ..baseline import load_baseline
from ..errors import EXIT_PASSED
from ..gate import compare
from ..report import comparison_json, render_comment, render_html, render_junit, render_summary
from ..results_file import read_results, write_atomic
from .compare import add_gate_options, baseline_and_gate



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", help="a results file")
    parser.add_argument("--format", required=True, choices=["md", "summary", "html", "junit", "json"])
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    add_gate_options(parser)


def run(args: argparse.Namespace) -> int:
    results = read_results(args.results)
    baseline, settings, required = baseline_and_gate(args)
    comparison = compare(results, load_baseline(baseline, required=required), settings)
    shown = baseline.as_posix()
    renderers = {
        "md": lambda: render_comment(comparison, results, baseline_path=shown),
        "summary": lambda: render_summary(comparison, results, baseline_path=shown),
        "html": lambda: render_html(comparison, results),
        "junit": lambda: render_junit(results, comparison),
        "json": lambda: comparison_json(comparison),
    }
    text = renderers[args.format]()
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_PASSED
