"""Stored agent outputs for the commands that judge again without running the agent (rejudge,
judge-agreement): a results file, or a baseline with its recorded outputs beside it."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.baseline import referenced_outputs
from ..core.recorded_outputs import as_case_result
from ..errors import InputError, Problem
from ..files.baseline_file import parse_baseline
from ..files.baseline_outputs import outputs_path, read_outputs
from ..files.project import Project, load_project
from ..files.readers import read_json
from ..files.results_file import ResultsFile, is_results_file, results_from_data
from ..runner.rejudge import MetricsOf, metrics_by_eval_set
from ..schema import CaseResult
from ..schema.settings import JudgeSettings
from ._common import with_agent_dotenv


@dataclass(frozen=True)
class Stored:
    cases: Iterable[CaseResult]  # read once, in order


def load_stored(path: str) -> Stored:
    """The cases of a results file, or of a baseline (its recorded outputs: the runs and the eval
    case each baseline case was accepted from). A results file in version 2's layout (plain or
    gzip) is read a case at a time as the cases are asked for (each line's errors name its JSON
    path when it is reached); the other forms are read whole."""
    name = Path(path).as_posix()
    if is_results_file(path):  # version 2's layout (a baseline never begins so)
        file = ResultsFile(path)
        return Stored(file.case_at(line, i) for i, line in file.case_lines())
    data = read_json(path)
    if isinstance(data, dict) and "provenance" in data and "cases" not in data:
        baseline = parse_baseline(name, data)
        digests = referenced_outputs(baseline)
        sidecar = outputs_path(path)
        records = read_outputs(sidecar, digests)
        if not records:
            raise InputError(Problem(sidecar.as_posix(), "$", f"no recorded outputs of {name}'s cases: the baseline was accepted "
                                     "before agenteval kept them (accept again), or the file is missing"))
        keys = sorted({(c_suite, e, c) for c_suite, sets in baseline.suites.items() for e, cases in sets.items() for c in cases})
        recorded, missing = [], []
        for key in keys:
            case = baseline.case(*key)
            if case is not None and case.outputs in records:
                recorded.append(as_case_result(records[case.outputs]))
            else:
                missing.append(key)
        if missing:
            print(f"warning: {len(missing)} baseline case(s) have no recorded outputs and are left out (first: {'/'.join(missing[0])})",
                  file=sys.stderr)
        return Stored(recorded)
    return Stored(results_from_data(name, data).cases)


@dataclass(frozen=True)
class Criteria:
    """The current criteria and judge settings, from agenteval.yaml."""

    metrics_of: MetricsOf
    judge: JudgeSettings
    project: Project
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)


def current_criteria(config: str | Path, environ: Mapping[str, str], judge_model: str | None = None) -> Criteria:
    """Each suite's criteria as `run` resolves them (with `judge_model` over every judged one)."""
    from ..files.project import with_judge_model

    project = load_project(config)
    environ = with_agent_dotenv(project.suites, environ)  # the judge's key may sit in the agent's .env, as for run
    suites = [with_judge_model(s, judge_model) for s in project.suites]
    judge = project.config.judge
    judge = judge.model_copy(update={"cache_dir": str(Path(project.path).parent / judge.cache_dir)})
    metrics = metrics_by_eval_set([(s.name, e.loaded.eval_set_id, e.config.metrics) for s in suites for e in s.eval_sets])
    return Criteria(metrics, judge, project, environ)
