"""The self-contained HTML report: inline CSS, JS and SVG, no external fetch."""

from __future__ import annotations

import json

from ..gate import Comparison
from ..schema import Invocation, text_of
from .render import ENV
from .view import ReportView, build_view

CHART_WIDTH = 320


def tool_calls(invocation: Invocation) -> list[str]:
    return [f"{c.name}({json.dumps(c.args or {}, sort_keys=True, ensure_ascii=False)})" for c in invocation.tool_calls]


def render_html_report(view: ReportView, comparison: Comparison) -> str:
    return ENV.get_template("report.html.j2").render(
        v=view, chart_width=CHART_WIDTH, tool_calls=tool_calls, text_of=text_of, tolerance=comparison.tolerance,
    )


def render_html(comparison: Comparison, results) -> str:
    return render_html_report(build_view(comparison, results, every_case=True), comparison)
