"""tool_trajectory_alignment_score and tool_argument_match_score through the registry."""

from __future__ import annotations

import pytest

from agenteval_ci.core.metrics import REGISTRY, MetricInput
from agenteval_ci.core.metrics.alignment import RuleBook, align
from agenteval_ci.schema import AlignedCall, EvalCase, FunctionCall, Invocation, Status, ToolArgsCriterion
from agenteval_ci.schema.content import Content, Part
from agenteval_ci.schema.eval_set import IntermediateData


def turn(*calls: tuple[str, dict]) -> Invocation:
    uses = [FunctionCall(name=name, args=args) for name, args in calls]
    return Invocation(
        invocation_id="i", user_content=Content(parts=[Part(text="hi")]), intermediate_data=IntermediateData(tool_uses=uses)
    )


def score(metric: str, expected: list[Invocation], actual: list[Invocation], **criterion):
    parsed = ToolArgsCriterion.model_validate({"threshold": 0.8, **criterion})
    case = EvalCase(eval_id="c", conversation=expected)
    return REGISTRY[metric].evaluate(MetricInput(parsed, actual, expected, case))


# A multi-agent trajectory as #2757 shows it: the root transfers, the sub-agent searches.
EXPECTED = turn(
    ("transfer_to_agent", {"agent_name": "search_agent"}),
    ("search", {"query": "Flights from Paris to Rome", "max_results": 5}),
    ("set_model_response", {"answer": "AF1234 at 09:00"}),
)


def test_identical_calls_score_one_and_the_alignment_is_kept():
    run = score("tool_trajectory_alignment_score", [EXPECTED], [EXPECTED])
    assert run.score == 1.0 and run.status == Status.PASSED
    steps = [AlignedCall.model_validate(s) for s in run.per_invocation[0].details["alignment"]]
    assert [(s.tool, s.expected_index, s.actual_index, s.similarity) for s in steps] == [
        ("transfer_to_agent", 0, 0, 1.0),
        ("search", 1, 1, 1.0),
        ("set_model_response", 2, 2, 1.0),
    ]


def test_free_text_args_cost_partial_credit_not_everything():
    actual = turn(
        ("transfer_to_agent", {"agent_name": "search_agent"}),
        ("search", {"query": "flights Paris -> Rome", "max_results": 5}),
        ("set_model_response", {"answer": "Flight AF1234 leaves at 9am"}),
    )
    strict = score("tool_trajectory_alignment_score", [EXPECTED], [actual])
    assert strict.score == pytest.approx(2 * (1 + 0.5 + 0) / 6)  # ADK's exact match gives 0
    relaxed = score(
        "tool_trajectory_alignment_score", [EXPECTED], [actual],
        tool_args={"search": {"query": "ignore"}, "set_model_response": {"answer": {"regex": r".*AF1234.*"}}},
    )
    assert relaxed.score == 1.0


def test_an_extra_transfer_costs_unless_extra_calls_are_free():
    actual = turn(
        ("transfer_to_agent", {"agent_name": "search_agent"}),
        ("transfer_to_agent", {"agent_name": "root_agent"}),
        ("search", {"query": "Flights from Paris to Rome", "max_results": 5.0}),
        ("set_model_response", {"answer": "AF1234 at 09:00"}),
    )
    assert score("tool_trajectory_alignment_score", [EXPECTED], [actual]).score == pytest.approx(6 / 7)
    assert score("tool_trajectory_alignment_score", [EXPECTED], [actual], penalize_extra_calls=False).score == 1.0


def test_a_missing_call_and_a_wrong_transfer_target():
    actual = turn(("transfer_to_agent", {"agent_name": "booking_agent"}), ("set_model_response", {"answer": "AF1234 at 09:00"}))
    run = score("tool_trajectory_alignment_score", [EXPECTED], [actual])
    assert run.score == pytest.approx(2 * (0 + 1) / 5)
    steps = [AlignedCall.model_validate(s) for s in run.per_invocation[0].details["alignment"]]
    assert [(s.tool, s.expected_index, s.actual_index) for s in steps] == [
        ("transfer_to_agent", 0, 0),  # paired although every argument differs: the report shows why
        ("search", 1, None),
        ("set_model_response", 2, 1),
    ]
    assert steps[0].arguments[0].model_dump(exclude_unset=True) == {
        "path": "agent_name", "rule": "exact", "matched": False, "expected": "search_agent", "actual": "booking_agent",
        "note": 'at agent_name: expected "search_agent", got "booking_agent" (exact)',
    }


def test_alignment_keeps_order_and_prefers_the_better_pair_of_repeated_calls():
    rules = RuleBook({})
    expected = [FunctionCall(name="get", args={"id": 2})]
    actual = [FunctionCall(name="get", args={"id": 1}), FunctionCall(name="get", args={"id": 2})]
    steps = align(expected, actual, rules)
    assert [(s.expected_index, s.actual_index) for s in steps] == [(None, 0), (0, 1)]
    swapped = align([FunctionCall(name="a"), FunctionCall(name="b")], [FunctionCall(name="b"), FunctionCall(name="a")], rules)
    assert sum(s.paired for s in swapped) == 1  # order is kept: only one of the two pairs


def test_scores_stay_in_zero_to_one_and_empty_turns_are_perfect():
    assert score("tool_trajectory_alignment_score", [turn()], [turn()]).score == 1.0
    assert score("tool_trajectory_alignment_score", [EXPECTED], [turn()]).score == 0.0
    assert score("tool_trajectory_alignment_score", [turn()], [EXPECTED]).score == 0.0


def test_argument_score_counts_arguments_per_tool_and_ignores_tool_selection():
    actual = turn(
        ("transfer_to_agent", {"agent_name": "search_agent"}),
        ("search", {"query": "Flights from Paris to Rome", "max_results": 10}),
        ("unrelated", {}),
    )
    run = score("tool_argument_match_score", [EXPECTED], [actual])
    assert run.score == pytest.approx(2 / 3)  # agent_name ok; query ok, max_results wrong; the missing call costs nothing
    assert run.details["per_tool"] == {
        "search": {"matched": 1, "total": 2, "score": 0.5},
        "transfer_to_agent": {"matched": 1, "total": 1, "score": 1.0},
    }
    tolerant = score("tool_argument_match_score", [EXPECTED], [actual], tool_args={"search": {"max_results": {"number": {"abs": 5}}}})
    assert tolerant.score == 1.0


def test_argument_score_is_not_evaluated_when_no_expected_tool_was_called():
    run = score("tool_argument_match_score", [EXPECTED], [turn(("other", {}))])
    assert run.score is None and run.status == Status.NOT_EVALUATED
    assert run.reason == "no expected tool was called, so no argument to compare"
    assert score("tool_argument_match_score", [turn()], [turn(("other", {}))]).score == 1.0


def test_both_metrics_need_a_reference():
    case = EvalCase.model_validate({"eval_id": "s", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}})
    for name in ("tool_trajectory_alignment_score", "tool_argument_match_score"):
        assert REGISTRY[name].needs_expected
        inp = MetricInput(ToolArgsCriterion(threshold=1.0), [turn()], None, case)
        assert REGISTRY[name].evaluate(inp).status == Status.NOT_EVALUATED
