"""Renderers of results and comparisons: terminal table, PR comment, job summary, HTML, JUnit."""

from __future__ import annotations

import dataclasses
import json

from ..gate import Comparison
from ..schema import Results
from ..schema.project import DEFAULT_BASELINE
from .markdown import COMMENT_LIMIT, SUMMARY_LIMIT, comment_marker, render_markdown
from .view import build_view

__all__ = ["comment_marker", "comparison_json", "render_comment", "render_html", "render_junit", "render_summary"]


def render_comment(
    comparison: Comparison,
    results: Results,
    *,
    suite: str | None = None,
    baseline_path: str = DEFAULT_BASELINE,
    max_chars: int = COMMENT_LIMIT,
) -> str:
    view = build_view(comparison, results, suite)
    return render_markdown(view, baseline_path=baseline_path, limit=max_chars)


def render_summary(comparison: Comparison, results: Results, *, baseline_path: str = DEFAULT_BASELINE) -> str:
    view = build_view(comparison, results)
    return render_markdown(view, baseline_path=baseline_path, limit=SUMMARY_LIMIT - 1, size=lambda t: len(t.encode()))


def render_html(comparison: Comparison, results: Results) -> str:
    from .html import render_html as render

    return render(comparison, results)


def render_junit(results: Results, comparison: Comparison | None = None) -> str:
    from .junit import junit_xml

    return junit_xml(results, comparison)


def comparison_json(comparison: Comparison) -> str:
    return json.dumps(dataclasses.asdict(comparison), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
