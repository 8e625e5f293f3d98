"""Gate policy per metric (gate.metrics, gate.suite_metrics): which metrics block, warn or only
report, and the words that say which rules applied (pure, no I/O).

A metric's severity splits a comparison in parts, each the whole gate over one part's metrics:
the blocking part decides the verdict, as the gate always did; the `warn` part is judged the
same way and reported beside it, never failing the check; the `report` part is shown, not
judged. Each part sees a case's status as its own metrics give it (ADK's rule), so a `warn`
metric below its threshold neither fails a case of the blocking part nor makes it newly failing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from ..schema import AdaptiveInfo, CaseResult, RunStats, ShardInfo, Status
from ..schema.baseline import Baseline, BaselineCase
from ..schema.results import RejudgedBaseline
from ..schema.settings import GateSettings, Severity
from .digest import ScoredCase, ScoredResults, digest
from .scoring import case_status

Keep = Callable[[str, str], bool]  # (suite, metric) -> the metric belongs to this part


def has_parts(settings: GateSettings) -> bool:
    """Some metric does not block: the comparison is made in parts."""
    rules = [*settings.metrics.values(), *(r for by_suite in settings.suite_metrics.values() for r in by_suite.values())]
    return any(r.severity not in (None, "block") for r in rules) or any(v != "block" for v in settings.budget_severity.values())


def of_severity(settings: GateSettings, severity: Severity) -> Keep:
    return lambda suite, metric: settings.severity_of(suite, metric) == severity


def policy_lines(settings: GateSettings, seen: set[str]) -> tuple[str, ...]:
    """The rules that differ from the gate's defaults, one line each: what the check says applied;
    and the metrics they name that `seen` (the results' metrics) lacks: a typo must not pass as a
    rule that held (`safty_v1: {any_drop: true}` would protect nothing)."""
    lines = [f"{name}: {_rule_words(rule.model_dump(exclude_none=True))}" for name, rule in sorted(settings.metrics.items())]
    lines += [f"{name} in suite {suite}: {_rule_words(rule.model_dump(exclude_none=True))}"
              for suite, by_metric in sorted(settings.suite_metrics.items()) for name, rule in sorted(by_metric.items())]
    lines += [f"budget {key}: {severity}" for key, severity in sorted(settings.budget_severity.items())]
    named = set(settings.metrics) | {name for by_metric in settings.suite_metrics.values() for name in by_metric}
    lines += [f"{name}: no case of these results has this metric, so this rule applied to nothing" for name in sorted(named - seen)]
    return tuple(line for line in lines if not line.endswith(": "))


def metric_names(settings: GateSettings, results: ScoredResults) -> set[str]:
    """The metrics of the results' cases, read only when some rule names a metric."""
    if not settings.metrics and not settings.suite_metrics:
        return set()
    return {name for case in results.cases for name in case.metrics}


def _rule_words(rule: Mapping[str, object]) -> str:
    words = [str(rule["severity"])] if "severity" in rule else []
    words += ["any_drop (a single case's fall blocks)"] if rule.get("any_drop") else []
    words += [f"{k} {rule[k]:g}" for k in ("tolerance", "case_drop", "power") if k in rule and isinstance(rule[k], float)]
    return ", ".join(words)


# ---------------------------------------------------------------- a part's view of the results


def _kept_case(case: ScoredCase, keep: Keep) -> ScoredCase | None:
    """The case with only this part's metrics, its status restated from them; None when none of
    its scored metrics is this part's (a failed run stays in every part: a crash is never noise)."""
    if all(keep(case.suite, name) for name in case.metrics):
        return case
    names = [name for name in case.metrics if keep(case.suite, name)]
    if not any(case.metrics[name].status != Status.INFORMATIONAL for name in names) and not case.run_errors:
        return None  # figures alone are nothing to judge: the case is not this part's
    whole = digest(case)
    metrics = {name: whole.metrics[name] for name in names if name in whole.metrics}  # a digest leaves out informational figures
    status, reason = case_status(metrics, whole.runs)
    return replace(whole, metrics=metrics, status=status, reason=case.reason if case.run_errors else reason)


class _KeptCases(Sequence[ScoredCase]):
    """The results' cases as one part sees them, made as they are read (a big suite's cases are
    read from disk one at a time, never all held)."""

    def __init__(self, cases: Sequence[ScoredCase], keep: Keep) -> None:
        self._cases = cases
        self._keep = keep

    def __iter__(self) -> Iterator[ScoredCase]:
        for case in self._cases:
            kept = _kept_case(case, self._keep)
            if kept is not None:
                yield kept

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __getitem__(self, index: int) -> ScoredCase:  # type: ignore[override]  # by position, as a list
        return list(self)[index]


@dataclass(frozen=True)
class PartResults:
    """A results record with only one part's metrics (a ScoredResults)."""

    whole: ScoredResults
    keep: Keep

    @property
    def cases(self) -> Sequence[ScoredCase]:
        return _KeptCases(self.whole.cases, self.keep)

    @property
    def suites(self) -> list[str]:
        return self.whole.suites

    @property
    def case_filter(self) -> list[str] | None:
        return self.whole.case_filter

    @property
    def shard(self) -> ShardInfo | None:
        return self.whole.shard

    @property
    def adaptive(self) -> AdaptiveInfo | None:
        return self.whole.adaptive

    @property
    def num_runs(self) -> int:
        return self.whole.num_runs

    @property
    def created_at(self) -> str:
        return self.whole.created_at

    @property
    def commit(self) -> str | None:
        return self.whole.commit

    @property
    def stats(self) -> RunStats:
        return self.whole.stats

    @property
    def warnings(self) -> list[str]:
        return self.whole.warnings

    @property
    def rejudged(self) -> list[RejudgedBaseline] | None:
        return self.whole.rejudged

    def fetch(self, keys: Iterable[str]) -> Mapping[str, CaseResult]:
        return self.whole.fetch(keys)


def part_baseline(baseline: Baseline, keep: Keep) -> Baseline:
    """The baseline with only one part's metrics; a case left with none is left out, as its
    results case is (a part compares like with like)."""
    suites: dict[str, dict[str, dict[str, BaselineCase]]] = {}
    for suite, sets in baseline.suites.items():
        for eval_set_id, cases in sets.items():
            for eval_id, case in cases.items():
                kept = _kept_baseline_case(suite, case, keep)
                if kept is not None:
                    suites.setdefault(suite, {}).setdefault(eval_set_id, {})[eval_id] = kept
    return baseline.model_copy(update={"suites": suites})


def _kept_baseline_case(suite: str, case: BaselineCase, keep: Keep) -> BaselineCase | None:
    metrics = {name: m for name, m in case.metrics.items() if keep(suite, name)}
    if len(metrics) == len(case.metrics):
        return case
    if not metrics:
        return None
    ran_failed = case.status == Status.FAILED and not any(m.status == Status.FAILED for m in case.metrics.values())
    statuses = {m.status for m in metrics.values()}
    status = (Status.FAILED if ran_failed or Status.FAILED in statuses
              else Status.PASSED if Status.PASSED in statuses else Status.NOT_EVALUATED)
    return case.model_copy(update={"metrics": metrics, "status": status})
