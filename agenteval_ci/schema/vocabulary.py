"""The words the files and the reports share, as types, each with one table of what it means.

A new outcome is one member and one row of OUTCOMES (the gate decides when a case gets it);
every renderer reads its label, colour, section and whether it shows a diff from the row.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional


class Status(enum.StrEnum):
    """Of a metric on a run, a metric over the runs, a case: `adk eval`'s statuses."""

    PASSED = "PASSED"
    FAILED = "FAILED"
    NOT_EVALUATED = "NOT_EVALUATED"
    INFORMATIONAL = "INFORMATIONAL"  # a figure that never passes or fails

    @property
    def mark(self) -> str:
        """Its mark in the terminal's table."""
        return STATUSES[self].mark

    @property
    def colour(self) -> str:
        return STATUSES[self].colour


@dataclass(frozen=True)
class StatusTraits:
    mark: str
    colour: str


STATUSES = {
    Status.PASSED: StatusTraits("PASS", "green"),
    Status.FAILED: StatusTraits("FAIL", "red"),
    Status.NOT_EVALUATED: StatusTraits("N/E", "yellow"),
    Status.INFORMATIONAL: StatusTraits("info", "dim"),
}


class Verdict(enum.StrEnum):
    """The gate's verdict, and the exit code that carries it."""

    PASSED = "passed"
    FAILED = "failed"

    @property
    def exit_code(self) -> int:
        return 1 if self is Verdict.FAILED else 0


class FailOn(enum.StrEnum):
    """What fails the gate (agenteval.yaml's gate.fail_on, `--fail-on`, the action's `fail-on`)."""

    REGRESSION = "regression"
    THRESHOLD = "threshold"
    NEVER = "never"

    @property
    def meaning(self) -> str:
        return FAIL_ON_MEANINGS[self]


FAIL_ON_MEANINGS = {
    FailOn.REGRESSION: "noise-aware comparison with the baseline",
    FailOn.THRESHOLD: "ADK's absolute rule",
    FailOn.NEVER: "report only",
}


class Outcome(enum.StrEnum):
    """What the gate made of one case against the baseline; listed in the order reports show them."""

    REGRESSED = "regressed"
    OVER_BUDGET = "over_budget"
    NEWLY_FAILING = "newly_failing"
    UNEVALUATED = "unevaluated"
    WORSENED = "worsened"
    FLAKY = "flaky"
    INCOMPARABLE = "incomparable"
    NEW = "new"
    REMOVED = "removed"
    FIXED = "fixed"
    IMPROVED = "improved"
    UNCHANGED = "unchanged"

    @property
    def traits(self) -> OutcomeTraits:
        return OUTCOMES[self]

    @property
    def words(self) -> str:
        """The name in words: `newly failing`."""
        return self.value.replace("_", " ")

    @property
    def word(self) -> str:
        """The word that leads a changed case's line in every report: `NEWLY FAILING`."""
        return self.words.upper()


@dataclass(frozen=True)
class OutcomeTraits:
    rank: int  # importance: cases are sorted by it, most important (lowest) first
    change: Optional[str]  # its heading among a terminal's changes; None: not a change worth listing
    title: Optional[str]  # its section's title in the PR comment; None: no section
    colour: str  # in a terminal
    fails: bool = False  # annotated on the eval set as a failure
    shows_diff: bool = False  # reports show the run's trajectory and response against the expected ones
    with_status: bool = False  # its word is followed by the case's PASS/FAIL (nothing to compare: that is the news)


OUTCOMES: dict[Outcome, OutcomeTraits] = {
    Outcome.REGRESSED: OutcomeTraits(0, "regressed", "Regressions", "red", fails=True, shows_diff=True),
    Outcome.OVER_BUDGET: OutcomeTraits(5, "over budget", "Over budget (tokens, calls, latency or cost)", "red", fails=True),
    Outcome.NEWLY_FAILING: OutcomeTraits(10, "newly failing", "Newly failing", "red", fails=True, shows_diff=True),
    Outcome.UNEVALUATED: OutcomeTraits(30, "not evaluated now (lost coverage)", "Not evaluated now (lost coverage)", "red", fails=True),
    Outcome.WORSENED: OutcomeTraits(20, "worsened", "Worsened (a score dropped by more than the tolerance)", "yellow", shows_diff=True),
    Outcome.FLAKY: OutcomeTraits(50, "flaky (runs disagree)", "Flaky (runs disagree)", "yellow", shows_diff=True),
    Outcome.INCOMPARABLE: OutcomeTraits(
        80, "incomparable (the test changed; accept to compare again)", "Incomparable: the test changed, the baseline needs accepting", "yellow",
        with_status=True,
    ),
    Outcome.NEW: OutcomeTraits(90, "new", "New cases", "dim", shows_diff=True, with_status=True),
    Outcome.REMOVED: OutcomeTraits(100, "removed", "Removed cases", "dim"),
    Outcome.FIXED: OutcomeTraits(40, "fixed", "Fixed", "green"),
    Outcome.IMPROVED: OutcomeTraits(60, "improved", "Improved", "green"),
    Outcome.UNCHANGED: OutcomeTraits(70, None, None, ""),
}
BY_RANK = tuple(sorted(Outcome, key=lambda o: OUTCOMES[o].rank))  # the gate's counts and sort order


def case_words(outcome: Outcome | None, status: Status | None) -> tuple[str, str]:
    """What leads a case's line, and its colour: the outcome's word when the gate made news of
    the case (`REGRESSED`, `FIXED`, `NEW (FAIL)`), else its status (`PASS`). A status never
    follows an outcome it could contradict: a regressed case whose scores still pass is
    `REGRESSED`, never `PASS ... regressed`."""
    if outcome is not None and OUTCOMES[outcome].change is not None:
        traits = OUTCOMES[outcome]
        shown = f"{outcome.word} ({status.mark})" if traits.with_status and status is not None else outcome.word
        return shown, traits.colour
    if status is None:
        return "–", ""
    return status.mark, status.colour
