"""`agenteval rejudge STORED`: score stored agent outputs again with the current criteria and
judge, running no agent. STORED is a results file or the baseline (its recorded outputs). This
is how a criteria or judge change is tried: the table shows the new scores, the comparison shows
them against the baseline, and `agenteval accept` of the new results makes them the baseline."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.gate_overrides import resolve_gate
from ..core.results_record import with_judge_usage
from ..errors import EXIT_FAILED, EXIT_PASSED
from ..files.baseline_file import load_baseline
from ..files.discovery import project_file
from ..files.results_file import new_results
from ..judge import make_judge
from ..runner.rejudge import rescore_each, with_rejudged
from ..schema import CaseResult, RunStats
from ..schema.settings import GateSettings
from ._common import Output, SavedResults, Verbosity, applies_verbosity, print_table, print_warnings, saved_results
from ._stored import current_criteria, load_stored
from .compare import compare_and_report, print_verdict
from .run import Ran

REJUDGED = ".agenteval/rejudged.json"  # beside agenteval.yaml; `run`'s own results stay as they are


@dataclass(frozen=True)
class RejudgeSettings:
    stored: str  # a results file or a baseline
    config: str | None = None  # agenteval.yaml (default: the nearest above)
    judge_model: str | None = None  # every judged metric asks this model instead
    baseline: str | None = None  # compared with (default: agenteval.yaml's)
    gate: GateSettings = field(default_factory=GateSettings.model_construct)
    compare: bool = True
    md: str | None = None
    output: Output = Output()  # output.json default: .agenteval/rejudged.json beside agenteval.yaml
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    verbosity: Verbosity = Verbosity()  # -q, --log-level


@applies_verbosity
def rejudge(settings: RejudgeSettings) -> Ran:
    """The stored cases are read, judged again and written a case at a time (in bounded
    windows); what stays in memory is each case's digest, on disk (files/spill.py)."""
    stored = load_stored(settings.stored)
    criteria = current_criteria(project_file(settings.config), settings.environ, settings.judge_model)
    project = criteria.project
    print_warnings(project.warnings)
    judge = make_judge(criteria.judge, criteria.environ)
    output = replace(settings.output, json=settings.output.json or str(Path(project.path).parent / REJUDGED))
    with saved_results(output.json) as saved:
        seen = _Saved(saved)
        skipped = rescore_each(stored.cases, criteria.metrics_of, judge, seen.add)
        if skipped.count:
            print_warnings([f"{skipped.count} stored case(s) belong to no suite or eval set of {project.path} and are left out "
                            f"(first: {skipped.first})"])
        header = new_results([], num_runs=seen.num_runs, suites=sorted(seen.suites) or None, stats=with_judge_usage(RunStats(), judge.usage()))
        target = project.settings.baseline_target(settings.baseline)
        baseline = load_baseline(target.path, required=target.required)
        header = with_rejudged(header, saved.digests, baseline, target.path, criteria.metrics_of, criteria.judge, criteria.environ)
        results = saved.close(header, project.warnings)
        if not settings.verbosity.quiet:  # routine: what it cost
            print(f"agenteval: judged {seen.count} stored case(s) again: 0 agent calls, {results.stats.judge_calls} judge call(s), "
                  f"{results.stats.judge_cache_hits} cache hit(s)", file=sys.stderr)
        if not settings.compare:
            print_table(results, output, whole=saved.whole())
            return Ran(EXIT_PASSED if results.passed else EXIT_FAILED, results)
        gate = resolve_gate(project.config.gate, settings.gate)
        comparison = compare_and_report(results, target.path, gate, required=target.required, md_out=settings.md)
        print_table(results, output, comparison, whole=saved.whole())
        if output.json != "-" and settings.md != "-":
            print_verdict(comparison, output.style, f"baseline {target.path.as_posix()}: ", leading_blank=not output.quiet)
        return Ran(comparison.exit_code, results, comparison)


class _Saved:
    """The cases judged again, saved as they come; kept of them: what the results' other fields
    need (how many, their most runs, their suites)."""

    def __init__(self, saved: SavedResults) -> None:
        self._saved = saved
        self.count = 0
        self.most_runs = 0
        self.suites: set[str] = set()

    def add(self, case: CaseResult) -> None:
        self._saved.add(case)
        self.count += 1
        self.most_runs = max(self.most_runs, len(case.runs))
        self.suites.add(case.suite)

    @property
    def num_runs(self) -> int:
        return self.most_runs if self.count else 1
