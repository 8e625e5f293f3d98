"""Formatting and escaping shared by the view and the templates."""

from __future__ import annotations

import re


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_delta(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"


def fmt_rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def inline(text: object) -> str:
    """Untrusted text on one markdown line: no HTML, no table breaks, no code spans."""
    value = " ".join(str(text).split())
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("`", "'")


def fenced(text: str, lang: str = "") -> str:
    """A code block whose fence is longer than any backtick run inside, so agent output cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"
