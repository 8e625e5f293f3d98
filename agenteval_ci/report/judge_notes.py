"""What the reports say when a judge changed since the baseline (core/judge_change.py): from
what to what, how much of the delta the judge change alone explains, and which judged deltas
could not be compared like with like and so were not gated. A user's metric whose code changed
is told the same way, in its own words."""

from __future__ import annotations

from ..core.judge_change import JudgeChange
from ..core.judge_fingerprint import USER_METRIC
from .text import fmt, fmt_delta, inline


def judge_notes(changes: tuple[JudgeChange, ...]) -> tuple[str, ...]:
    """One line per metric whose judge changed (markdown, untrusted text made inline)."""
    return tuple(_note(change) for change in changes)


def judge_alert(changes: tuple[JudgeChange, ...]) -> str:
    """WARNING when some judged delta went ungated, else NOTE."""
    return "WARNING" if any(change.not_rejudged for change in changes) else "NOTE"


def _note(change: JudgeChange) -> str:
    if change.after.model == USER_METRIC:
        return _metric_note(change)
    shown = ("provider ", "model ", "model version ")  # the labels say these already
    what = "; ".join(item for item in change.what if not item.startswith(shown))
    line = f"`{change.metric}`: judge {inline(change.before.label())} → {inline(change.after.label())}" + (f" ({inline(what)})." if what else ".")
    if change.rejudged:
        line += (f" {len(change.rejudged)} case(s) re-judged on the baseline's recorded outputs: the judge change alone moves "
                 f"their mean {fmt(change.baseline_mean)} → {fmt(change.rejudged_mean)} ({fmt_delta(change.judge_delta)}); "
                 f"of the apparent Δ {fmt_delta(change.total_delta)}, {fmt_delta(change.judge_delta)} is the judge's and "
                 f"{fmt_delta(change.agent_delta)} the agent's, which is what the gate judged.")
    if change.not_rejudged:
        first = inline(change.not_rejudged[0])
        line += (f" **{len(change.not_rejudged)} case(s) could not be re-judged** (first: {first}; the baseline holds no recorded "
                 f"outputs of them under this judge): their judged Δ {fmt(change.old_mean)} → {fmt(change.new_mean)} "
                 f"({fmt_delta(_delta(change.old_mean, change.new_mean))}) is reported, **not gated**; thresholds still apply. "
                 "Accepting these results records the new judge and the outputs.")
    return line


def _metric_note(change: JudgeChange) -> str:
    """A user's metric whose code changed (core/judge_fingerprint.py fingerprints it like a judge)."""
    line = f"`{change.metric}`: {inline('; '.join(change.what) or 'the metric changed')}."
    if change.rejudged:
        line += (f" {len(change.rejudged)} case(s) re-scored with the edited metric on the baseline's recorded outputs: the edit "
                 f"alone moves their mean {fmt(change.baseline_mean)} → {fmt(change.rejudged_mean)} ({fmt_delta(change.judge_delta)}); "
                 f"of the apparent Δ {fmt_delta(change.total_delta)}, {fmt_delta(change.judge_delta)} is the metric edit's and "
                 f"{fmt_delta(change.agent_delta)} the agent's, which is what the gate judged.")
    if change.not_rejudged:
        line += (f" **{len(change.not_rejudged)} case(s) could not be re-scored** (first: {inline(change.not_rejudged[0])}; the "
                 f"baseline holds no recorded outputs of them): their Δ {fmt(change.old_mean)} → {fmt(change.new_mean)} is reported, "
                 "**not gated**; thresholds still apply.")
    return line


def _delta(old: float | None, new: float | None) -> float | None:
    return None if old is None or new is None else new - old
