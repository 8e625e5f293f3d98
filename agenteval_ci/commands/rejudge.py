"""`agenteval rejudge STORED`: score stored agent outputs again with the current criteria and
judge, running no agent. STORED is a results file or the baseline (its recorded outputs). This
is how a criteria or judge change is tried: the table shows the new scores, the comparison shows
them against the baseline, and `agenteval accept` of the new results makes them the baseline."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.baseline import load_baseline
from ..core.digest import ResultsDigest, digest
from ..core.results import with_judge_usage
from ..core.settings import resolve_gate
from ..errors import EXIT_FAILED, EXIT_PASSED
from ..files.discovery import project_file
from ..files.results import new_results
from ..judge import make_judge
from ..runner.rejudge import rescore, with_rejudged
from ..schema import RunStats
from ..schema.settings import GateSettings
from ._common import Output, Verbosity, applies_verbosity, print_table, print_warnings, save_results
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
    stored = load_stored(settings.stored)
    criteria = current_criteria(project_file(settings.config), settings.environ, settings.judge_model)
    project = criteria.project
    print_warnings(project.warnings)
    judge = make_judge(criteria.judge, criteria.environ)
    cases, skipped = rescore(stored.cases, criteria.metrics_of, judge)
    if skipped:
        print_warnings([f"{len(skipped)} stored case(s) belong to no suite or eval set of {project.path} and are left out "
                        f"(first: {skipped[0]})"])
    results = new_results(cases, num_runs=max((len(c.runs) for c in cases), default=1),
                          suites=sorted({c.suite for c in cases}) or None, stats=with_judge_usage(RunStats(), judge.usage()))
    target = project.settings.baseline_target(settings.baseline)
    baseline = load_baseline(target.path, required=target.required)
    results = with_rejudged(results, results.cases, baseline, target.path, criteria.metrics_of, criteria.judge, criteria.environ)
    output = replace(settings.output, json=settings.output.json or str(Path(project.path).parent / REJUDGED))
    save_results(results, output, project.warnings)
    if not settings.verbosity.quiet:  # routine: what it cost
        print(f"agenteval: judged {len(cases)} stored case(s) again: 0 agent calls, {results.stats.judge_calls} judge call(s), "
              f"{results.stats.judge_cache_hits} cache hit(s)", file=sys.stderr)
    held = ResultsDigest(results.model_copy(update={"cases": []}), [digest(c) for c in results.cases], results.fetch)
    if not settings.compare:
        print_table(results, output)
        return Ran(EXIT_PASSED if results.passed else EXIT_FAILED, held)
    gate = resolve_gate(project.config.gate, settings.gate)
    comparison = compare_and_report(results, target.path, gate, required=target.required, md_out=settings.md)
    print_table(results, output, comparison)
    if output.json != "-" and settings.md != "-":
        print_verdict(comparison, output.style, f"baseline {target.path.as_posix()}: ", leading_blank=not output.quiet)
    return Ran(comparison.exit_code, held, comparison)

