"""`agenteval accept [RESULTS] [--baseline PATH] [--case ID ...] [--metric NAME ...]`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.baseline import baseline_from_results, referenced_outputs, refuse_unsound, thin_history_note
from ..core.figures import kept_figures
from ..errors import EXIT_PASSED
from ..files.baseline_file import load_baseline, utc_now, write_baseline
from ..files.baseline_outputs import outputs_path, save_outputs
from ..files.discovery import results_to_read
from ..files.project import project_settings
from ..files.results_file import ResultsFile
from ..files.spill import spilled_cases
from ._common import Done, Verbosity, applies_verbosity, say


@dataclass(frozen=True)
class AcceptSettings:
    results: str | None = None  # default: the file `run` writes
    config: str | None = None
    baseline: str | None = None  # default: agenteval.yaml's
    cases: tuple[str, ...] = ()  # only these cases (eval_id, eval_set_id/eval_id or suite/eval_set_id/eval_id)
    metrics: tuple[str, ...] = ()  # only these metrics
    allow_failed: bool = False  # accept failed runs and gated metrics not evaluated
    commit: str | None = None  # default: the one recorded in the results
    verbosity: Verbosity = Verbosity()  # -q, --log-level


@applies_verbosity
def accept(settings: AcceptSettings) -> Done:
    file = ResultsFile(results_to_read(settings.results, settings.config))
    results = file.digest()
    project = project_settings(settings.config)
    path = Path(settings.baseline) if settings.baseline else project.baseline
    cases, metrics = list(settings.cases) or None, list(settings.metrics) or None
    refuse_unsound(results, settings.allow_failed, cases)
    previous = load_baseline(path)  # a corrupt baseline stops here, untouched
    baseline = baseline_from_results(results, previous, cases, metrics, commit=settings.commit, figures=kept_figures(project.gate),
                                     new_cases=spilled_cases(), created_at=utc_now())
    recorded = save_outputs(path, referenced_outputs(baseline), file)  # first: it is what the baseline points to
    write_baseline(path, baseline)
    what = "all cases" if not (cases or metrics) else ", ".join([*settings.cases, *settings.metrics])
    held = sum(len(cases) for sets in baseline.suites.values() for cases in sets.values())  # not a list of every key
    say(f"accepted {what} into {path.as_posix()} ({held} case(s) in the baseline; "
        f"their recorded outputs, for re-judging, in {outputs_path(path).name}: {recorded} case(s))")
    thin = thin_history_note(baseline)
    if thin:
        say(thin)  # advice on a baseline that works: routine enough for -q to drop
    return Done(EXIT_PASSED)
