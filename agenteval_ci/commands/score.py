"""`agenteval score EVALSET --actual ACTUAL [...]`: score recorded agent outputs, run no agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..agents.recorded import KeyMatch, RecordedRuns, open_actuals
from ..core.digest import ScoredResults
from ..core.metrics import ConfiguredMetric
from ..core.prices import priced
from ..core.results_record import with_judge_usage
from ..core.scoring import CaseToScore, score_each
from ..errors import EXIT_FAILED, EXIT_PASSED, InputError, Problem
from ..files.discovery import adk_eval_config
from ..files.eval_configs import config_rule_problems, load_eval_config, no_gated_metric
from ..files.eval_sets import no_case, open_eval_set
from ..files.results_file import new_results
from ..report.table import Table
from ..schema import CaseResult, RunRecord, RunStats, ToolArgsCriterion
from ..schema.settings import JudgeSettings
from ._common import Done, Output, Verbosity, applies_verbosity, collector_paused, note, print_warnings, saved_results

if TYPE_CHECKING:
    from ..judge import Judge


@dataclass(frozen=True)
class ScoreSettings:
    eval_set: str  # the eval set file (EvalSet JSON or legacy .test.json)
    actual: tuple[str, ...]  # recorded outputs, one run per file (or several, from a results file)
    eval_config: str | None = None  # default: test_config.json beside the eval set, else ADK's defaults
    suite: str = "default"  # the suite name recorded in the results
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    output: Output = Output()
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)  # the judge's endpoint and credentials
    verbosity: Verbosity = Verbosity()  # -q, --log-level


@dataclass(frozen=True)
class Scored(Done):
    results: ScoredResults  # the cases' digests; whole cases are in the results file


def _judge_for(metrics: list[ConfiguredMetric], settings: ScoreSettings) -> Judge | None:
    """A judge when a configured metric asks one; the judge (and asyncio) load only then."""
    if not any(m.spec.judged for m in metrics):
        return None
    from ..judge import make_judge

    return make_judge(settings.judge, settings.environ)


@applies_verbosity
def score(settings: ScoreSettings) -> Scored:
    with collector_paused():  # nothing here runs agent code; our records hold no cycles
        return _score(settings)


def _score(settings: ScoreSettings) -> Scored:
    """Case by case: each eval case is read, matched with its recorded runs, scored, written to
    the results file and printed, then let go; memory holds the cases' digests, not the cases."""
    eval_set = open_eval_set(settings.eval_set)
    config = load_eval_config(adk_eval_config([settings.eval_set], settings.eval_config))
    print_warnings([*eval_set.warnings, *config.warnings])
    shown = len(eval_set.warnings)  # a streamed eval set finds its cases' warnings as it reads them
    if refused := no_gated_metric(config):  # as `run` does: a score nothing could fail is no pass
        raise InputError(refused)
    if any(isinstance(m.criterion, ToolArgsCriterion) and m.criterion.tool_args for m in config.metrics):
        rule_problems = config_rule_problems(config, eval_set.cases())  # a pass of its own, before any scoring
        if rule_problems:
            raise InputError(rule_problems)
    match = KeyMatch(None if eval_set.made_up_id else eval_set.eval_set_id, settings.suite)
    actuals = [open_actuals(path, match, lambda: list(eval_set.cases())) for path in settings.actual]
    judge = _judge_for(config.metrics, settings)
    recorded = Recorded(actuals)
    table = Table(settings.output.style, settings.output.detailed) if _shows_table(settings.output) else None
    items = (
        CaseToScore(case, [priced(run, settings.judge.prices) for run in runs], config.metrics, eval_set.eval_set_id, eval_set.path, settings.suite)
        for case in eval_set.cases()
        if (runs := recorded.runs(case.eval_id)) is not None
    )
    with saved_results(settings.output.json) as saved:

        def emit(case: CaseResult) -> None:
            saved.add(case)
            if table is not None:  # printed as it is scored: the whole cases are at hand now
                print("\n".join(table.lines(case)))

        score_each(items, judge, emit)
        recorded.check()
        if not saved.digests:  # every case asked for was found, so the eval set holds none
            raise InputError(no_case(eval_set.path))
        print_warnings(eval_set.warnings[shown:])
        stats = with_judge_usage(RunStats(), judge.usage()) if judge is not None else RunStats()
        header = new_results([], num_runs=recorded.most_runs, stats=stats, suites=[settings.suite])
        results = saved.close(header, [*eval_set.warnings, *config.warnings])
    if table is not None:
        print("\n".join(table.footer(results)))
    return Scored(EXIT_PASSED if results.passed else EXIT_FAILED, results)


def _shows_table(output: Output) -> bool:
    return output.json != "-" and not output.quiet


class Recorded:
    """The runs of every ACTUAL file, asked for a case at a time: each file is one run (or
    several, for a results file); every case must be in every file, which `check` says once the
    cases have all been asked for (nothing is written then: the results file is never renamed).
    A file's cases of other eval sets are passed by, with a note."""

    def __init__(self, files: list[RecordedRuns]) -> None:
        self.files = files
        self.missing: dict[str, list[str]] = {f.name: [] for f in files}
        self.most_runs = 0

    def runs(self, eval_id: str) -> list[RunRecord] | None:
        runs: list[RunRecord] = []
        for file in self.files:
            recorded = file.runs(eval_id)
            if recorded is None:
                self.missing[file.name].append(eval_id)
                continue
            for record in recorded:
                index = len(runs)
                runs.append(record if record.index == index else record.model_copy(update={"index": index}))
        if any(self.missing.values()):
            return None  # nothing more is scored: the error comes at the end
        self.most_runs = max(self.most_runs, len(runs))
        return runs

    def check(self) -> None:
        problems = []
        for file in self.files:
            unknown = file.unknown()
            others = file.other_eval_sets()
            held = ", ".join(f"{eval_set_id!r} ({count} case(s))" for eval_set_id, count in sorted(others.items()))
            if others:
                note(f"{file.name}: cases of other eval sets passed by: {held}")
            if unknown:
                problems.append(Problem(file.name, "$", f"eval_id(s) not in the eval set: {', '.join(unknown)}"))
            if self.missing[file.name]:
                beside = f" (it holds other eval sets' cases: {held})" if others else ""
                problems.append(Problem(file.name, "$", f"no recorded output for eval_id(s): {', '.join(self.missing[file.name])}{beside}"))
        if problems:
            raise InputError(problems)
