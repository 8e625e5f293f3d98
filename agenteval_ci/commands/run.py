"""`agenteval run`: run the repository's agent on its eval sets, score, write results.

Two forms:
  agenteval run [--config agenteval.yaml] [--suite NAME] [--json OUT] [--shard I/N]
  agenteval run AGENT_DIR EVAL_SET_FILE[:id,id]... [--config_file_path F] [--print_detailed_results]
The second is `adk eval`'s: same arguments, test_config.json discovery and exit rule, but a
gated score not evaluated is no pass (AGENT_DIR may also be a Python callable, `path/file.py:function`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from ..agent_logs import DEFAULT_CONSOLE_LEVEL, LEVELS, LOG_FILE, AgentLogs
from ..agents import CALLABLE_SPEC as _CALLABLE
from ..baseline import load_baseline
from ..discovery import default_results, project_file
from ..errors import EXIT_FAILED, EXIT_PASSED, AgentevalError, InputError, Problem, UsageError
from ..gate import unevidenced
from ..loader import CONFIG_FILE_NAME, load_eval_config, load_eval_set
from ..project import EvalSetToRun, Project, Suite, load_project, select_cases
from ..run import NO_KEY_HINT, run_suites
from ..schema import Results, ShardInfo, Status
from ..schema.baseline import Baseline
from ..schema.project import DEFAULT_PROJECT_FILE, DEFAULT_RESULTS, MAX_NUM_RUNS
from ..schema.settings import GateSettings, JudgeSettings
from ..shards import parse_shard
from ._common import add_detailed_option, output_results, print_table, print_warnings, save_results
from .compare import compare_and_report, print_verdict



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "adk_args", nargs="*", metavar="AGENT_DIR EVAL_SET",
        help="adk eval's form: the agent folder, then eval set files (FILE[:case_id,case_id]) or eval set ids",
    )
    parser.add_argument("--config", help=f"the project file (default: the nearest {DEFAULT_PROJECT_FILE} here or above)")
    parser.add_argument("--suite", action="append", metavar="NAME", help="run only this suite (repeatable)")
    parser.add_argument("--json", metavar="OUT", help=f"write the results file here ('-' for stdout; default: {DEFAULT_RESULTS} in the project's folder)")
    parser.add_argument("--baseline", help="compare with this baseline (default: agenteval.yaml's `baseline`)")
    parser.add_argument("--fail-on", choices=["regression", "threshold", "never"], help="override agenteval.yaml's gate.fail_on")
    parser.add_argument("--no-gate", action="store_true", help="only write the results; compare later (the action compares with the base branch's baseline)")
    parser.add_argument("--new-baseline", action="store_true",
                        help="run for a new baseline, ignoring any baseline there is: every case 5 times, the cases whose runs "
                             "disagree up to max_runs (about 8 runs per case at most), then write the results without gating; "
                             "`agenteval accept` takes them (docs/baseline.md)")
    parser.add_argument("--md", metavar="OUT", help="write the PR comment markdown here ('-' for stdout)")
    parser.add_argument("--shard", metavar="I/N", help="run only the I-th of N deterministic slices of the cases")
    parser.add_argument("--config_file_path", "--config-file-path", dest="config_file_path", help="adk eval's criteria file")
    add_detailed_option(parser)
    parser.add_argument(
        "-k", "--case", action="append", metavar="PATTERN",
        help="run only the cases this substring or glob (*, ?, [..]) matches in eval_id, eval_set_id/eval_id or "
             "suite/eval_set_id/eval_id, ignoring case; repeatable (any matches); matching nothing is an error",
    )
    parser.add_argument("--num-runs", "--num_runs", dest="num_runs", type=int, metavar="N",
                        help=f"run every case N times, overriding each suite's num_runs (1-{MAX_NUM_RUNS})")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the verdict and the cases that changed (no table, no progress); the agent's log at ERROR")
    parser.add_argument("--log-level", type=str.upper, choices=LEVELS, metavar="LEVEL",
                        help=f"the agent's own log on the terminal from this level ({', '.join(LEVELS)}; default "
                             f"{DEFAULT_CONSOLE_LEVEL}, ERROR with --quiet); the agent's more verbose records go to {LOG_FILE.as_posix()}")


def run(args: argparse.Namespace) -> int:
    shard = parse_shard(args.shard) if args.shard else None
    if args.new_baseline and args.num_runs is not None:
        raise UsageError("--new-baseline chooses how often each case runs (docs/baseline.md); drop --num-runs")
    if args.adk_args:
        if args.config or args.suite:
            raise UsageError("give either an agenteval.yaml (--config/--suite) or adk eval's AGENT_DIR EVAL_SET..., not both")
        suite = adk_style_suite(args.adk_args[0], args.adk_args[1:], args.config_file_path)
        print_warnings(suite.warnings)
        results = _run(chosen([suite], args), None, shard, args, Path("."))
        args.json = args.json or str(default_results())
        output_results(results, args, suite.warnings)
        explain_failed_runs(results)
        print(adk_summary(results))
        every_case_passed = bool(results.cases) and all(c.status == Status.PASSED for c in results.cases)
        missing = missing_evidence(results)
        if missing:
            print(f"agenteval: error: {missing}", file=sys.stderr)
        return EXIT_PASSED if every_case_passed and not missing else EXIT_FAILED
    if args.config_file_path:
        raise UsageError("--config_file_path belongs to adk eval's form (AGENT_DIR EVAL_SET...); in agenteval.yaml use a suite's eval_config")
    project = load_project(project_file(args.config), args.suite)
    print_warnings(project.warnings)
    # The judge cache, like every path in agenteval.yaml, is relative to the file's folder.
    judge = project.config.judge
    judge = judge.model_copy(update={"cache_dir": str(Path(project.path).parent / judge.cache_dir)})
    suites = chosen(project.suites, args)
    baseline = None if args.new_baseline else _adaptive_baseline(suites, project, args)
    results = _run(suites, judge, shard, args, Path(project.path).parent, baseline, _gate_settings(project, args))
    args.json = args.json or str(default_results(project.path))  # so `agenteval accept` finds it
    save_results(results, args, project.warnings)
    if args.no_gate or args.new_baseline:
        print_table(results, args)
        explain_failed_runs(results)
        return EXIT_PASSED if results.passed else EXIT_FAILED
    return _gate(results, project, args)


def chosen(suites: list[Suite], args: argparse.Namespace) -> list[Suite]:
    """The suites kept to `-k/--case`, each run `--num-runs` times when given."""
    if args.case:
        suites = select_cases(suites, args.case)
    if args.num_runs is not None:
        if not 1 <= args.num_runs <= MAX_NUM_RUNS:
            raise UsageError(f"--num-runs must be 1-{MAX_NUM_RUNS}, got {args.num_runs}")
        suites = [replace(s, num_runs=args.num_runs, adaptive=None) for s in suites]  # a fixed count overrides auto
    return suites


def _run(
    suites: list[Suite], judge: JudgeSettings | None, shard: ShardInfo | None, args: argparse.Namespace, project_dir: Path,
    baseline: Baseline | None = None, gate: GateSettings | None = None,
) -> Results:
    """Run with the agent's own logging kept below our output; say where its quieter records went."""
    level = args.log_level or ("ERROR" if args.quiet else DEFAULT_CONSOLE_LEVEL)
    logs = AgentLogs(level, project_dir / LOG_FILE)
    results = run_suites(suites, judge, shard, logs=logs, quiet=args.quiet, baseline=baseline, gate=gate, new_baseline=args.new_baseline)
    notice = logs.notice()
    if notice:
        print(notice, file=sys.stderr)
    return results.model_copy(update={"case_filter": args.case}) if args.case else results


def missing_evidence(results: Results) -> str:
    """adk eval's form has no baseline, so a gated score that was not evaluated (the judge
    down, no judge key) is no pass, as on a first run; "" when every gated score is there."""
    missing = [f"{case.key} {why}" for case in results.cases if not case.run_errors for why in unevidenced(case, None)]
    if not missing:
        return ""
    return f"{len(missing)} gated score(s) not evaluated, and no evidence is not a pass (first: {missing[0]})"


def explain_failed_runs(results: Results) -> None:
    """One clear line for the failure that fails every case at once: no model key."""
    if any(NO_KEY_HINT in (run.error or "") for case in results.cases for run in case.runs):
        print(f"agenteval: error: {NO_KEY_HINT}", file=sys.stderr)


def _baseline_path(project: Project, args: argparse.Namespace) -> tuple[Path, bool]:
    """The baseline to compare with, and whether it must exist (it was named)."""
    return (Path(args.baseline) if args.baseline else project.baseline_path), bool(args.baseline) or project.config.baseline_named


def _gate_settings(project: Project, args: argparse.Namespace) -> GateSettings:
    settings = project.config.gate
    return settings.model_copy(update={"fail_on": args.fail_on}) if args.fail_on else settings


def _adaptive_baseline(suites: list[Suite], project: Project, args: argparse.Namespace) -> Baseline | None:
    """`num_runs: auto` decides what to re-run against the baseline, even under --no-gate (the
    verdict is recomputed from the runs against whichever baseline compare is given)."""
    if not any(s.adaptive for s in suites):
        return None
    path, required = _baseline_path(project, args)
    return load_baseline(path, required=required)


def _gate(results: Results, project: Project, args: argparse.Namespace) -> int:
    """Compare with the committed baseline (thresholds only when there is none yet)."""
    baseline, required = _baseline_path(project, args)
    settings = _gate_settings(project, args)
    try:
        comparison = compare_and_report(results, baseline, settings, required=required, md_out=args.md)
    except AgentevalError:  # a bad baseline: still show what ran before the error
        print_table(results, args)
        raise
    print_table(results, args, comparison)
    explain_failed_runs(results)
    if args.json != "-" and args.md != "-":
        print_verdict(comparison, f"baseline {baseline.as_posix()}: ", leading_blank=not args.quiet)
    return comparison.exit_code


# ---------------------------------------------------------------- adk eval's form


def split_selector(arg: str) -> tuple[str, list[str]]:
    """`file.json:a,b` -> ("file.json", ["a", "b"]); ADK ignores anything after a second ':'."""
    target, sep, selector = arg.partition(":")
    if not sep:
        return arg, []
    return target, [s for s in selector.split(":")[0].split(",") if s.strip()]


def _eval_set_file(agent_dir: Path, target: str) -> Path:
    """A path, else an eval set id saved in the agent folder as ADK's eval sets manager saves it."""
    if Path(target).is_file():
        return Path(target)
    by_id = agent_dir / f"{target}.evalset.json"
    if by_id.is_file():
        return by_id
    raise UsageError(f"{target!r} is neither an eval set file nor the id of {by_id.as_posix()}")


def adk_style_suite(agent_dir: str, eval_set_args: list[str], config_file_path: str | None) -> Suite:
    if not Path(agent_dir).is_dir() and not _CALLABLE.match(agent_dir):
        raise UsageError(f"AGENT_DIR {agent_dir!r} is neither a folder nor a `file.py:function` (adk eval's form: agenteval run AGENT_DIR EVAL_SET...)")
    selections: dict[Path, list[str]] = {}
    for arg in eval_set_args:
        target, ids = split_selector(arg)
        selections.setdefault(_eval_set_file(Path(agent_dir), target), []).extend(ids)
    config = load_eval_config(_adk_config_path(config_file_path, list(selections)))
    eval_sets = [_selected(path, ids, config) for path, ids in selections.items()]
    return Suite(name="default", agent=agent_dir, base_dir=Path("."), eval_sets=eval_sets)


def _adk_config_path(given: str | None, files: list[Path]) -> Path | None:
    """ADK's rule: the given file; else test_config.json beside the eval set when there is
    exactly one; else (or when that file is absent) the default criteria."""
    if given:
        return Path(given)
    if len(files) == 1 and (files[0].parent / CONFIG_FILE_NAME).is_file():
        return files[0].parent / CONFIG_FILE_NAME
    return None


def _selected(path: Path, ids: list[str], config) -> EvalSetToRun:
    loaded = load_eval_set(path)
    known = {c.eval_id for c in loaded.eval_set.eval_cases}
    missing = [i for i in ids if i not in known]
    if missing:
        raise InputError(Problem(loaded.path, "$.eval_cases", f"no eval case with eval_id {', '.join(map(repr, missing))}"))
    return EvalSetToRun(loaded, config, tuple(ids) if ids else None)


def adk_summary(results: Results) -> str:
    """adk eval's closing summary: passed and failed (anything not PASSED) per eval set."""
    counts: dict[str, list[int]] = {}
    for case in results.cases:
        tally = counts.setdefault(case.eval_set_id, [0, 0])
        tally[0 if case.status == Status.PASSED else 1] += 1
    lines = ["Eval Run Summary"]
    for eval_set_id, (passed, failed) in counts.items():
        lines.append(f"{eval_set_id}:\n  Tests passed: {passed}\n  Tests failed: {failed}")
    return "\n".join(lines)
