"""`agenteval accept RESULTS [--baseline PATH] [--case ID ...] [--metric NAME ...]`."""

from __future__ import annotations

import argparse

from ..baseline import DEFAULT_BASELINE_PATH, baseline_from_results, load_baseline, write_baseline
from ..errors import EXIT_PASSED
from ..results_file import read_results

HELP = "write the baseline from a results file, whole or only the named cases/metrics"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", help="a results file written by `agenteval run` or `agenteval score --json`")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE_PATH, help=f"the baseline file (default {DEFAULT_BASELINE_PATH})")
    parser.add_argument("--case", action="append", metavar="ID", help="accept only this case (eval_id, eval_set_id/eval_id or suite/eval_set_id/eval_id); repeatable")
    parser.add_argument("--metric", action="append", metavar="NAME", help="accept only this metric; repeatable")
    parser.add_argument("--commit", help="the commit the results were produced from (default: the one recorded in the results)")


def run(args: argparse.Namespace) -> int:
    results = read_results(args.results)
    previous = load_baseline(args.baseline)  # a corrupt baseline stops here, untouched
    baseline = baseline_from_results(results, previous, args.case, args.metric, commit=args.commit)
    write_baseline(args.baseline, baseline)
    what = "all cases" if not (args.case or args.metric) else ", ".join([*(args.case or []), *(args.metric or [])])
    print(f"accepted {what} into {args.baseline} ({len(baseline.keys())} case(s) in the baseline)")
    return EXIT_PASSED
