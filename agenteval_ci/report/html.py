"""The self-contained HTML report: inline CSS, JS and SVG, no external fetch."""

from __future__ import annotations

from ..core.gate import Comparison
from ..schema import Invocation, Results, text_of
from .diff import call_text
from .render import ENV
from .view import build_view

CHART_WIDTH = 320


def tool_calls(invocation: Invocation) -> list[str]:
    return [call_text(c) for c in invocation.tool_calls]


def render_html(comparison: Comparison, results: Results) -> str:
    view = build_view(comparison, results, every_case=True)
    return ENV.get_template("report.html.j2").render(v=view, chart_width=CHART_WIDTH, tool_calls=tool_calls, text_of=text_of)
