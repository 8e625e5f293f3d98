"""The plain-text table `agenteval score` and `agenteval run` print."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.baseline import rubric_pass_rates
from ..core.budgets import suite_costs
from ..core.digest import ScoredCase, ScoredMetric, ScoredResults
from ..schema import AdaptiveInfo, CaseResult, Outcome, RunStats, Status
from ..schema.labels import case_labels, label
from ..schema.vocabulary import case_words
from .console import PLAIN, Style, turn_details

MARK_WIDTH = 5  # `PASS `: a case's or a metric's status


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _mark(status: Status, style: Style) -> str:
    return style.paint(f"{status.mark:<{MARK_WIDTH}}", status.colour)


def _lead(case: ScoredCase, outcomes: Mapping[str, str]) -> tuple[str, str]:
    """The case's word (`REGRESSED` when the gate made news of it, else `PASS`/`FAIL`) and its colour."""
    outcome = outcomes.get(case.key)
    return case_words(Outcome(outcome) if outcome else None, case.status)


def _case_line(word: str, colour: str, width: int, label: str, style: Style) -> str:
    """`REGRESSED  suite / eval_set / case`: the word leads, padded so the labels line up."""
    return f"{style.paint(f'{word:<{width}}', colour)} {label}"


def _metric_lines(name: str, metric: ScoredMetric, style: Style) -> list[str]:
    threshold = "" if metric.threshold is None else f" (threshold {metric.threshold:g})"
    why = f"  [{metric.reason}]" if metric.reason else ""
    lines = [f"        {_mark(metric.status, style)} {name} {_score(metric.score)}{threshold}{why}"]
    rates = rubric_pass_rates(metric)
    lines += [f"              rubric {rubric_id}: {_score(rate)}" for rubric_id, rate in rates.items()]
    if metric.status == Status.PASSED and any(rate < 1 for rate in rates.values()):
        lines.append(style.paint("              (a rubric's figure is the share of the judge's yes verdicts; the metric is their mean, "
                                 "which meets the threshold: --detailed shows the judge's reasons)", "dim"))
    return lines


class Table:
    """The table, a case at a time (a big suite's cases are never all in memory): `lines` of each
    case as it comes, then the `footer`. A case is a digest, or a whole CaseResult with `detailed`
    (informational metrics and adk eval's per-turn details). `labels` and `width` come from every
    case's name and word (`for_results`); a table printed as cases are scored names each case
    by itself (one eval set's cases: their labels are the same)."""

    def __init__(self, style: Style = PLAIN, detailed: bool = False, outcomes: Mapping[str, str] | None = None, min_runs: int | None = None,
                 labels: Mapping[str, str] | None = None, width: int = MARK_WIDTH) -> None:
        self.style, self.detailed, self.outcomes, self.min_runs = style, detailed, outcomes or {}, min_runs
        self.labels, self.width = labels or {}, width
        self.statuses = dict.fromkeys(Status, 0)
        self.unscored = self.runs = 0

    @classmethod
    def for_results(cls, results: ScoredResults, style: Style = PLAIN, detailed: bool = False, outcomes: Mapping[str, str] | None = None) -> Table:
        """A table of these results' cases (their digests: the names and words of all of them)."""
        leads = [_lead(case, outcomes or {}) for case in results.cases]
        width = max([MARK_WIDTH, *(len(word) + 1 for word, _ in leads)])
        return cls(style, detailed, outcomes, results.adaptive.min_runs if results.adaptive else None, case_labels(results.cases), width)

    def lines(self, case: ScoredCase) -> list[str]:
        self.statuses[case.status] += 1
        self.runs += len(case.runs)
        self.unscored += sum(m.threshold is not None and m.status == Status.NOT_EVALUATED for m in case.metrics.values())
        word, colour = _lead(case, self.outcomes)
        name = self.labels.get(case.key) or label(case.suite, case.eval_set_id, case.eval_id)  # alone, a case's plain label is its own
        lines = [_case_line(word, colour, max(self.width, len(word) + 1), name, self.style)]
        # When every run failed, the reason line says why; its unscored metrics would only repeat it.
        ran = not case.runs or any(not run.error for run in case.runs)
        for name, metric in case.metrics.items():
            if (metric.status != Status.INFORMATIONAL or self.detailed) and (ran or metric.status != Status.NOT_EVALUATED):
                lines += _metric_lines(name, metric, self.style)
        if case.status == Status.FAILED and case.reason:
            lines.append(f"        reason: {case.reason}")
        if self.min_runs is not None and len(case.runs) > self.min_runs and case.runs_note:
            lines.append(f"        runs: {case.runs_note}")
        if self.detailed and isinstance(case, CaseResult):
            lines += turn_details(case, self.style)
        return lines

    def footer(self, results: ScoredResults) -> list[str]:
        """The counts of the cases shown, and the run's facts (`results`: every case's digest)."""
        cases = sum(self.statuses.values())
        counts = self.statuses
        lines = [
            f"\n{cases} case(s): {counts[Status.PASSED]} passed, {counts[Status.FAILED]} failed, "
            f"{counts[Status.NOT_EVALUATED]} not evaluated; {self.unscored} gated metric score(s) not evaluated",
            _facts(results.stats, _agent_cost(results)),
        ]
        adaptive: AdaptiveInfo | None = results.adaptive
        if adaptive:
            lines.append(f"num_runs: auto: {self.runs} run(s) over {cases} case(s), {adaptive.rounds} round(s); {adaptive.stopped}")
        return lines


def render_table(results: ScoredResults, detailed: bool = False, style: Style = PLAIN, outcomes: Mapping[str, str] | None = None) -> str:
    """One line per case (tagged with its gate outcome when `outcomes` maps case keys to them),
    its metrics below; `detailed` adds informational metrics and adk eval's per-turn details."""
    table = Table.for_results(results, style, detailed, outcomes)
    lines = [line for case in results.cases for line in table.lines(case)]
    return "\n".join(lines + table.footer(results))


def _agent_cost(results: ScoredResults) -> str:
    """`, $0.0123 per run of the suite` (every suite's runs together), or why it is unknown."""
    costs = suite_costs(results, None)
    if not costs:
        return ""
    unknown = [c.unknown for c in costs if c.cost is None]
    if unknown:
        return f", cost unknown ({unknown[0]})"
    return f", ${sum(c.cost or 0.0 for c in costs):.4f} per run of the suite"


def _facts(stats: RunStats, agent_cost: str = "") -> str:
    cost = "" if stats.estimated_cost_usd is None else f", est. ${stats.estimated_cost_usd:.4f}"
    return (
        f"{stats.duration_seconds:.1f}s; agent: {stats.agent_turns} turn(s), "
        f"{stats.agent_tokens.input}/{stats.agent_tokens.output} tokens in/out{agent_cost}; judge: {stats.judge_calls} call(s), "
        f"{stats.judge_cache_hits} cache hit(s), {stats.judge_tokens.input}/{stats.judge_tokens.output} tokens in/out{cost}"
    )
