"""Baseline files: build from results (whole or partial), read, write atomically.

Pure except `load_baseline`/`write_baseline`, which touch exactly one file each.
A corrupt or newer-version file is an error, never silently replaced.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import UsageError
from ..files.readers import read_json
from ..files.results import parse_versioned
from ..files.writing import write_atomic
from ..schema import Status
from ..schema.baseline import BASELINE_VERSION, Baseline, BaselineCase, BaselineMetric, Provenance
from .digest import ScoredCase, ScoredMetric, ScoredResults
from .metrics.base import adk_mean, unscored_evidence
from .selection import case_names


def load_baseline(path: str | Path, *, required: bool = False) -> Baseline | None:
    """None when there is no baseline yet (a first run); UsageError when one was named
    explicitly (`required`) and is missing; InputError (naming the file) when it is unusable."""
    name = Path(path).as_posix()
    if os.path.lexists(path) and not Path(path).exists():
        raise UsageError(f"baseline {name}: a broken symlink or a symlink loop")
    if not Path(path).exists():
        if required:
            raise UsageError(f"baseline {name}: file not found (it was named explicitly; drop --baseline or "
                             "agenteval.yaml's `baseline:` to run without one)")
        return None
    return parse_baseline(name, read_json(path))


def parse_baseline(name: str, data: Any) -> Baseline:
    """Parsed JSON as a baseline; `name` says where it came from (a file, a file at a commit)."""
    return parse_versioned(name, data, Baseline, BASELINE_VERSION, "baseline")


def dump_baseline(baseline: Baseline) -> str:
    data = baseline.model_dump(mode="json", exclude_none=True)
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_baseline(path: str | Path, baseline: Baseline) -> None:
    write_atomic(path, dump_baseline(baseline))


def rubric_pass_rates(metric: ScoredMetric) -> dict[str, float]:
    """Each rubric's mean verdict over the runs (1.0 yes, 0.0 no; unevaluated left out)."""
    scores: dict[str, list[float]] = {}
    for run in metric.runs:
        for verdict in run.rubric_scores or []:
            if verdict.score is not None:
                scores.setdefault(verdict.rubric_id, []).append(verdict.score)
    return {rubric: adk_mean(values) for rubric, values in sorted(scores.items())}


def baseline_metric(metric: ScoredMetric) -> BaselineMetric:
    return BaselineMetric(
        score=metric.score,
        runs=[run.score for run in metric.runs],
        run_statuses=[run.status for run in metric.runs],
        status=metric.status,
        threshold=metric.threshold,
        config_fingerprint=metric.config_fingerprint,
        rubrics=rubric_pass_rates(metric),
        passes=sum(run.status == Status.PASSED for run in metric.runs),
        fails=sum(run.status == Status.FAILED for run in metric.runs),
    )


def baseline_case(case: ScoredCase) -> BaselineCase:
    """Gated metrics only: informational figures (latency, tokens) change on every run and
    would turn each accept into a noisy diff of a file people review."""
    return BaselineCase(
        fingerprint=case.fingerprint,
        status=case.status,
        metrics={name: baseline_metric(m) for name, m in case.metrics.items() if m.status != Status.INFORMATIONAL},
    )


def case_matches(case: ScoredCase, wanted: str) -> bool:
    """`--case` accepts the eval id, `eval_set_id/eval_id` or `suite/eval_set_id/eval_id`."""
    return wanted in case_names(case.suite, case.eval_set_id, case.eval_id)


def _merge_case(old: BaselineCase | None, case: ScoredCase, metrics: list[str] | None) -> BaselineCase:
    """Only the named metrics change; a changed test (fingerprint) replaces the whole case,
    because the other metrics' old scores no longer describe it."""
    new = baseline_case(case)
    if metrics is None or old is None or old.fingerprint != case.fingerprint:
        return new
    merged = dict(old.metrics)
    merged.update({name: m for name, m in new.metrics.items() if name in metrics})
    return old.model_copy(update={"metrics": dict(sorted(merged.items()))})


def unsound_cases(results: ScoredResults, cases: list[str] | None = None) -> list[str]:
    """What a baseline should not be made of: cases whose runs failed, and gated metrics
    that were not evaluated (a metric that does not apply to the case aside)."""
    found = []
    for case in results.cases:
        if cases and not any(case_matches(case, w) for w in cases):
            continue
        errors = case.run_errors
        if errors:
            found.append(f"{case.key}: {len(errors)} run(s) failed: {errors[0]}")
        for name, m in sorted(case.metrics.items()):
            if unscored_evidence(m) and not errors:
                found.append(f"{case.key}: {name} not evaluated: {m.reason or 'no score'}")
    return found


def refuse_unsound(results: ScoredResults, allow: bool, cases: list[str] | None = None, flag: str = "--allow-failed") -> None:
    found = unsound_cases(results, cases)
    if found and not allow:
        shown = "\n".join(f"  {line}" for line in found[:10]) + (f"\n  ...{len(found) - 10} more" if len(found) > 10 else "")
        raise UsageError(f"not accepting results in which runs failed or gated metrics were not evaluated "
                         f"(a baseline of them would hide a broken agent); fix them, or pass {flag}:\n{shown}")


def _check_filters(results: ScoredResults, cases: list[str] | None, metrics: list[str] | None) -> None:
    unknown_cases = [w for w in cases or [] if not any(case_matches(c, w) for c in results.cases)]
    known_metrics = {name for c in results.cases for name in c.metrics}
    unknown_metrics = [m for m in metrics or [] if m not in known_metrics]
    if unknown_cases:
        raise UsageError(f"--case not in the results: {', '.join(unknown_cases)}")
    if unknown_metrics:
        raise UsageError(f"--metric not in the results: {', '.join(unknown_metrics)} (known: {', '.join(sorted(known_metrics))})")


def baseline_from_results(
    results: ScoredResults,
    previous: Baseline | None = None,
    cases: list[str] | None = None,
    metrics: list[str] | None = None,
    *,
    commit: str | None = None,
) -> Baseline:
    """Accept `results` as the new baseline. With no filters the suites in the results are
    replaced (cases gone from them are dropped); other suites are kept. With `cases` and/or
    `metrics`, or from a `run -k` or one shard's file, only those change and everything else
    stays as it was."""
    _check_filters(results, cases, metrics)
    partial = bool(cases or metrics or results.case_filter or results.shard)  # these files hold only some cases
    suites = {} if previous is None else previous.model_copy(deep=True).suites
    if not partial:
        for suite in {c.suite for c in results.cases} | set(results.suites):
            suites.pop(suite, None)
    for case in results.cases:
        if cases and not any(case_matches(case, w) for w in cases):
            continue
        old = suites.get(case.suite, {}).get(case.eval_set_id, {}).get(case.eval_id)
        merged = _merge_case(old if partial else None, case, metrics or None)
        suites.setdefault(case.suite, {}).setdefault(case.eval_set_id, {})[case.eval_id] = merged
    provenance = Provenance(
        commit=commit or results.commit,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        tool_version=__version__,
        num_runs=results.num_runs,
    )
    return Baseline(provenance=provenance, suites=suites)
