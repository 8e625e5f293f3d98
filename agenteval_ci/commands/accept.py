"""`agenteval accept [RESULTS] [--baseline PATH] [--case ID ...] [--metric NAME ...]`."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..baseline import baseline_from_results, load_baseline, refuse_unsound, thin_history_note, write_baseline
from ..errors import EXIT_PASSED
from ..results_file import read_results
from ..schema.project import DEFAULT_BASELINE, DEFAULT_RESULTS
from ._common import add_config_option, project_settings, results_path

def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="?", help=f"a results file written by `agenteval run` or `agenteval score --json` (default: {DEFAULT_RESULTS} in the project's folder)")
    add_config_option(parser)
    parser.add_argument("--baseline", help=f"the baseline file (default: agenteval.yaml's `baseline`, else {DEFAULT_BASELINE})")
    parser.add_argument("--case", action="append", metavar="ID", help="accept only this case (eval_id, eval_set_id/eval_id or suite/eval_set_id/eval_id); repeatable")
    parser.add_argument("--metric", action="append", metavar="NAME", help="accept only this metric; repeatable")
    parser.add_argument("--allow-failed", action="store_true",
                        help="accept results in which agent runs failed or gated metrics were not evaluated (refused by default)")
    parser.add_argument("--commit", help="the commit the results were produced from (default: the one recorded in the results)")


def run(args: argparse.Namespace) -> int:
    results = read_results(results_path(args))
    path = Path(args.baseline) if args.baseline else project_settings(args.config).baseline
    refuse_unsound(results, args.allow_failed, args.case)
    previous = load_baseline(path)  # a corrupt baseline stops here, untouched
    baseline = baseline_from_results(results, previous, args.case, args.metric, commit=args.commit)
    write_baseline(path, baseline)
    what = "all cases" if not (args.case or args.metric) else ", ".join([*(args.case or []), *(args.metric or [])])
    print(f"accepted {what} into {path.as_posix()} ({len(baseline.keys())} case(s) in the baseline)")
    note = thin_history_note(baseline)
    if note:
        print(note)
    return EXIT_PASSED
