"""What a person reads in a terminal: colour, the cases that changed, adk eval's turn details.

Colour follows no-color.org and force-color.org: NO_COLOR (non-empty) turns it off,
FORCE_COLOR (non-empty) turns it on, else only a terminal gets it (never a CI log).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, TextIO

from ..core.budgets import change_text, fmt_figure
from ..schema import OUTCOMES, CaseResult, Invocation, Outcome, Status, text_of
from ..schema.labels import CaseLabels
from ..schema.settings import percent
from .diff import builtin_line, call_text
from .text import fmt, fmt_delta

if TYPE_CHECKING:
    from ..core.gate import CaseMetric, CaseOutcome, Comparison

_CODES = {"red": "31", "green": "32", "yellow": "33", "dim": "2", "bold": "1"}


def colour_wanted(stream: TextIO, env: Mapping[str, str]) -> bool:
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


@dataclass(frozen=True)
class Style:
    colour: bool = False

    @classmethod
    def of(cls, stream: TextIO, env: Mapping[str, str]) -> "Style":
        return cls(colour_wanted(stream, env))

    def paint(self, text: str, name: str) -> str:
        """`text` in the colour `name` ("" for none)."""
        return f"\x1b[{_CODES[name]}m{text}\x1b[0m" if self.colour and text and name else text


PLAIN = Style()

CASES_PER_SECTION = 20


# ---------------------------------------------------------------- the cases that changed


def _metric_changed(m: CaseMetric) -> bool:
    return m.counted or m.baseline != m.candidate or m.baseline_status != m.candidate_status


def metric_change_line(m: CaseMetric, style: Style) -> str:
    """`name  baseline → PR  (delta)  STATUS → STATUS`, in red when it counted as a regression."""
    delta = f"  ({fmt_delta(m.delta)})" if m.delta is not None else ""
    statuses = f"  {m.baseline_status or '–'} → {m.candidate_status}" if m.baseline_status != m.candidate_status else ""
    threshold = f"  threshold {m.threshold:g}" if m.threshold is not None else ""
    line = f"{m.name}  {fmt(m.baseline)} → {fmt(m.candidate)}{delta}{statuses}{threshold}"
    if not m.comparable and m.baseline is not None:
        line += "  (not comparable)"
    return style.paint(line, "red") if m.counted else line


def _case_lines(case: CaseOutcome, label: str, style: Style) -> list[str]:
    lines = [f"    {style.paint(label, 'bold')}"]
    if case.outcome not in (Outcome.NEW, Outcome.REMOVED):
        lines += [f"        {metric_change_line(m, style)}" for m in case.metrics if _metric_changed(m)]
    if case.note:
        lines.append(f"        {style.paint(case.note, 'dim')}")
    return lines


def _heading(outcome: Outcome, count: int) -> str:
    """`REGRESSED (2)`, with what the word does not say: `FLAKY (1): runs disagree`."""
    change = OUTCOMES[outcome].change or ""
    detail = change.removeprefix(outcome.words).strip(" ()") if change.startswith(outcome.words) else change
    return f"{outcome.word} ({count})" + (f": {detail}" if detail else "")


def render_changes(comparison: Comparison, style: Style = PLAIN, per_section: int = CASES_PER_SECTION) -> str:
    """Every changed case by outcome with its metrics baseline → PR; empty when nothing changed."""
    sections = []
    labels = CaseLabels(comparison.cases)
    for outcome, traits in OUTCOMES.items():
        total = comparison.counts.get(outcome, 0)
        if not total or traits.change is None:
            continue
        lines = [f"  {style.paint(_heading(outcome, total), traits.colour)}"]
        for case in islice(comparison.cases.of(outcome), per_section):
            lines += _case_lines(case, labels.label_of(case), style)
        if total > per_section:
            lines.append(f"    … {total - per_section} more (agenteval report RESULTS --format html lists every case)")
        sections.append("\n".join(lines))
    return "changes from the baseline:\n" + "\n".join(sections) if sections else ""


def render_budgets(comparison: Comparison, style: Style = PLAIN) -> str:
    """Each budget: baseline → PR per run of the suite, the change against what is allowed; the
    cases that drove a breach under it. Empty when no budget is set."""
    lines = []
    for b in comparison.budgets:
        verdict = {"breached": style.paint("over budget", "red"), "no baseline": "no baseline figures",
                   "not measured": style.paint("not measured", "yellow"), "figures lost": style.paint("figures lost", "red")}.get(b.verdict, "within budget")
        verdict = style.paint("within budget, unsure", "yellow") if b.doubtful else verdict
        figures = f"{fmt_figure(b.key, b.baseline_total)} → {fmt_figure(b.key, b.candidate_total)} ({change_text(b.increase)})" if b.cases else "–"
        lines.append(f"  {b.suite} {b.key} ({b.what}, the cases summed): {figures}, allowed {percent(b.budget)}: {verdict}")
        if b.reason and not b.breached:
            lines.append(f"    {style.paint(b.reason, 'dim')}")
        for d in b.drivers if b.breached else ():
            lines.append(f"    {d.case}: {fmt_figure(b.key, d.baseline)} → {fmt_figure(b.key, d.candidate)} ({change_text(None if d.baseline == 0 else d.rise)})")
    return "budgets:\n" + "\n".join(lines) if lines else ""


# ---------------------------------------------------------------- adk eval's per-turn details

LABEL_WIDTH = 28  # values start after `tool_trajectory_avg_score: `; a longer label pushes its own value right
VALUE_WIDTH = 90


def _field(label: str, value: str, indent: str) -> list[str]:
    wrapped = [piece for line in (value.splitlines() or ["(none)"]) for piece in (textwrap.wrap(line, VALUE_WIDTH) or [""])]
    prefix = f"{indent}{label}: ".ljust(len(indent) + LABEL_WIDTH)
    return [prefix + wrapped[0]] + [" " * len(prefix) + piece for piece in wrapped[1:]]


def _calls(invocation: Invocation | None) -> str:
    if invocation is None:
        return ""
    lines = [call_text(c) for c in invocation.tool_calls] + [builtin_line(use) for use in invocation.builtin_tool_uses]
    return "\n".join(lines) or "(none)"


def _answers(invocation: Invocation | None) -> str:
    """The intermediate responses, `author: text` one a line."""
    return "\n".join(f"{author}: {text}" for author, text in invocation.intermediate_responses) if invocation else ""


def _turn_scores(case: CaseResult, run_index: int, turn: int, style: Style) -> list[tuple[str, str]]:
    fields = []
    for name, metric in case.metrics.items():
        run = metric.runs[run_index] if run_index < len(metric.runs) else None
        if run is None or turn >= len(run.per_invocation):
            continue
        score = run.per_invocation[turn]
        if score.status == Status.INFORMATIONAL and score.score is None:
            continue  # a figure this agent does not report (tokens of a Python callable)
        status = "" if score.status == Status.INFORMATIONAL else f" {style.paint(score.status.value, score.status.colour)}"
        reason = f"  [{score.reason}]" if score.reason else ""
        fields.append((name, f"{fmt(score.score)}{status}{reason}"))
        for verdict in score.rubric_scores or []:
            why = f" ({verdict.rationale})" if verdict.rationale else ""
            fields.append((f"  rubric {verdict.rubric_id}", f"{fmt(verdict.score, 0)}{why}"))
    return fields


def _run_header(case: CaseResult, run_index: int, style: Style) -> str:
    """`run 1 of 3: metric score, ...`: every metric's score on this run, errors in red."""
    runs = [(name, m.runs[run_index]) for name, m in case.metrics.items() if run_index < len(m.runs)]
    scores = [f"{name} {fmt(r.score)}" for name, r in runs if r.score is not None or r.status != Status.INFORMATIONAL]
    run = case.runs[run_index]
    error = f"  {style.paint('error: ' + run.error, 'red')}" if run.error else ""
    return f"        run {run_index + 1} of {len(case.runs)}: {', '.join(scores)}{error}"


def turn_details(case: CaseResult, style: Style = PLAIN) -> list[str]:
    """Per run and turn, as adk eval prints them: the prompt, expected vs actual response and
    tool calls, and each metric's score on the turn (fields with no value are left out)."""
    expected = case.eval_case.conversation or []
    lines = []
    for run_index, run in enumerate(case.runs):
        lines.append(_run_header(case, run_index, style))
        for turn, actual in enumerate(run.invocations):
            want = expected[turn] if turn < len(expected) else None
            lines.append(style.paint(f"          turn {turn + 1} of {len(run.invocations)}", "dim"))
            fields = [("prompt", text_of(actual.user_content))]
            if want is not None:
                fields.append(("expected_response", text_of(want.final_response)))
            fields.append(("actual_response", text_of(actual.final_response)))
            if _answers(want) or _answers(actual):  # sub-agents' answers, texts between calls
                fields += [("expected_intermediate", _answers(want))] if want is not None else []
                fields.append(("actual_intermediate", _answers(actual)))
            if want is not None:
                fields.append(("expected_tool_calls", _calls(want)))
            fields.append(("actual_tool_calls", _calls(actual)))
            fields += _turn_scores(case, run_index, turn, style)
            for label, value in fields:
                lines += _field(label, value, "            ")
    return lines
