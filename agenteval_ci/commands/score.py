"""`agenteval score EVALSET --actual ACTUAL [...]`: score recorded agent outputs, run no agent."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..actuals import RunsByCase, load_actuals
from ..errors import EXIT_FAILED, EXIT_PASSED, InputError, Problem
from ..loader import ConfiguredMetric, config_rule_problems, find_eval_config, load_eval_config, load_eval_set
from ..results_file import new_results
from ..schema import EvalCase, RunRecord, RunStats
from ..schema.settings import JudgeSettings
from ..scoring import CaseToScore, score_all
from ._common import add_detailed_option, collector_paused, output_results, print_warnings


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("evalset", help="the eval set file (EvalSet JSON or legacy .test.json)")
    parser.add_argument(
        "--actual", action="append", required=True, metavar="ACTUAL",
        help="recorded outputs: an EvalSet-shaped file, an ADK *.evalset_result.json, a results file or an OTLP/JSON "
             "trace export (each case's session: its session_input.session_id, else its eval_id); repeat for more runs",
    )
    parser.add_argument("--eval-config", help="criteria file (default: test_config.json beside the eval set, else ADK's defaults)")
    parser.add_argument("--json", metavar="OUT", help="write the results file here ('-' for stdout)")
    parser.add_argument("--suite", default="default", help="suite name recorded in the results")
    parser.add_argument("--judge-cache-dir", help="where judge replies are cached (default: .agenteval/cache)")
    parser.add_argument("--no-judge-cache", action="store_true", help="neither read nor write the judge cache")
    add_detailed_option(parser)


def collect_runs(cases: list[EvalCase], actual_files: list[str]) -> dict[str, list[RunRecord]]:
    """Each file is one run (or several, for a results file); every case must be in every file."""
    case_ids = [c.eval_id for c in cases]
    runs: dict[str, list[RunRecord]] = {eval_id: [] for eval_id in case_ids}
    problems = []
    for path in actual_files:
        recorded: RunsByCase = load_actuals(path, cases)
        name = Path(path).as_posix()
        unknown = sorted(set(recorded) - set(runs))
        missing = [eval_id for eval_id in case_ids if eval_id not in recorded]
        if unknown:
            problems.append(Problem(name, "$", f"eval_id(s) not in the eval set: {', '.join(unknown)}"))
        if missing:
            problems.append(Problem(name, "$", f"no recorded output for eval_id(s): {', '.join(missing)}"))
        for eval_id in case_ids:
            for record in recorded.get(eval_id, []):
                index = len(runs[eval_id])
                runs[eval_id].append(record if record.index == index else record.model_copy(update={"index": index}))
    if problems:
        raise InputError(problems)
    return runs


def judge_settings(args: argparse.Namespace) -> JudgeSettings:
    settings = JudgeSettings(cache=not args.no_judge_cache)
    return settings.model_copy(update={"cache_dir": args.judge_cache_dir}) if args.judge_cache_dir else settings


def _judge_for(metrics: list[ConfiguredMetric], args: argparse.Namespace) -> Any:
    """A judge when a configured metric asks one; the judge (and asyncio) load only then."""
    if not any(m.spec.judged for m in metrics):
        return None
    from ..judge import make_judge

    return make_judge(judge_settings(args))


def run(args: argparse.Namespace) -> int:
    with collector_paused():  # nothing here runs agent code; our records hold no cycles
        return score(args)


def score(args: argparse.Namespace) -> int:
    loaded = load_eval_set(args.evalset)
    config = load_eval_config(args.eval_config or find_eval_config(args.evalset))
    print_warnings([*loaded.warnings, *config.warnings])
    cases = loaded.eval_set.eval_cases
    rule_problems = config_rule_problems(config, cases)
    if rule_problems:
        raise InputError(rule_problems)
    runs = collect_runs(cases, args.actual)
    items = [
        CaseToScore(case, runs[case.eval_id], config.metrics, loaded.eval_set.eval_set_id, loaded.path, args.suite)
        for case in cases
    ]
    judge = _judge_for(config.metrics, args)
    scored = score_all(items, judge)
    stats = RunStats()
    if judge is not None:
        from ..judge import with_judge_stats

        stats = with_judge_stats(stats, judge.stats())
    results = new_results(scored, num_runs=max(len(r) for r in runs.values()) if runs else 0, stats=stats)
    output_results(results, args, [*loaded.warnings, *config.warnings])
    return EXIT_PASSED if results.passed else EXIT_FAILED
