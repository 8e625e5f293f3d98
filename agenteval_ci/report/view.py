"""What every report shows, computed once from a comparison and its results (pure).

Templates only lay these records out; numbers are formatted here so the comment, the
summary and the HTML report agree to the digit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice

import pydantic

from ..core.budgets import BudgetSummary, SuiteCost, change_text, fmt_figure
from ..core.digest import Fetch, ScoredCase, ScoredResults
from ..core.gate import Advisory, CaseMetric, CaseOutcome, CaseOutcomes, Comparison, MetricSummary
from ..core.head_to_head import HeadToHead
from ..schema import AlignedCall, ArgumentCheck, CaseResult, Invocation, MetricResult, Outcome, RunRecord, Status, Verdict
from ..schema.labels import SEPARATOR, CaseLabels
from ..schema.settings import percent
from ..schema.vocabulary import case_words
from .diff import aligned_trajectory_diff, intermediate_diff, response_diff, state_diff, trajectory_diff
from .judge_notes import judge_alert, judge_notes
from .judged_blind import judged_blind_warnings
from .text import fmt, fmt_delta, fmt_rate, inline

RATIONALE_CHARS = 600
RERUNS_SHOWN = 50  # num_runs: auto: re-run cases listed in the comment, most runs first
LOST_SHOWN = 10  # head to head: lost cases shown with both answers
ANSWER_CHARS = 500  # of each answer, in the comment
ADVISED_SHOWN = 20  # a warn-only part's cases listed in the comment, most important first
ADVISORY_TITLES = {
    "warn": "Warn only (gate.metrics severity: warn): reported, never fails the check",
    "report": "Report only (gate.metrics severity: report): shown, not judged",
}


@dataclass(frozen=True)
class RubricRow:
    rubric_id: str
    baseline: str
    pr: str
    cases: int


@dataclass(frozen=True)
class MetricRow:
    name: str
    baseline: str
    pr: str
    delta: str
    ci: str
    verdict: str
    detail: str
    rubrics: tuple[RubricRow, ...]
    baseline_value: float | None
    pr_value: float | None


@dataclass(frozen=True)
class BudgetRow:
    """One budget of one suite: baseline → PR per run of the suite, and the cases that drove it."""

    suite: str
    key: str
    what: str
    baseline: str
    pr: str
    change: str
    allowed: str
    verdict: str
    detail: str
    cases: tuple[str, ...]  # `case: baseline → PR (+x%)`, the largest rises first
    breached: bool
    unsure: bool = False  # within only because the rise is not beyond noise: the detail says what would settle it


@dataclass(frozen=True)
class Fact:
    label: str
    value: str


@dataclass(frozen=True)
class CaseView:
    key: str
    label: str  # `suite / eval_set / case`, for people (schema/labels.py)
    name: str  # the case's own part of the label: its eval_id, or its file's name
    eval_id: str
    outcome: str
    word: str  # what leads the case: `REGRESSED`, `NEW (FAIL)`, `PASS` (vocabulary.case_words)
    status: str
    note: str
    metrics: tuple[CaseMetric, ...]
    counted: tuple[str, ...]  # metrics that made it a regression
    trajectory_diff: str
    trajectory_aligned: bool  # drawn from our alignment metrics, argument by argument
    argument_tally: str  # tool_argument_match_score per tool on the shown run, e.g. "search 1/2"
    response_diff: str
    intermediate_diff: str  # the answers on the way (sub-agents', texts between calls): author and text
    state_diff: str  # session_state_match on the shown run, key by key, when a key differs
    rationale: str
    result: CaseResult | None  # None for removed cases


@dataclass(frozen=True)
class LostCase:
    """A case the PR's answer lost head to head: the two answers of its worst turn, side by side."""

    label: str
    baseline: str
    pr: str


@dataclass(frozen=True)
class HeadToHeadView:
    line: str  # wins, ties, losses, net with its interval
    lost: tuple[LostCase, ...]  # the first LOST_SHOWN
    lost_total: int


@dataclass(frozen=True)
class AdvisoryView:
    """The metrics of one non-blocking severity, apart from the blocking ones."""

    title: str
    reasons: tuple[str, ...]
    metrics: tuple[MetricRow, ...]
    cases: tuple[CaseView, ...]  # the first ADVISED_SHOWN
    cases_total: int


@dataclass(frozen=True)
class ReportView:
    suite: str
    verdict: str
    alert: str
    headline: str
    reasons: tuple[str, ...]
    has_baseline: bool
    metrics: tuple[MetricRow, ...]
    cases: CaseViews
    counts: dict[str, int]
    facts: tuple[Fact, ...]
    baseline_edited: bool
    accepted_by: str
    confidence: str
    warnings: tuple[str, ...] = ()  # e.g. a judged metric that went without the agent's context
    reruns: tuple[Fact, ...] = ()  # num_runs: auto: case key -> how many runs and why
    reruns_total: int = 0
    judge_changes: tuple[str, ...] = ()  # metrics whose judge changed since the baseline (judge_notes.py)
    judge_alert: str = "NOTE"
    budgets: tuple[BudgetRow, ...] = ()  # gate.budgets
    policy: tuple[str, ...] = ()  # gate.metrics' rules in words, when any differs from the defaults
    advisories: tuple[AdvisoryView, ...] = ()
    head_to_head: tuple[HeadToHeadView, ...] = ()


FETCH_BATCH = 256  # cases read whole at once for a report: the diffs of a big suite stream through


@dataclass(frozen=True)
class CaseViews:
    """A report's cases, most important first, each made when it is read (its whole case read
    from the results a batch at a time): a report of 100,000 cases never holds them all, and the
    PR comment reads only as many as fit. `every_case` keeps the cases of untitled outcomes
    (unchanged) too."""

    outcomes: CaseOutcomes
    counts: Mapping[str, int]
    every_case: bool
    fetch: Fetch
    labels: CaseLabels

    def _shown(self, outcome: str) -> bool:
        return self.every_case or bool(Outcome(outcome).traits.title)

    def __len__(self) -> int:
        return len(self.outcomes) if self.every_case else sum(n for o, n in self.counts.items() if self._shown(o))

    def __iter__(self) -> Iterator[CaseView]:
        shown = (o for o in self.outcomes if self._shown(o.outcome))
        while batch := list(islice(shown, FETCH_BATCH)):
            whole = self.fetch([o.key for o in batch if o.outcome != Outcome.REMOVED])
            for outcome in batch:
                yield case_view(outcome, whole.get(outcome.key), self.labels.label_of(outcome))


def _verdict_cell(summary: MetricSummary) -> str:
    return {"regressed": "🔴 regressed", "improved": "🟢 improved"}.get(summary.verdict, summary.verdict)


def _metric_row(s: MetricSummary, confidence: float) -> MetricRow:
    ci = "–" if s.ci_low is None else f"[{s.ci_low:+.3f}, {s.ci_high:+.3f}]"
    detail = f"{s.cases} comparable case(s), {s.mode}; pass→fail {s.flips_down}, fail→pass {s.flips_up}" if s.cases else ""
    if s.hard_breaks:
        detail += f"; {s.hard_breaks} hard break(s)"
    if s.evidence is not None:
        detail += f"; sequential evidence {s.evidence:.3g} (fails at {s.evidence_bar:g})"
    if s.unsure and s.verdict != "regressed":
        detail += f"; {len(s.unsure)} case(s) still unsure when the runs ended (first: {s.unsure[0]}), the evidence not leaning toward a drop"
    rubrics = tuple(RubricRow(r.rubric_id, fmt_rate(r.baseline_rate), fmt_rate(r.candidate_rate), r.cases) for r in s.rubrics)
    return MetricRow(s.name, fmt(s.baseline_mean), fmt(s.candidate_mean), fmt_delta(s.delta), ci, _verdict_cell(s), detail, rubrics, s.baseline_mean, s.candidate_mean)


_BUDGET_VERDICTS = {"breached": "🔴 over budget", "within": "within budget", "no baseline": "no baseline figures", "not measured": "🟡 not measured", "figures lost": "🔴 figures lost"}


def _budget_row(s: BudgetSummary) -> BudgetRow:
    detail = s.reason or (f"{s.cases} case(s), {s.mode}" if s.cases else "")
    if s.lost:
        detail += f"; {len(s.lost)} case(s) lost the figure (first: {s.lost[0]})"
    cases = tuple(f"{d.case}: {fmt_figure(s.key, d.baseline)} → {fmt_figure(s.key, d.candidate)} ({change_text(None if d.baseline == 0 else d.rise)})"
                  for d in s.drivers)
    return BudgetRow(s.suite, s.key, s.what, fmt_figure(s.key, s.baseline_total), fmt_figure(s.key, s.candidate_total),
                     change_text(s.increase) if s.cases else "–", percent(s.budget), "🟡 within budget, unsure" if s.doubtful else _BUDGET_VERDICTS.get(s.verdict, s.verdict), detail, cases, s.breached,
                     s.doubtful)


def _cost_facts(costs: tuple[SuiteCost, ...]) -> list[Fact]:
    """The agent's model cost per run of each suite, and baseline → PR over the cases both priced."""
    facts = []
    for c in costs:
        label = "agent cost per run" if len(costs) == 1 else f"agent cost per run ({c.suite})"
        value = f"${c.cost:.4f}" if c.cost is not None else f"unknown: {c.unknown}"
        if c.baseline is not None and c.paired is not None:
            value += f"; baseline → PR over {c.cases} case(s): ${c.baseline:.4f} → ${c.paired:.4f} ({change_text(c.change)})"
        facts.append(Fact(label, value))
    return facts


def _worst_run(result: CaseResult, metric: str | None) -> RunRecord | None:
    """The run to show: the lowest-scoring one on the metric that matters."""
    if not result.runs:
        return None
    scored = result.metrics.get(metric) if metric else None
    if scored is None or len(scored.runs) != len(result.runs):
        return result.runs[0]
    scores = [r.score if r.score is not None else 2.0 for r in scored.runs]
    return result.runs[scores.index(min(scores))]


def _rationale(metrics: list[MetricResult]) -> str:
    """The judge's words on what failed: failed rubrics first, then per-turn reasons, then a user
    metric's explanation of a failed run (core/metrics/user.py keeps it in the run's details)."""
    lines: list[str] = []
    for metric in metrics:
        for run in metric.runs:
            lines += [f"{v.rubric_id}: {v.rationale}" for v in run.rubric_scores or [] if v.score == 0 and v.rationale]
            lines += [p.reason for p in run.per_invocation if p.reason and p.status == Status.FAILED]
            explanation = (run.details or {}).get("explanation")
            if isinstance(explanation, str) and run.status == Status.FAILED:
                lines.append(explanation)
    unique = list(dict.fromkeys(line.strip() for line in lines if line.strip()))
    text = "\n".join(unique)
    return text if len(text) <= RATIONALE_CHARS else text[: RATIONALE_CHARS - 1] + "…"


def _expected(result: CaseResult) -> list[Invocation]:
    return result.eval_case.conversation or []


ALIGNING_METRICS = ("tool_trajectory_alignment_score", "tool_argument_match_score")


def _alignments(result: CaseResult, run: RunRecord) -> list[list[AlignedCall] | None] | None:
    """The shown run's alignment, turn by turn, from the first aligning metric that scored it."""
    index = result.runs.index(run)
    for name in ALIGNING_METRICS:
        metric = result.metrics.get(name)
        if metric is None or len(metric.runs) != len(result.runs) or not metric.runs[index].per_invocation:
            continue
        turns: list[list[AlignedCall] | None] = []
        for turn in metric.runs[index].per_invocation:
            raw = (turn.details or {}).get("alignment")
            try:
                turns.append(None if raw is None else [AlignedCall.model_validate(step) for step in raw])
            except pydantic.ValidationError:
                turns.append(None)  # a results file from elsewhere: fall back to the name diff
        return turns
    return None


def _trajectory(result: CaseResult, run: RunRecord | None, expected: list[Invocation], actual: list[Invocation]) -> tuple[str, bool]:
    alignments = _alignments(result, run) if run is not None else None
    if alignments is None:
        return trajectory_diff(expected, actual), False
    return aligned_trajectory_diff(expected, actual, alignments), True


def _argument_tally(result: CaseResult, run: RunRecord | None) -> str:
    """Matched / compared arguments per tool on the shown run, from tool_argument_match_score."""
    metric = result.metrics.get("tool_argument_match_score")
    if run is None or metric is None or len(metric.runs) != len(result.runs):
        return ""
    per_tool = (metric.runs[result.runs.index(run)].details or {}).get("per_tool") or {}
    parts = [
        f"`{inline(tool)}` {counts.get('matched', 0)}/{counts.get('total', 0)}"
        for tool, counts in per_tool.items()
        if isinstance(counts, dict)
    ]
    return ", ".join(parts)


def _state_diff(result: CaseResult, run: RunRecord | None) -> str:
    """The shown run's final session state against the expected one, from session_state_match."""
    metric = result.metrics.get("session_state_match")
    if run is None or metric is None or len(metric.runs) != len(result.runs):
        return ""
    raw = (metric.runs[result.runs.index(run)].details or {}).get("state") or []
    try:
        return state_diff([ArgumentCheck.model_validate(check) for check in raw])
    except pydantic.ValidationError:
        return ""  # a results file from elsewhere: no diff rather than a wrong one


def case_view(outcome: CaseOutcome, result: CaseResult | None, label: str) -> CaseView:
    worse = outcome.worse_metrics
    run = _worst_run(result, worse[0] if worse else None) if result else None
    actual = run.invocations if run else []
    expected = _expected(result) if result else []
    show_diffs = result is not None and Outcome(outcome.outcome).traits.shows_diff
    trajectory, aligned = _trajectory(result, run, expected, actual) if result is not None and show_diffs and expected else ("", False)
    word, _ = case_words(Outcome(outcome.outcome), Status(outcome.status) if outcome.status else None)
    return CaseView(
        key=outcome.key,
        label=label,
        name=label.rsplit(SEPARATOR, 1)[-1],
        eval_id=outcome.eval_id,
        outcome=outcome.outcome,
        word=word,
        status=outcome.status or "–",
        note=outcome.note,
        metrics=outcome.metrics,
        counted=tuple(outcome.counted),
        trajectory_diff=trajectory,
        trajectory_aligned=aligned,
        argument_tally=_argument_tally(result, run) if result is not None and show_diffs else "",
        response_diff=response_diff(expected, actual) if result is not None and show_diffs and result.eval_case.conversation else "",
        intermediate_diff=intermediate_diff(expected, actual) if result is not None and show_diffs and result.eval_case.conversation else "",
        state_diff=_state_diff(result, run) if result is not None and show_diffs else "",
        rationale=_rationale([result.metrics[n] for n in worse]) if result else "",
        result=result,
    )


def _facts(results: ScoredResults, costs: tuple[SuiteCost, ...] = ()) -> tuple[Fact, ...]:
    s = results.stats
    runs = sum(len(c.runs) for c in results.cases)
    facts = [
        Fact("cases", str(len(results.cases))),
        Fact("runs", _runs_fact(results, runs)),
        Fact("duration", f"{s.duration_seconds:.1f}s"),
        Fact("agent turns", str(s.agent_turns)),
        Fact("agent tokens", f"{s.agent_tokens.input} in / {s.agent_tokens.output} out"),
        Fact("judge calls", str(s.judge_calls)),
        Fact("judge tokens", f"{s.judge_tokens.input} in / {s.judge_tokens.output} out"),
        Fact("judge cache hits", f"{s.judge_cache_hits} of {s.judge_cache_hits + s.judge_cache_misses}"),
    ]
    facts += _cost_facts(costs)
    if s.estimated_cost_usd is not None:
        facts.append(Fact("judge cost (estimated)", f"${s.estimated_cost_usd:.2f}"))
    if results.commit:
        facts.append(Fact("commit", results.commit[:12]))
    return tuple(facts)


_NO_APP_DETAILS = "their turns carry no app_details (an ADK agent records them; a Python agent can return them, see docs/metrics.md)"
# What a judge may go without (MetricResult.judged_without): its name in words, and why.
_WENT_WITHOUT = {
    "instructions": ("the agent's instructions", _NO_APP_DETAILS),
    "tool_declarations": ("its tool declarations", _NO_APP_DETAILS),
    "tool_responses": ("the tools' responses", "their tool calls have no recorded response (a Python agent can return each call's `response`, see docs/config.md)"),
    "intermediate_texts": ("the agent's texts between tool calls", "their Python agent returned tool calls without `steps` (see docs/config.md)"),
    "media": ("the conversation's images and files", "the judge's prompt is text only, as google-adk's, unless judge.media is `send` and "
              "the judge model takes them within judge.media_max_bytes; each run's details.media_withheld says why (docs/judge.md, \"Images and files\")"),
}


def judged_without_text(missing: Iterable[str]) -> str:
    """`the agent's instructions and ... : why`, for what a judge went without."""
    items = list(dict.fromkeys(missing))
    names = " and ".join(_WENT_WITHOUT.get(item, (item, ""))[0] for item in items)
    causes = "; ".join(dict.fromkeys(_WENT_WITHOUT[item][1] for item in items if item in _WENT_WITHOUT))
    return f"{names}: {causes}" if causes else names


def _runs_fact(results: ScoredResults, runs: int) -> str:
    plan = results.adaptive
    if plan is None:
        return f"{runs} ({results.num_runs} per case)"
    mean = runs / len(results.cases) if results.cases else 0.0
    return f"{runs} (num_runs: auto, {mean:.2f} per case, {plan.rounds} round(s); {plan.stopped})"


def rerun_cases(results: ScoredResults) -> list[ScoredCase]:
    """num_runs: auto: the cases run more than min_runs times, most runs first."""
    if results.adaptive is None:
        return []
    again = [c for c in results.cases if len(c.runs) > results.adaptive.min_runs and c.runs_note]
    return sorted(again, key=lambda c: (-len(c.runs), c.key))


def _advisory_view(advisory: Advisory, confidence: float, labels: CaseLabels) -> AdvisoryView:
    cases = tuple(case_view(c, None, labels.label_of(c)) for c in advisory.cases[:ADVISED_SHOWN])
    return AdvisoryView(ADVISORY_TITLES[advisory.severity], advisory.reasons,
                        tuple(_metric_row(m, confidence) for m in advisory.metrics), cases, len(advisory.cases))


def head_to_head_line(h: HeadToHead) -> str:
    """`head_to_head_v1`'s record in one line: wins, ties, losses, the net win rate and its interval."""
    if h.net is None:
        return f"`{h.metric}`: not evaluated ({inline(h.reason)})"
    disagreed = f", {h.position_disagreements} of them with the judge following the position" if h.position_disagreements else ""
    verdict = {"regressed": "🔴 losses beat wins beyond chance", "improved": "🟢 wins beat losses beyond chance"}.get(h.verdict, "no credible difference")
    return (f"`{h.metric}` against the baseline's answers: {h.wins} win(s), {h.ties} tie(s){disagreed}, {h.losses} loss(es); "
            f"net {h.net:+.0%} [{h.ci_low:+.0%}, {h.ci_high:+.0%}]; sign test p = {h.p_loss:.3g} (fails at ≤ {h.alpha:g}): {verdict}")


def _answers(result: CaseResult | None, metric: str) -> tuple[str, str] | None:
    """The baseline's and the PR's answers of the case's worst judged turn."""
    found = result.metrics.get(metric) if result else None
    turns = [t for run in (found.runs if found else []) for t in run.per_invocation if t.score is not None and t.details]
    if not turns:
        return None
    worst = min(turns, key=lambda t: t.score if t.score is not None else 1.0)
    details = worst.details or {}
    return str(details.get("baseline_response", "")), str(details.get("pr_response", ""))


def _clip(text: str) -> str:
    return inline(text if len(text) <= ANSWER_CHARS else text[: ANSWER_CHARS - 1] + "…")


def _head_to_head_view(h: HeadToHead, fetch: Fetch, labels: CaseLabels) -> HeadToHeadView:
    shown = list(h.lost[:LOST_SHOWN])
    whole = fetch(shown)
    lost = []
    for key in shown:
        result = whole.get(key)
        answers = _answers(result, h.metric)
        if result is not None and answers is not None:
            lost.append(LostCase(labels.label_of(result), _clip(answers[0]), _clip(answers[1])))
    return HeadToHeadView(head_to_head_line(h), tuple(lost), len(h.lost))


def _headline(comparison: Comparison, suite: str) -> tuple[str, str]:
    if not comparison.has_baseline:
        state = Verdict(comparison.verdict)
        return "WARNING" if state is Verdict.FAILED else "NOTE", f"agenteval {state} on thresholds only: suite `{suite}` has no baseline yet"
    if comparison.accepted_by and comparison.verdict == Verdict.PASSED:
        return "TIP", f"agenteval passed against the baseline @{comparison.accepted_by} accepted on this PR (suite `{suite}`)"
    over = [f"`{b.key}`" for b in comparison.budgets if b.breached]
    if comparison.verdict == Verdict.FAILED and over and not comparison.regressions:
        return "CAUTION", f"agenteval failed: over budget on {', '.join(dict.fromkeys(over))} in suite `{suite}`"
    unknown = [f"`{b.key}`" for b in comparison.budgets if b.lost or b.verdict == "not measured"]
    if comparison.verdict == Verdict.FAILED and unknown and not comparison.regressions:
        return "CAUTION", f"agenteval failed: budgeted figures not known now ({', '.join(dict.fromkeys(unknown))}) in suite `{suite}`"
    lost = [f"`{h.metric}`" for h in comparison.head_to_head if h.verdict == "regressed"]
    if comparison.verdict == Verdict.FAILED and lost and not comparison.regressions:
        return "CAUTION", f"agenteval failed: the PR's answers lose to the baseline's head to head ({', '.join(lost)}) in suite `{suite}`"
    if comparison.verdict == Verdict.FAILED:
        return "CAUTION", f"agenteval failed: {comparison.regressions} regression(s) in suite `{suite}`"
    if comparison.reasons:  # fail_on never: would have failed
        return "WARNING", f"agenteval passed (report only): {comparison.regressions} regression(s) in suite `{suite}`"
    return "TIP", f"agenteval passed: no credible regression in suite `{suite}`"


def build_view(comparison: Comparison, results: ScoredResults, suite: str | None = None, *, every_case: bool = False) -> ReportView:
    """`every_case` keeps unchanged cases too (the HTML report lists every case)."""
    name = inline(suite or ",".join(results.suites))
    labels = CaseLabels(comparison.cases, results.cases)
    alert, headline = _headline(comparison, name)
    again = rerun_cases(results)
    return ReportView(
        suite=name,
        verdict=comparison.verdict,
        alert=alert,
        headline=headline,
        reasons=comparison.reasons + tuple(f"warning (gate.not_evaluated: warn): {w}" for w in comparison.warnings),
        has_baseline=comparison.has_baseline,
        metrics=tuple(_metric_row(m, comparison.confidence) for m in comparison.metrics),
        cases=CaseViews(comparison.cases, comparison.counts, every_case, results.fetch, labels),
        counts=comparison.counts,
        facts=_facts(results, tuple(c for c in comparison.costs if suite is None or c.suite == suite)),
        baseline_edited=comparison.baseline_edited,
        accepted_by=comparison.accepted_by,
        confidence=f"{comparison.confidence:.0%}",
        warnings=tuple(judged_blind_warnings(results)),
        reruns=tuple(Fact(labels.label_of(c), c.runs_note or "") for c in again[:RERUNS_SHOWN]),
        reruns_total=len(again),
        judge_changes=judge_notes(comparison.judge_changes),
        judge_alert=judge_alert(comparison.judge_changes),
        budgets=tuple(_budget_row(b) for b in comparison.budgets if suite is None or b.suite == suite),
        policy=comparison.policy,
        advisories=tuple(_advisory_view(a, comparison.confidence, labels) for a in comparison.advisories),
        head_to_head=tuple(_head_to_head_view(h, results.fetch, labels) for h in comparison.head_to_head),
    )
