"""The PR comment and the job summary: one template, cut to a size budget deterministically.

Cases are already ordered most important first (gate._importance); we keep as many as fit,
in that order, and say how many more are in the full report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..schema import OUTCOMES, Outcome
from .render import ENV
from .view import CaseView, ReportView

COMMENT_LIMIT = 65536  # GitHub's limit on a comment body, in characters
SUMMARY_LIMIT = 1024 * 1024  # GitHub's limit on a job summary, in bytes


@dataclass(frozen=True)
class Section:
    title: str
    total: int
    shown: int
    lines: list[str]


def comment_marker(suite: str) -> str:
    return f"<!-- agenteval-ci:suite={suite} -->"


def _item(case: CaseView) -> str:
    template = "regression.md.j2" if case.outcome == Outcome.REGRESSED else "case_line.md.j2"
    return ENV.get_template(template).render(c=case).rstrip("\n")


def _render(view: ReportView, items: list[tuple[CaseView, str]], omitted: int, baseline_path: str) -> str:
    sections = []
    for outcome, traits in OUTCOMES.items():
        total = view.counts.get(outcome, 0)
        lines = [text for case, text in items if case.outcome == outcome]
        if outcome != Outcome.REGRESSED and traits.title and total:
            sections.append(Section(traits.title, total, len(lines), lines))
    regressions = [text for case, text in items if case.outcome == Outcome.REGRESSED]
    return ENV.get_template("comment.md.j2").render(
        v=view, marker=comment_marker(view.suite), regressions=regressions, sections=sections,
        omitted=omitted, baseline_path=baseline_path,
    )


def render_markdown(view: ReportView, *, baseline_path: str, limit: int, size: Callable[[str], int] = len) -> str:
    """Everything that fits within `limit` (measured by `size`), most important cases first.
    Cases are made and rendered only until the first that does not fit: the comment on a suite
    of 100,000 changed cases reads the few hundred it shows."""
    total = len(view.cases)
    skeleton = size(_render(view, [], total, baseline_path))
    budget = limit - skeleton
    items: list[tuple[CaseView, str]] = []
    for case in view.cases:
        text = _item(case)
        cost = size(text) + 64  # its line break and, at worst, its section's wrapper
        if cost > budget:
            break
        budget -= cost
        items.append((case, text))
    kept = len(items)
    while True:  # the estimate above is generous; this only guards against a wrong guess
        text = _render(view, items[:kept], total - kept, baseline_path)
        if size(text) <= limit or kept == 0:
            return text
        kept -= 1
