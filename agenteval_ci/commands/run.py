"""`agenteval run`: run the repository's agent on its eval sets, score, write results.

Two forms:
  agenteval run [--config agenteval.yaml] [--suite NAME] [--json OUT] [--shard I/N]
  agenteval run AGENT_DIR EVAL_SET_FILE[:id,id]... [--config_file_path F] [--print_detailed_results]
The second is `adk eval`'s: same arguments, test_config.json discovery and exit rule, but a
gated score not evaluated is no pass (AGENT_DIR may also be a Python callable, `path/file.py:function`).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..agents.adk import override_features
from ..agents.logs import LOG_FILE, AgentLogs
from ..core.digest import CaseDigest, ResultsDigest, ScoredResults
from ..core.gate import Comparison, unevidenced
from ..core.gate_overrides import resolve_gate
from ..errors import EXIT_FAILED, EXIT_PASSED, AgentevalError, InputError, Problem, UsageError
from ..files.agent_spec import CALLABLE_SPEC, AgentSpec
from ..files.baseline_answers import BaselineAnswers
from ..files.baseline_file import load_baseline
from ..files.discovery import adk_eval_config, default_results, project_file
from ..files.eval_configs import LoadedEvalConfig, load_eval_config
from ..files.eval_sets import load_eval_set
from ..files.project import EvalSetToRun, Project, Suite, load_project, select_cases
from ..runner.preflight import rounds_baseline
from ..runner.rejudge import metrics_by_eval_set, with_rejudged
from ..runner.suites import NO_KEY_HINT, run_suites
from ..schema import Results, ShardInfo, Status
from ..schema.baseline import Baseline
from ..schema.project import MAX_NUM_RUNS
from ..schema.settings import GateSettings, JudgeSettings
from ._common import Done, Output, SavedResults, Verbosity, applies_verbosity, print_table, print_warnings, saved_results, with_agent_dotenv
from .compare import compare_and_report, print_verdict


@dataclass(frozen=True)
class RunSettings:
    config: str | None = None  # agenteval.yaml (default: the nearest above)
    suites: tuple[str, ...] = ()  # only these suites
    adk_args: tuple[str, ...] = ()  # adk eval's form: AGENT_DIR, then eval set files or ids
    config_file_path: str | None = None  # adk eval's form: its criteria file
    cases: tuple[str, ...] = ()  # -k: only the cases these patterns match
    num_runs: int | None = None  # every case this often, overriding each suite's num_runs
    shard: ShardInfo | None = None
    baseline: str | None = None  # default: agenteval.yaml's
    gate: GateSettings = field(default_factory=GateSettings.model_construct)  # overrides: only the settings given
    compare: bool = True  # False: only write the results (--no-gate)
    new_baseline: bool = False  # run for a new baseline, ignoring any there is, and write the results ungated
    md: str | None = None  # the PR comment ('-' for stdout)
    output: Output = Output()  # output.json default: the project's .agenteval/results.json
    progress_bar: bool = False
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)  # the judge's endpoint and credentials
    verbosity: Verbosity = Verbosity()  # -q, --log-level: also the agent's log on the terminal
    adk_features: Mapping[str, bool] = field(default_factory=dict)  # adk eval's --enable_features/--disable_features
    eval_storage_uri: str | None = None  # adk eval's --eval_storage_uri: refused, with what to do instead


@dataclass(frozen=True)
class Ran(Done):
    results: ResultsDigest  # the cases' digests; whole cases are in the results file
    comparison: Comparison | None = None


@applies_verbosity
def run(settings: RunSettings) -> Ran:
    if settings.new_baseline and settings.num_runs is not None:
        raise UsageError("--new-baseline chooses how often each case runs (docs/baseline.md); drop --num-runs")
    if settings.eval_storage_uri is not None:
        raise UsageError(eval_storage_refusal(settings.eval_storage_uri))
    if settings.adk_args:
        return _run_adk_form(settings)
    if settings.config_file_path:
        raise UsageError("--config_file_path belongs to adk eval's form (AGENT_DIR EVAL_SET...); in agenteval.yaml use a suite's eval_config")
    project = load_project(project_file(settings.config), list(settings.suites) or None)
    print_warnings(project.warnings)
    # The judge cache, like every path in agenteval.yaml, is relative to the file's folder.
    judge = project.config.judge
    judge = judge.model_copy(update={"cache_dir": str(Path(project.path).parent / judge.cache_dir),
                                     "prices": {**project.config.prices, **judge.prices}})
    suites = chosen(project.suites, settings)
    settings = replace(settings, environ=with_agent_dotenv(suites, settings.environ))
    gate = resolve_gate(project.config.gate, settings.gate)
    baseline = None if settings.new_baseline else _adaptive_baseline(suites, project, settings)
    output = replace(settings.output, json=settings.output.json or str(default_results(project.path)))  # so `agenteval accept` finds it
    with saved_results(output.json) as saved:
        # A new baseline replaces the old one: judging the old one's outputs again would be spent for nothing.
        rejudge = None if settings.new_baseline else (lambda header: _rejudge_changed(header, saved.digests, suites, judge, project, settings))
        target = project.settings.baseline_target(settings.baseline)
        # head_to_head_v1 compares with the baseline's recorded answers; a new baseline has none to compare with.
        answers = None if settings.new_baseline else BaselineAnswers(target.path, required=target.required)
        results = _run(suites, judge, settings, Path(project.path).parent, saved, project.warnings, baseline, gate, finish=rejudge, answers=answers)
        if not settings.compare or settings.new_baseline:
            print_table(results, output, whole=saved.whole())
            explain_failed_runs(results)
            return Ran(EXIT_PASSED if results.passed else EXIT_FAILED, results)
        return _gate(results, saved, project, gate, replace(settings, output=output))


def _run_adk_form(settings: RunSettings) -> Ran:
    if settings.config or settings.suites:
        raise UsageError("give either an agenteval.yaml (--config/--suite) or adk eval's AGENT_DIR EVAL_SET..., not both")
    suite = adk_style_suite(settings.adk_args[0], list(settings.adk_args[1:]), settings.config_file_path)
    print_warnings(suite.warnings)
    settings = replace(settings, environ=with_agent_dotenv([suite], settings.environ))
    output = replace(settings.output, json=settings.output.json or str(default_results()))
    with saved_results(output.json) as saved:
        results = _run(chosen([suite], settings), None, settings, Path("."), saved, suite.warnings)
        print_table(results, output, whole=saved.whole())
    explain_failed_runs(results)
    print(adk_summary(results))
    every_case_passed = bool(results.cases) and all(c.status == Status.PASSED for c in results.cases)
    missing = missing_evidence(results)
    if missing:
        print(f"agenteval: error: {missing}", file=sys.stderr)
    return Ran(EXIT_PASSED if every_case_passed and not missing else EXIT_FAILED, results)


def chosen(suites: list[Suite], settings: RunSettings) -> list[Suite]:
    """The suites kept to `-k/--case`, each run `--num-runs` times when given."""
    if settings.cases:
        suites = select_cases(suites, list(settings.cases))
    if settings.num_runs is not None:
        if not 1 <= settings.num_runs <= MAX_NUM_RUNS:
            raise UsageError(f"--num-runs must be 1-{MAX_NUM_RUNS}, got {settings.num_runs}")
        suites = [replace(s, num_runs=settings.num_runs, adaptive=None) for s in suites]  # a fixed count overrides auto
    return suites


def _run(
    suites: list[Suite], judge: JudgeSettings | None, settings: RunSettings, project_dir: Path, saved: SavedResults,
    load_warnings: list[Problem], baseline: Baseline | None = None, gate: GateSettings | None = None,
    finish: Callable[[Results], Results] | None = None, answers: BaselineAnswers | None = None,
) -> ResultsDigest:
    """Run with the agent's own logging kept below our output; say where its quieter records went.
    Each case goes to the results file as it is scored; what comes back are their digests.
    `finish`: what completes the fields written after the cases, once every case is scored."""
    quiet = settings.output.quiet
    print_warnings(override_features(settings.adk_features))  # before the agents are imported, as adk eval does
    logs = AgentLogs(settings.verbosity.level, project_dir / LOG_FILE)
    header = run_suites(suites, judge, settings.shard, logs=logs, quiet=quiet, baseline=baseline, gate=gate,
                        environ=settings.environ, progress_bar=settings.progress_bar, new_baseline=settings.new_baseline, emit=saved.add,
                        answers=answers)
    notice = logs.notice()
    if notice and settings.verbosity.shows("WARNING"):
        print(notice, file=sys.stderr)
    # A big eval set is read as its cases run: the warnings its cases hold come only now.
    found = list(dict.fromkeys(w for suite in suites for w in suite.warnings))
    print_warnings(w for w in found if w not in load_warnings)
    if settings.cases:
        header = header.model_copy(update={"case_filter": list(settings.cases)})
    if finish is not None:
        header = finish(header)
    return saved.close(header, found)


def eval_storage_refusal(uri: str) -> str:
    """Why adk eval's --eval_storage_uri is refused: adk eval then reads eval sets named by id from
    a Cloud Storage bucket and writes its results there; we read files and write the results file."""
    if not uri.startswith("gs://"):
        return f"--eval_storage_uri {uri!r}: adk eval supports only gs://<bucket> there, and agenteval reads local files"
    return (f"--eval_storage_uri {uri!r}: agenteval does not read eval sets from Google Cloud Storage nor write results there; "
            f"copy the eval sets to local files first (gcloud storage cp -r {uri.rstrip('/')}/... .), name the files, "
            "and keep the results file (--json) as an artifact")


def next_text(results: str, config: str | Path) -> str:
    """After the verdict: where the results went, the report command, and how a regression shows."""
    here = Path(config).resolve().parent == Path.cwd().resolve()
    project = "" if here else f" --config {shlex.quote(Path(config).as_posix())}"
    return ("\nnext:\n"
            f"  results     {results}: every case's runs, turns and judge verdicts\n"
            f"  report      agenteval report {shlex.quote(results)} --format html -o report.html{project}: the PR's report as a page\n"
            f"  details     agenteval run --detailed{project}: each turn, expected and actual, and each judge's reasons\n"
            "  regression  a case scoring worse than the baseline is listed under REGRESSED with its metrics "
            f"baseline → now, and the run exits 1; `agenteval accept{project}` takes an intended change as the new baseline")


def missing_evidence(results: ScoredResults) -> str:
    """adk eval's form has no baseline, so a gated score that was not evaluated (the judge
    down, no judge key) is no pass, as on a first run; "" when every gated score is there."""
    missing = [f"{case.key} {why}" for case in results.cases if not case.run_errors for why in unevidenced(case, None)]
    if not missing:
        return ""
    return f"{len(missing)} gated score(s) not evaluated, and no evidence is not a pass (first: {missing[0]})"


def explain_failed_runs(results: ScoredResults) -> None:
    """One clear line for the failure that fails every case at once: no model key."""
    if any(NO_KEY_HINT in (run.error or "") for case in results.cases for run in case.runs):
        print(f"agenteval: error: {NO_KEY_HINT}", file=sys.stderr)


def _adaptive_baseline(suites: list[Suite], project: Project, settings: RunSettings) -> Baseline | None:
    """`num_runs: auto` decides what to re-run against the baseline, even under --no-gate (the
    verdict is recomputed from the runs against whichever baseline compare is given)."""
    return rounds_baseline(suites, project.settings.baseline_target(settings.baseline))


def _rejudge_changed(header: Results, cases: Sequence[CaseDigest], suites: list[Suite], judge: JudgeSettings, project: Project,
                     settings: RunSettings) -> Results:
    """Where a metric's judge differs from the baseline's, the baseline's recorded outputs judged
    again with this run's judge, into the results (`header`: the fields written after the cases,
    which are their digests here): compare, even a later publish step, then compares like with
    like (docs/judge.md, "A changed judge"). Also under --no-gate."""
    target = project.settings.baseline_target(settings.baseline)
    try:
        baseline = load_baseline(target.path, required=target.required)
    except AgentevalError:  # the gate says what is wrong with it, after the results are saved
        return header
    metrics = metrics_by_eval_set([(s.name, e.loaded.eval_set_id, e.config.metrics) for s in suites for e in s.eval_sets])
    return with_rejudged(header, cases, baseline, target.path, metrics, judge, settings.environ)


def _gate(results: ResultsDigest, saved: SavedResults, project: Project, gate: GateSettings, settings: RunSettings) -> Ran:
    """Compare with the committed baseline (thresholds only when there is none yet)."""
    target = project.settings.baseline_target(settings.baseline)
    output = settings.output
    try:
        comparison = compare_and_report(results, target.path, gate, required=target.required, md_out=settings.md)
    except AgentevalError:  # a bad baseline: still show what ran before the error
        print_table(results, output, whole=saved.whole())
        raise
    print_table(results, output, comparison, whole=saved.whole())
    explain_failed_runs(results)
    if output.json != "-" and settings.md != "-":
        print_verdict(comparison, output.style, f"baseline {target.path.as_posix()}: ", leading_blank=not output.quiet)
        if not output.quiet and output.json:
            print(next_text(output.json, project.path))
    return Ran(comparison.exit_code, results, comparison)


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
    if not Path(agent_dir).is_dir() and not CALLABLE_SPEC.match(agent_dir):
        raise UsageError(f"AGENT_DIR {agent_dir!r} is neither a folder nor a `file.py:function` (adk eval's form: agenteval run AGENT_DIR EVAL_SET...)")
    selections: dict[Path, list[str]] = {}
    for arg in eval_set_args:
        target, ids = split_selector(arg)
        selections.setdefault(_eval_set_file(Path(agent_dir), target), []).extend(ids)
    config = load_eval_config(adk_eval_config(list(selections), config_file_path))
    eval_sets = [_selected(path, ids, config) for path, ids in selections.items()]
    return Suite(name="default", agent=AgentSpec.parse(agent_dir, Path(".")), base_dir=Path("."), eval_sets=eval_sets)


def _selected(path: Path, ids: list[str], config: LoadedEvalConfig) -> EvalSetToRun:
    loaded = load_eval_set(path)
    known = {c.eval_id for c in loaded.eval_set.eval_cases}
    missing = [i for i in ids if i not in known]
    if missing:
        raise InputError(Problem(loaded.path, "$.eval_cases", f"no eval case with eval_id {', '.join(map(repr, missing))}"))
    return EvalSetToRun(loaded, config, tuple(ids) if ids else None)


def adk_summary(results: ScoredResults) -> str:
    """adk eval's closing summary: passed and failed (anything not PASSED) per eval set."""
    counts: dict[str, list[int]] = {}
    for case in results.cases:
        tally = counts.setdefault(case.eval_set_id, [0, 0])
        tally[0 if case.status == Status.PASSED else 1] += 1
    lines = ["Eval Run Summary"]
    for eval_set_id, (passed, failed) in counts.items():
        lines.append(f"{eval_set_id}:\n  Tests passed: {passed}\n  Tests failed: {failed}")
    return "\n".join(lines)
