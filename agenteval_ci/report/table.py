"""The plain-text table `agenteval score` and `agenteval run` print."""

from __future__ import annotations

from ..core.baseline import rubric_pass_rates
from ..core.budgets import suite_costs
from ..schema import CaseResult, MetricResult, Outcome, Results, RunStats, Status
from ..schema.labels import case_labels
from ..schema.vocabulary import case_words
from .console import PLAIN, Style, turn_details

MARK_WIDTH = 5  # `PASS `: a case's or a metric's status


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _mark(status: Status, style: Style) -> str:
    return style.paint(f"{status.mark:<{MARK_WIDTH}}", status.colour)


def _lead(case: CaseResult, outcomes: dict[str, str]) -> tuple[str, str]:
    """The case's word (`REGRESSED` when the gate made news of it, else `PASS`/`FAIL`) and its colour."""
    outcome = outcomes.get(case.key)
    return case_words(Outcome(outcome) if outcome else None, case.status)


def _case_line(word: str, colour: str, width: int, label: str, style: Style) -> str:
    """`REGRESSED  suite / eval_set / case`: the word leads, padded so the labels line up."""
    return f"{style.paint(f'{word:<{width}}', colour)} {label}"


def _metric_lines(name: str, metric: MetricResult, style: Style) -> list[str]:
    threshold = "" if metric.threshold is None else f" (threshold {metric.threshold:g})"
    why = f"  [{metric.reason}]" if metric.reason else ""
    lines = [f"        {_mark(metric.status, style)} {name} {_score(metric.score)}{threshold}{why}"]
    lines += [f"              rubric {rubric_id}: {_score(rate)}" for rubric_id, rate in rubric_pass_rates(metric).items()]
    return lines


def render_table(results: Results, detailed: bool = False, style: Style = PLAIN, outcomes: dict[str, str] | None = None) -> str:
    """One line per case (tagged with its gate outcome when `outcomes` maps case keys to them),
    its metrics below; `detailed` adds informational metrics and adk eval's per-turn details."""
    lines = []
    labels = case_labels(results.cases)
    leads = [_lead(case, outcomes or {}) for case in results.cases]
    width = max([MARK_WIDTH, *(len(word) + 1 for word, _ in leads)])
    for case, (word, colour) in zip(results.cases, leads):
        lines.append(_case_line(word, colour, width, labels[case.key], style))
        # When every run failed, the reason line says why; its unscored metrics would only repeat it.
        ran = not case.runs or any(not run.error for run in case.runs)
        for name, metric in case.metrics.items():
            if (metric.status != Status.INFORMATIONAL or detailed) and (ran or metric.status != Status.NOT_EVALUATED):
                lines += _metric_lines(name, metric, style)
        if case.status == Status.FAILED and case.reason:
            lines.append(f"        reason: {case.reason}")
        if results.adaptive and len(case.runs) > results.adaptive.min_runs and case.runs_note:
            lines.append(f"        runs: {case.runs_note}")
        if detailed:
            lines += turn_details(case, style)
    counts = {s: sum(c.status == s for c in results.cases) for s in Status}
    lines.append(
        f"\n{len(results.cases)} case(s): {counts[Status.PASSED]} passed, {counts[Status.FAILED]} failed, "
        f"{counts[Status.NOT_EVALUATED]} not evaluated; {_unscored(results)} gated metric score(s) not evaluated"
    )
    lines.append(_facts(results.stats, _agent_cost(results)))
    if results.adaptive:
        plan = results.adaptive
        runs = sum(len(c.runs) for c in results.cases)
        lines.append(f"num_runs: auto: {runs} run(s) over {len(results.cases)} case(s), {plan.rounds} round(s); {plan.stopped}")
    return "\n".join(lines)


def _unscored(results: Results) -> int:
    return sum(m.threshold is not None and m.status == Status.NOT_EVALUATED for c in results.cases for m in c.metrics.values())


def _agent_cost(results: Results) -> str:
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
