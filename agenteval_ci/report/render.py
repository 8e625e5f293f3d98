"""The jinja2 environment shared by every template (StrictUndefined: a typo is an error)."""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..schema import Outcome
from .text import fenced, fmt, fmt_delta, inline


def outcome_word(outcome: str) -> str:
    """An outcome's value (`newly_failing`) as every report names it (`NEWLY FAILING`)."""
    return Outcome(outcome).word


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("agenteval_ci.report", "templates"),
        undefined=StrictUndefined,
        autoescape=lambda name: name is not None and ".html" in name,  # report.html.j2
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(inline=inline, fenced=fenced, score=fmt, delta=fmt_delta, outcome_word=outcome_word)
    return env


ENV = environment()
