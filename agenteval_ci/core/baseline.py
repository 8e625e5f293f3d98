"""Baseline files: build from results (whole or partial), read, write atomically.

Pure except `load_baseline`/`write_baseline`, which touch exactly one file each.
A corrupt or newer-version file is an error, never silently replaced.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import __version__
from ..errors import UsageError
from ..schema import Status
from ..schema.baseline import BASELINE_VERSION, HISTORY_WINDOW, Baseline, BaselineCase, BaselineMetric, Provenance, RunBatch, outcomes
from ..schema.judge import JudgeFingerprint
from .digest import CaseDigest, ScoredCase, ScoredMetric, ScoredResults, case_outputs, digest, metric_digest
from .figures import case_figures
from .judge_fingerprint import judge_id
from .metrics.base import adk_mean, status_for, unscored_evidence
from .recorded_outputs import planned_runs as planned_runs  # its home: the recorded runs are the planned ones
from .scoring import case_status
from .selection import case_names

HISTORY_RESET = 0.05  # a case's history starts anew when its accepted runs differ beyond this chance

def dump_baseline(baseline: Baseline) -> str:
    """Always in this version's format (a version-1 file read in has had its counts moved to histories)."""
    return "".join(baseline_json_parts(baseline))


def baseline_json_parts(baseline: Baseline) -> Iterator[str]:
    """The file's text a case at a time: `json.dumps(..., indent=2, sort_keys=True)` of the
    whole, byte for byte, without the whole as one tree of dicts or one string (100,000 cases)."""
    head = baseline.model_copy(update={"schema_version": BASELINE_VERSION, "suites": {}}).model_dump(mode="json", exclude_none=True)
    before, after = json.dumps(head, indent=2, sort_keys=True, ensure_ascii=False).split(_SUITES_AT)
    yield before + _SUITES_AT[:-2]
    yield from _sorted_object(baseline.suites, level=1)
    yield after + "\n"


_SUITES_AT = '\n  "suites": {}'  # where the top level's suites go


def _sorted_object(value: Mapping[str, Any], level: int) -> Iterator[str]:
    """Nested dicts down to BaselineCases, as json.dumps(indent=2, sort_keys=True) writes them at nesting `level`."""
    if not value:
        yield "{}"
        return
    indent = "\n" + "  " * (level + 1)
    for i, key in enumerate(sorted(value)):
        item = value[key]  # one at a time: a baseline's cases may be kept on disk (files/spill.py)
        yield ("{" if i == 0 else ",") + indent + json.dumps(key, ensure_ascii=False) + ": "
        if isinstance(item, BaselineCase):
            yield json.dumps(item.model_dump(mode="json", exclude_none=True), indent=2, sort_keys=True, ensure_ascii=False).replace("\n", indent)
        else:
            yield from _sorted_object(item, level + 1)
    yield "\n" + "  " * level + "}"


def rubric_pass_rates(metric: ScoredMetric) -> dict[str, float]:
    """Each rubric's mean verdict over the runs (1.0 yes, 0.0 no; unevaluated left out)."""
    scores: dict[str, list[float]] = {}
    for run in metric.runs:
        for verdict in run.rubric_scores or []:
            if verdict.score is not None:
                scores.setdefault(verdict.rubric_id, []).append(verdict.score)
    return {rubric: adk_mean(values) for rubric, values in sorted(scores.items())}


def _planned_metric(metric: ScoredMetric, planned: int) -> ScoredMetric:
    """The metric over its planned runs only, aggregated as ADK aggregates (mean, then threshold)."""
    if planned >= len(metric.runs):
        return metric
    view = metric_digest(metric)
    runs = view.runs[:planned]
    scores = [r.score for r in runs if r.score is not None]
    score = adk_mean(scores) if scores else None
    status = status_for(score, metric.threshold) if metric.threshold is not None else metric.status
    return replace(view, runs=runs, score=score, status=status)


def planned_view(case: ScoredCase) -> ScoredCase | CaseDigest:
    """The case as its planned runs alone show it: an estimate the re-runs did not bias (a re-run
    case stops once it passes, so all its runs together overstate its pass rate)."""
    planned = planned_runs(case)
    if planned >= len(case.runs):
        return case
    view = digest(case)
    metrics = {name: metric_digest(_planned_metric(m, planned)) for name, m in view.metrics.items()}
    status, reason = case_status(metrics, view.runs[:planned])
    return replace(view, metrics=metrics, runs=view.runs[:planned], status=status, reason=reason)


def _batch(metric: ScoredMetric, planned: int) -> RunBatch:
    statuses = [run.status for run in metric.runs]
    return RunBatch(outcomes(statuses[:planned]), outcomes(statuses[planned:]))


def changed_beyond_chance(before: tuple[int, int], after: tuple[int, int]) -> bool:
    """Fisher's exact test, two-sided at HISTORY_RESET: do two sets of pass/fail counts differ
    more than chance allows? (An accepted change of behavior starts the case's history anew.)"""
    (a, b), (c, d) = before, after
    passes, n, drawn = a + c, a + b + c + d, c + d
    if not n or not passes or passes == n or not drawn or drawn == n:
        return False
    def p(k: int) -> float:
        return math.comb(passes, k) * math.comb(n - passes, drawn - k) / math.comb(n, drawn)
    seen = p(c)
    tail = sum(q for k in range(max(0, drawn - (n - passes)), min(passes, drawn) + 1) if (q := p(k)) <= seen * (1 + 1e-9))
    return tail <= HISTORY_RESET


def _history(old: BaselineMetric | None, batch: RunBatch, accepted_from: str) -> str:
    """The old history with this accept's batch: the newest batch replaces one from the same
    results (accepted again); a case whose runs now differ from its history beyond chance starts
    anew; the oldest batches go once the window holds more than HISTORY_WINDOW runs."""
    kept = old.batches() if old is not None else []
    if old is not None and old.accepted_from == accepted_from:
        kept = kept[:-1]
    if not batch.runs:
        return " ".join(map(str, kept))
    before = "".join(b.runs for b in kept)
    if changed_beyond_chance((before.count("P"), before.count("F")), (batch.runs.count("P"), batch.runs.count("F"))):
        kept = []
    kept.append(batch)
    while len(kept) > 1 and sum(len(b.runs) for b in kept) > HISTORY_WINDOW:
        kept.pop(0)
    return " ".join(map(str, kept))


def baseline_metric(metric: ScoredMetric, planned: int, old: BaselineMetric | None = None, accepted_from: str = "") -> BaselineMetric:
    """`old`: the same metric of the same test in the previous baseline, whose history goes on."""
    view = _planned_metric(metric, planned)
    return BaselineMetric(
        score=view.score,
        runs=[run.score for run in view.runs],
        run_statuses=[run.status for run in view.runs],
        status=view.status,
        threshold=metric.threshold,
        config_fingerprint=metric.config_fingerprint,
        rubrics=rubric_pass_rates(view),
        history=_history(old, _batch(metric, planned), accepted_from),
        accepted_from=accepted_from or None,
        judge=judge_id(metric.judge) if metric.judge else None,
    )


THIN_HISTORY = 3  # planned runs per case below which a baseline cannot tell flaky cases from deterministic ones


def thin_history_note(baseline: Baseline) -> str:
    """A note when most cases' histories are too short to tell flaky from deterministic, else ''."""
    runs = sorted(sum(m.planned_counts()) for sets in baseline.suites.values() for cases in sets.values()
                  for case in cases.values() for m in case.metrics.values())
    if not runs or runs[len(runs) // 2] >= THIN_HISTORY:
        return ""
    return (f"note: most cases have {runs[len(runs) // 2]} planned run(s) in the baseline, too few to tell flaky cases from "
            "deterministic ones: the gate treats the suite as deterministic until accepts grow the histories; "
            "`agenteval run --new-baseline` runs every case 5 times for a first baseline (docs/baseline.md)")


def results_id(results: ScoredResults) -> str:
    """Which results a batch came from: accepting the same results again replaces the batch
    rather than counting its runs twice. A hash of when and where they were made and of every
    case's digest (its statuses and scores per run), so a file read case by case and the same
    results in memory hash alike without the whole file in memory."""
    found = hashlib.sha256(repr((results.created_at, results.commit, results.num_runs, results.shard, results.suites)).encode())
    for case in results.cases:
        found.update(repr(digest(case)).encode())
    return found.hexdigest()[:16]


def baseline_case(case: ScoredCase, old: BaselineCase | None = None, accepted_from: str = "", figures: Sequence[str] = ()) -> BaselineCase:
    """Gated metrics, and the `figures` the project budgets (each planned run's): other
    informational figures (latency, tokens) change on every run and would turn each accept into
    a noisy diff of a file people review. `old`: the case in the previous baseline; each metric
    of the same test and config carries its history on."""
    same_test = old is not None and old.fingerprint == case.fingerprint
    planned = planned_runs(case)
    return BaselineCase(
        fingerprint=case.fingerprint,
        status=planned_view(case).status,
        metrics={
            name: baseline_metric(m, planned, _same_metric(old, name, m) if same_test else None, accepted_from)
            for name, m in case.metrics.items()
            if m.status != Status.INFORMATIONAL
        },
        figures=case_figures(case, figures, planned),
        outputs=case_outputs(case),  # the planned runs', as the scores
    )


def _same_metric(old: BaselineCase | None, name: str, metric: ScoredMetric) -> BaselineMetric | None:
    previous = old.metrics.get(name) if old else None
    return previous if previous is not None and previous.config_fingerprint == metric.config_fingerprint else None


def case_matches(case: ScoredCase, wanted: str) -> bool:
    """`--case` accepts the eval id, `eval_set_id/eval_id` or `suite/eval_set_id/eval_id`."""
    return wanted in case_names(case.suite, case.eval_set_id, case.eval_id)


def _merge_case(old: BaselineCase | None, case: ScoredCase, metrics: list[str] | None, accepted_from: str, figures: Sequence[str]) -> BaselineCase:
    """Only the named metrics change (the budgeted figures stay as they were); a changed test
    (fingerprint) replaces the whole case, because the other metrics' old scores no longer
    describe it."""
    new = baseline_case(case, old, accepted_from, figures)
    if metrics is None or old is None or old.fingerprint != case.fingerprint:
        return new
    merged = dict(old.metrics)
    outputs = new.outputs if new.outputs != old.outputs else None  # these metrics' scores came from other runs
    merged.update({name: m.model_copy(update={"outputs": outputs}) for name, m in new.metrics.items() if name in metrics})
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
    figures: Sequence[str] = (),
    new_cases: Callable[[], dict[str, BaselineCase]] = dict,
    created_at: str = "",
) -> Baseline:
    """Accept `results` as the new baseline. With no filters the suites in the results are
    replaced (cases gone from them are dropped); other suites are kept. With `cases` and/or
    `metrics`, or from a `run -k` or one shard's file, only those change and everything else
    stays as it was. `figures`: the budgeted figures (gate.budget_keys()) each case keeps per
    planned run. `new_cases` makes an eval set's cases (files/spill.py's keep them on disk).
    `created_at`: the provenance's time, from the caller's clock (files/baseline_file.py
    `utc_now`): the core reads none."""
    _check_filters(results, cases, metrics)
    partial = bool(cases or metrics or results.case_filter or results.shard)  # these files hold only some cases
    # The dicts are copied, not the cases: a case is replaced, never changed (a deep copy of a
    # 100,000-case baseline would double its memory).
    suites = {} if previous is None else {s: {e: cases.copy() for e, cases in sets.items()} for s, sets in previous.suites.items()}
    if not partial:
        for suite in {c.suite for c in results.cases} | set(results.suites):
            suites.pop(suite, None)
    accepted_from = results_id(results)
    for case in results.cases:
        if cases and not any(case_matches(case, w) for w in cases):
            continue
        old = previous.case(case.suite, case.eval_set_id, case.eval_id) if previous else None
        merged = _merge_case(old, case, metrics or None, accepted_from, figures)
        eval_sets = suites.setdefault(case.suite, {})
        if case.eval_set_id not in eval_sets:
            eval_sets[case.eval_set_id] = new_cases()
        eval_sets[case.eval_set_id][case.eval_id] = merged
    provenance = Provenance(
        commit=commit or results.commit,
        created_at=created_at,
        tool_version=__version__,
        num_runs=results.num_runs,
    )
    # Each part is valid already; validating the whole would copy the cases into memory.
    return Baseline.model_construct(provenance=provenance, suites=suites, judges=_judges(results, previous, suites))


def _judges(results: ScoredResults, previous: Baseline | None, suites: dict[str, dict[str, dict[str, BaselineCase]]]) -> dict[str, JudgeFingerprint]:
    """The fingerprints the baseline's metrics name: the accepted results', and the previous
    baseline's for the metrics kept from it."""
    known = dict(previous.judges) if previous else {}
    # a digest holds each judge once: hash each one once, not once per score
    judges = {id(m.judge): m.judge for c in results.cases for m in c.metrics.values() if m.judge}
    known.update({judge_id(j): j for j in judges.values()})
    named = {m.judge for sets in suites.values() for cases in sets.values() for case in cases.values() for m in case.metrics.values() if m.judge}
    return {key: known[key] for key in sorted(named) if key in known}


def referenced_outputs(baseline: Baseline) -> set[str]:
    """Every digest of recorded runs the baseline points to (the outputs file keeps those)."""
    found = set()
    for sets in baseline.suites.values():
        for cases in sets.values():
            for case in cases.values():
                found |= {d for d in [case.outputs, *(m.outputs for m in case.metrics.values())] if d}
    return found
