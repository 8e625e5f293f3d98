"""`agenteval judge-agreement STORED --judge A [--judge B]`: two judges on the same stored outputs.

Both judge every stored case with the current criteria, each with its own model (with one
`--judge`, the other is each criterion's configured judge_model), running no agent; the report
gives per metric and rubric the verdicts both gave, the share they agree on, Cohen's kappa and
the verdicts they disagree on, and each judge's cost: evidence for moving to a cheaper judge.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.agreement import AgreementTally
from ..errors import EXIT_PASSED, UsageError
from ..files.case_spool import CaseSpool
from ..files.discovery import project_file
from ..files.writing import write_atomic
from ..judge import make_judge
from ..report.agreement import agreement_json, render_agreement_html, render_agreement_table
from ..report.console import PLAIN, Style
from ..runner.rejudge import rescore_each
from ..schema import CaseResult
from ._common import Done, Verbosity, applies_verbosity
from ._stored import current_criteria, load_stored

CONFIGURED = "the configured judges"


@dataclass(frozen=True)
class AgreementSettings:
    stored: str
    judges: tuple[str, ...]  # one or two models
    config: str | None = None
    metrics: tuple[str, ...] = ()  # only these judged metrics
    html: str | None = None
    json: str | None = None
    style: Style = PLAIN
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    verbosity: Verbosity = Verbosity()  # -q, --log-level (the table is the answer: -q keeps it)


def _judged_by(settings: AgreementSettings, config: str | Path, model: str | None,
               emit: Callable[[CaseResult], None]) -> str:
    """The stored cases judged by `model` (None: the configured judges), each handed to `emit`
    as it is scored, in stored order; what that cost."""
    criteria = current_criteria(config, settings.environ, model)
    judged = lambda case: [m for m in criteria.metrics_of(case) if m.spec.judged and (not settings.metrics or m.name in settings.metrics)]
    judge = make_judge(criteria.judge, criteria.environ)
    rescore_each(load_stored(settings.stored).cases, judged, judge, emit)
    usage = judge.stats()
    cost = "unknown" if usage.estimated_cost_usd is None else f"${usage.estimated_cost_usd:.4f}"
    return f"{usage.calls} call(s), {usage.cache_hits} cache hit(s), est. {cost}"


def _tally(settings: AgreementSettings, config: str | Path, models: tuple[str | None, ...]) -> tuple[AgreementTally, set[str], str, str]:
    """Both judges over the stored cases, a case at a time: the first's scored cases wait on
    disk until the second has scored the same case. The tally, the metrics the first judged,
    and what each judge cost."""
    tally, judged = AgreementTally(), set[str]()
    spool = CaseSpool()
    try:

        def first(case: CaseResult) -> None:
            judged.update(name for name, m in case.metrics.items() if m.judge is not None)
            spool.add(case)

        first_cost = _judged_by(settings, config, models[0], first)
        waiting = iter(spool)

        def second(case: CaseResult) -> None:
            mate = next(waiting, None)
            if mate is None or mate.key != case.key:  # the same criteria choose the same cases, in the same order
                raise AssertionError(f"the two judges scored different cases: {case.key} against {mate.key if mate else 'none'}")
            tally.add(case.key, mate, case)

        second_cost = _judged_by(settings, config, models[1], second)
        for left in waiting:
            tally.add(left.key, left, None)
    finally:
        spool.close()
    return tally, judged, first_cost, second_cost


@applies_verbosity
def judge_agreement(settings: AgreementSettings) -> Done:
    """Memory holds the counts and the verdicts the judges disagree on, not the cases."""
    if not 1 <= len(settings.judges) <= 2:
        raise UsageError("--judge: give one judge model (compared with the configured judges) or two")
    config = project_file(settings.config)
    models = (None, settings.judges[0]) if len(settings.judges) == 1 else settings.judges
    tally, judged, first_cost, second_cost = _tally(settings, config, models)
    metrics = sorted(judged)
    if settings.metrics:
        unknown = sorted(set(settings.metrics) - set(metrics))
        if unknown:
            raise UsageError(f"--metric: not a judged metric of these cases: {', '.join(unknown)} (judged: {', '.join(metrics) or 'none'})")
    if not metrics:
        raise UsageError(f"no judged metric in the criteria of {config}: nothing for two judges to agree on")
    rows = tally.rows(metrics)
    names = (f"{models[0] or CONFIGURED} ({first_cost})", f"{models[1]} ({second_cost})")
    print(render_agreement_table(rows, names, settings.style))
    if settings.html:
        write_atomic(settings.html, render_agreement_html(rows, names))
        if not settings.verbosity.quiet:  # on stderr: stdout may be the JSON (--json -)
            print(f"agenteval: the report is in {Path(settings.html).as_posix()}", file=sys.stderr)
    if settings.json:
        text = agreement_json(rows, names)
        sys.stdout.write(text) if settings.json == "-" else write_atomic(settings.json, text)
    return Done(EXIT_PASSED)
