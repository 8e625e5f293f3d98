"""`agenteval accept [RESULTS] [--baseline PATH] [--case ID ...] [--metric NAME ...]`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.baseline import baseline_from_results, load_baseline, refuse_unsound, thin_history_note, write_baseline
from ..errors import EXIT_PASSED
from ..files.discovery import results_to_read
from ..files.project import project_settings
from ..files.results import ResultsFile
from ._common import Done


@dataclass(frozen=True)
class AcceptSettings:
    results: str | None = None  # default: the file `run` writes
    config: str | None = None
    baseline: str | None = None  # default: agenteval.yaml's
    cases: tuple[str, ...] = ()  # only these cases (eval_id, eval_set_id/eval_id or suite/eval_set_id/eval_id)
    metrics: tuple[str, ...] = ()  # only these metrics
    allow_failed: bool = False  # accept failed runs and gated metrics not evaluated
    commit: str | None = None  # default: the one recorded in the results


def accept(settings: AcceptSettings) -> Done:
    results = ResultsFile(results_to_read(settings.results, settings.config)).digest()
    path = Path(settings.baseline) if settings.baseline else project_settings(settings.config).baseline
    cases, metrics = list(settings.cases) or None, list(settings.metrics) or None
    refuse_unsound(results, settings.allow_failed, cases)
    previous = load_baseline(path)  # a corrupt baseline stops here, untouched
    baseline = baseline_from_results(results, previous, cases, metrics, commit=settings.commit)
    write_baseline(path, baseline)
    what = "all cases" if not (cases or metrics) else ", ".join([*settings.cases, *settings.metrics])
    print(f"accepted {what} into {path.as_posix()} ({len(baseline.keys())} case(s) in the baseline)")
    note = thin_history_note(baseline)
    if note:
        print(note)
    return Done(EXIT_PASSED)
