"""Renderers of results and comparisons: terminal table, PR comment, job summary, HTML, JUnit.

Each renderer loads on first use (jinja2 and the gate's view among them): `score` and
`run` print only the table, and their start-up time is part of every CI job.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Optional

from ..schema.judge import JudgeFingerprint
from ..schema.paths import DEFAULT_BASELINE

COMPARISON_VERSION = 1  # of comparison.json

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..core.digest import ScoredResults
    from ..core.gate import Comparison

__all__ = [
    "COMPARISON_VERSION", "comment_marker", "comparison_json", "comparison_json_parts", "html_parts", "junit_parts", "render_comment", "render_html", "render_junit",
    "render_summary",
]


def comment_marker(suite: str) -> str:
    from .markdown import comment_marker as marker

    return marker(suite)


def render_comment(
    comparison: Comparison,
    results: ScoredResults,
    *,
    suite: str | None = None,
    baseline_path: str = DEFAULT_BASELINE,
    max_chars: Optional[int] = None,  # default: GitHub's limit on a comment
) -> str:
    from .markdown import COMMENT_LIMIT, render_markdown
    from .view import build_view

    view = build_view(comparison, results, suite)
    return render_markdown(view, baseline_path=baseline_path, limit=max_chars or COMMENT_LIMIT)


def render_summary(comparison: Comparison, results: ScoredResults, *, baseline_path: str = DEFAULT_BASELINE) -> str:
    from .markdown import SUMMARY_LIMIT, render_markdown
    from .view import build_view

    view = build_view(comparison, results)
    return render_markdown(view, baseline_path=baseline_path, limit=SUMMARY_LIMIT - 1, size=lambda t: len(t.encode()))


def render_html(comparison: Comparison, results: ScoredResults) -> str:
    from .html import render_html as render

    return render(comparison, results)


def html_parts(comparison: Comparison, results: ScoredResults) -> Iterator[str]:
    """render_html's text in pieces, for writing a big suite's report without holding it."""
    from .html import html_parts as parts

    return parts(comparison, results)


def render_junit(results: ScoredResults, comparison: Comparison | None = None) -> str:
    from .junit import junit_xml

    return junit_xml(results, comparison)


def junit_parts(results: ScoredResults, comparison: Comparison | None = None) -> Iterator[str]:
    """render_junit's text in pieces."""
    from .junit import junit_parts as parts

    return parts(results, comparison)


def comparison_json(comparison: Comparison) -> str:
    """comparison.json (`compare --json`, `report --format json`, the action's artifact), in the
    format docs/comparison-format.md describes; bump COMPARISON_VERSION on breaking changes."""
    return "".join(comparison_json_parts(comparison))


_CASES_AT = '\n  "cases": []'  # where the top level's cases go (sorted keys, indent 2)


def comparison_json_parts(comparison: Comparison) -> Iterator[str]:
    """comparison_json's text a case at a time, the same bytes: a 100,000-case comparison is
    never one string, nor one tree of dicts."""
    without_cases = dataclasses.replace(comparison, cases=())  # type: ignore[arg-type]  # written a case at a time below
    data = {"schema_version": COMPARISON_VERSION, **dataclasses.asdict(without_cases)}
    head, tail = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=_fingerprint_json).split(_CASES_AT)
    yield head + '\n  "cases": ['
    for i, case in enumerate(comparison.cases):
        text = json.dumps(dataclasses.asdict(case), indent=2, sort_keys=True, ensure_ascii=False, default=_fingerprint_json)
        yield ("," if i else "") + "\n    " + text.replace("\n", "\n    ")
    yield ("\n  ]" if len(comparison.cases) else "]") + tail + "\n"


def _fingerprint_json(value: object) -> object:
    """A judge's fingerprint (the one pydantic model in a comparison: `judge_changes`)."""
    if isinstance(value, JudgeFingerprint):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
