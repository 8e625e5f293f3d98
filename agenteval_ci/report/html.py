"""The self-contained HTML report: inline CSS, JS and SVG, no external fetch."""

from __future__ import annotations

from collections.abc import Iterator

from ..core.digest import ScoredResults
from ..core.gate import Comparison
from ..schema import Invocation, text_of
from .diff import builtin_line, call_text
from .render import ENV
from .view import build_view

CHART_WIDTH = 320


def tool_calls(invocation: Invocation) -> list[str]:
    """The turn's tool calls, then the built-in tools its model ran (marked: they are not calls)."""
    return [call_text(c) for c in invocation.tool_calls] + [builtin_line(use) for use in invocation.builtin_tool_uses]


def render_html(comparison: Comparison, results: ScoredResults) -> str:
    return "".join(html_parts(comparison, results))


def html_parts(comparison: Comparison, results: ScoredResults) -> Iterator[str]:
    """The page in pieces as the template makes them: every case is in it, each read whole in
    turn (a batch at a time) and let go, so the page of a big suite is written, not held."""
    view = build_view(comparison, results, every_case=True)
    return ENV.get_template("report.html.j2").generate(v=view, chart_width=CHART_WIDTH, tool_calls=tool_calls, text_of=text_of)
