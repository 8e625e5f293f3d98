"""`agenteval score EVALSET --actual ACTUAL [...]`: score recorded agent outputs, run no agent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..agents.recorded import RunsByCase, load_actuals
from ..core.metrics import ConfiguredMetric
from ..core.prices import priced
from ..core.results import with_judge_usage
from ..core.scoring import CaseToScore, score_all
from ..errors import EXIT_FAILED, EXIT_PASSED, InputError, Problem
from ..files.discovery import adk_eval_config
from ..files.eval_configs import config_rule_problems, load_eval_config
from ..files.eval_sets import load_eval_set
from ..files.results import new_results
from ..schema import EvalCase, Results, RunRecord, RunStats
from ..schema.settings import JudgeSettings
from ._common import Done, Output, Verbosity, applies_verbosity, collector_paused, output_results, print_warnings

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
    results: Results


def collect_runs(cases: list[EvalCase], actual_files: Iterable[str]) -> dict[str, list[RunRecord]]:
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
    loaded = load_eval_set(settings.eval_set)
    config = load_eval_config(adk_eval_config([settings.eval_set], settings.eval_config))
    print_warnings([*loaded.warnings, *config.warnings])
    cases = loaded.eval_set.eval_cases
    rule_problems = config_rule_problems(config, cases)
    if rule_problems:
        raise InputError(rule_problems)
    runs = {eval_id: [priced(run, settings.judge.prices) for run in records] for eval_id, records in collect_runs(cases, settings.actual).items()}
    items = [
        CaseToScore(case, runs[case.eval_id], config.metrics, loaded.eval_set.eval_set_id, loaded.path, settings.suite)
        for case in cases
    ]
    judge = _judge_for(config.metrics, settings)
    scored = score_all(items, judge)
    stats = RunStats()
    if judge is not None:
        stats = with_judge_usage(stats, judge.usage())
    results = new_results(scored, num_runs=max(len(r) for r in runs.values()) if runs else 0, stats=stats)
    output_results(results, settings.output, [*loaded.warnings, *config.warnings])
    return Scored(EXIT_PASSED if results.passed else EXIT_FAILED, results)
