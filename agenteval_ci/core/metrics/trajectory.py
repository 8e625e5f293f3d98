"""tool_trajectory_avg_score: ADK's TrajectoryEvaluator (EXACT / IN_ORDER / ANY_ORDER)."""

from __future__ import annotations

from ...schema import FunctionCall, Invocation, MatchType, MetricRun, ToolTrajectoryCriterion
from .base import MetricInput, score_turns


def same_call(actual: FunctionCall, expected: FunctionCall, ignore_args: bool) -> bool:
    # Call ids are ignored; args compare by deep equality, so 1 == 1.0 as in ADK.
    return actual.name == expected.name and (ignore_args or actual.args == expected.args)


def exact_match(actual: list[FunctionCall], expected: list[FunctionCall], ignore_args: bool = False) -> bool:
    return len(actual) == len(expected) and all(
        same_call(a, e, ignore_args) for a, e in zip(actual, expected)
    )


def in_order_match(actual: list[FunctionCall], expected: list[FunctionCall], ignore_args: bool = False) -> bool:
    """Expected calls appear in actual in the same order; extra calls allowed in between."""
    remaining = iter(actual)
    return all(any(same_call(a, e, ignore_args) for a in remaining) for e in expected)


def any_order_match(actual: list[FunctionCall], expected: list[FunctionCall], ignore_args: bool = False) -> bool:
    """Each expected call is matched by a distinct actual call; extra calls allowed."""
    unused = list(actual)
    for e in expected:
        index = next((i for i, a in enumerate(unused) if same_call(a, e, ignore_args)), None)
        if index is None:
            return False
        del unused[index]
    return True


MATCHERS = {MatchType.EXACT: exact_match, MatchType.IN_ORDER: in_order_match, MatchType.ANY_ORDER: any_order_match}


def evaluate(inp: MetricInput) -> MetricRun:
    criterion = inp.criterion
    assert isinstance(criterion, ToolTrajectoryCriterion)
    match = MATCHERS[criterion.match_type]

    def score_turn(actual: Invocation, expected: Invocation) -> float:
        return 1.0 if match(actual.tool_calls, expected.tool_calls, criterion.ignore_args) else 0.0

    return score_turns(inp, score_turn)
