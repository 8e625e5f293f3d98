"""The plain-text table `agenteval score` and `agenteval run` print."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.baseline import rubric_pass_rates
from ..core.digest import ScoredCase, ScoredMetric, ScoredResults
from ..schema import AdaptiveInfo, CaseResult, Outcome, RunStats, Status
from .console import PLAIN, Style, turn_details


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _mark(status: Status, style: Style) -> str:
    return style.paint(f"{status.mark:<5}", status.colour)


def _case_line(case: ScoredCase, style: Style, outcomes: Mapping[str, str]) -> str:
    """`PASS  eval_set / case`, and what the gate made of it when that is news (`regressed`)."""
    outcome = Outcome(outcomes.get(case.key, Outcome.UNCHANGED))
    tag = f"  {style.paint('<- ' + outcome.words, outcome.traits.colour)}" if outcome.traits.change else ""
    return f"{_mark(case.status, style)} {case.eval_set_id} / {case.eval_id}{tag}"


def _metric_lines(name: str, metric: ScoredMetric, style: Style) -> list[str]:
    threshold = "" if metric.threshold is None else f" (threshold {metric.threshold:g})"
    why = f"  [{metric.reason}]" if metric.reason else ""
    lines = [f"        {_mark(metric.status, style)} {name} {_score(metric.score)}{threshold}{why}"]
    lines += [f"              rubric {rubric_id}: {_score(rate)}" for rubric_id, rate in rubric_pass_rates(metric).items()]
    return lines


class Table:
    """The table, a case at a time (a big suite's cases are never all in memory): `lines` of each
    case as it comes, then the `footer`. A case is a digest, or a whole CaseResult with `detailed`
    (informational metrics and adk eval's per-turn details)."""

    def __init__(self, style: Style = PLAIN, detailed: bool = False, outcomes: Mapping[str, str] | None = None, min_runs: int | None = None) -> None:
        self.style, self.detailed, self.outcomes, self.min_runs = style, detailed, outcomes or {}, min_runs
        self.statuses = dict.fromkeys(Status, 0)
        self.unscored = self.runs = 0

    def lines(self, case: ScoredCase) -> list[str]:
        self.statuses[case.status] += 1
        self.runs += len(case.runs)
        self.unscored += sum(m.threshold is not None and m.status == Status.NOT_EVALUATED for m in case.metrics.values())
        lines = [_case_line(case, self.style, self.outcomes)]
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

    def footer(self, stats: RunStats, adaptive: AdaptiveInfo | None) -> list[str]:
        cases = sum(self.statuses.values())
        counts = self.statuses
        lines = [
            f"\n{cases} case(s): {counts[Status.PASSED]} passed, {counts[Status.FAILED]} failed, "
            f"{counts[Status.NOT_EVALUATED]} not evaluated; {self.unscored} gated metric score(s) not evaluated",
            _facts(stats),
        ]
        if adaptive:
            lines.append(f"num_runs: auto: {self.runs} run(s) over {cases} case(s), {adaptive.rounds} round(s); {adaptive.stopped}")
        return lines


def render_table(results: ScoredResults, detailed: bool = False, style: Style = PLAIN, outcomes: Mapping[str, str] | None = None) -> str:
    """One line per case (tagged with its gate outcome when `outcomes` maps case keys to them),
    its metrics below; `detailed` adds informational metrics and adk eval's per-turn details."""
    table = Table(style, detailed, outcomes, results.adaptive.min_runs if results.adaptive else None)
    lines = [line for case in results.cases for line in table.lines(case)]
    return "\n".join(lines + table.footer(results.stats, results.adaptive))


def _facts(stats: RunStats) -> str:
    cost = "" if stats.estimated_cost_usd is None else f", est. ${stats.estimated_cost_usd:.4f}"
    return (
        f"{stats.duration_seconds:.1f}s; agent: {stats.agent_turns} turn(s), "
        f"{stats.agent_tokens.input}/{stats.agent_tokens.output} tokens in/out; judge: {stats.judge_calls} call(s), "
        f"{stats.judge_cache_hits} cache hit(s), {stats.judge_tokens.input}/{stats.judge_tokens.output} tokens in/out{cost}"
    )
