"""Argument rules at their edges (issue 24): numbers past float range, NaN, bool vs int, lenient
strings, regexes that backtrack or are too large, list pairing by a maximum matching, and
alignment ties decided exactly. Each case states the rule as docs/metrics.md words it."""

from __future__ import annotations

import json
import time

import pydantic
import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.metrics import REGISTRY, MetricInput
from agenteval_ci.core.metrics.alignment import RuleBook, align
from agenteval_ci.core.metrics.arg_match import REGEX_TIME_LIMIT, ToolRuleSet, compare_args
from agenteval_ci.schema import EvalCase, FunctionCall, Invocation, ToolArgsCriterion
from agenteval_ci.schema.content import Content
from agenteval_ci.schema.eval_set import IntermediateData


def rules(tool_rules: dict, tool: str = "t", every_tool: dict | None = None) -> ToolRuleSet:
    tool_args = {tool: tool_rules, **({"*": every_tool} if every_tool else {})}
    return ToolRuleSet(ToolArgsCriterion.model_validate({"threshold": 1.0, "tool_args": tool_args}).tool_args, tool)


def matched(expected, actual, rule) -> bool:
    (check,) = compare_args({"x": expected}, {"x": actual}, rules({"x": rule}))
    return check.matched


def note(expected, actual, rule) -> str:
    (check,) = compare_args({"x": expected}, {"x": actual}, rules({"x": rule}))
    return check.note


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    "expected, actual, options, result",
    [
        (10**400, 10**400, {}, True),
        (10**400, 10**400 + 1, {}, False),  # exact: no rounding to float
        (10**400, 10**400 + 1, {"abs": 1}, True),
        (10**400, 10**400 + 10**398, {"rel": 0.01}, True),
        (10**400, 10**400 + 10**398 + 1, {"rel": 0.01}, False),
        (10**400, 1e308, {"rel": 0.5}, False),
        (1.0, 1.3, {"abs": 0.3}, True),  # decimal, as written: in floating point 1.3 - 1.0 > 0.3
        (1.1, 1.2, {"abs": 0.1}, True),
        (0.1 + 0.2, 0.3, {}, False),  # 0.30000000000000004 is written with more digits than 0.3
        (21, 21.0, {}, True),
        (-0.0, 0.0, {}, True),
        (1, True, {"abs": 5}, False),  # a bool is not a number
        (float("nan"), float("nan"), {"abs": 1e300}, False),
        (float("inf"), float("inf"), {}, True),
        (float("inf"), float("-inf"), {"abs": 1e300}, False),
        (1e308, float("inf"), {"rel": 1}, False),
    ],
)
def test_number_compares_exact_decimals_of_any_size(expected, actual, options, result):
    assert matched(expected, actual, {"number": options}) is result


def test_nan_says_why_it_failed():
    assert note(float("nan"), float("nan"), "number").endswith("(number; NaN matches nothing)")


@pytest.mark.parametrize(
    "text, result",
    [("19", True), (" 19\n", True), ("+19", True), ("19.", True), ("19.000", True), ("1.9e1", True), ("190e-1", True),
     ("1,9", False), ("1_9", False), ("nineteen", False), ("0x13", False), ("inf", False), ("nan", False),
     ("１９", False), ("19e00001", False), ("", False), ("1" + "0" * 99 + "e-98", False)],
)
def test_lenient_reads_a_decimal_numeral_only(text, result):
    assert matched(19, text, {"number": {"lenient": True}}) is result
    assert matched(text, 19, {"number": {"lenient": True}}) is result  # either side


def test_lenient_strings_compare_exactly_past_float_range():
    assert matched("1e9999", "10e9998", {"number": {"lenient": True}})
    assert not matched("1e9999", "1.0000000000000000000001e9999", {"number": {"lenient": True}})


def test_exact_is_pythons_equality_as_in_adk():
    assert matched(1, True, "exact") and matched(0, False, "exact")  # ADK compares with ==
    assert matched(10**400, 10**400, "exact") and not matched(10**400, 1e308, "exact")
    assert not matched(float("nan"), float("nan"), "exact")
    assert not matched(1, "1", "exact")


@pytest.mark.parametrize("options", [{"abs": float("inf")}, {"rel": float("nan")}, {"abs": 10**400}, {"rel": "1e999"}])
def test_tolerances_are_finite_numbers(options):
    with pytest.raises(pydantic.ValidationError):
        rules({"x": {"number": options}})


# ---------------------------------------------------------------- regexes


def test_a_backtracking_regex_is_stopped_and_fails_with_the_reason():
    started = time.perf_counter()
    assert not matched("x", "a" * 40 + "!", {"regex": "(a|a)*"})
    assert time.perf_counter() - started < 20 * REGEX_TIME_LIMIT
    assert "the regex took over 0.1 s on this 42-character value and was stopped" in note("x", "a" * 41 + "!", {"regex": "(a|a)*"})
    assert not matched("x", "a" * 40 + "b", {"regex": "(a+)+$"})  # the issue's pattern: no hang either
    assert matched("x", "a" * 40, {"regex": "(a+)+$"})


@pytest.mark.parametrize(
    "pattern, message",
    [
        ("a{99999999999999999999}", "does not compile"),
        ("(a{1000}){1000}", "is too large: its counted repeats write out to 1,000,000 elements; the limit is 10,000"),
        ("(ab){5001}", "write out to 10,002 elements"),
        ("x" * 1001, "is 1,001 characters long; the limit is 1,000"),
        ("(" * 101 + ")" * 101, "is too deeply nested"),
        (r"\p{L}", "does not compile: bad escape"),  # re's syntax, not the regex module's extensions
        ("(", "does not compile"),
    ],
)
def test_a_bad_or_too_large_pattern_is_refused(pattern, message):
    with pytest.raises(pydantic.ValidationError) as raised:
        rules({"x": {"regex": pattern}})
    assert message in str(raised.value)


@pytest.mark.parametrize("pattern", ["(ab){5000}", "(?P<q>a)(?P=q)", "(?<=a)b|b", r"(?i)\w+\s?\d{2,4}", "a*+b"])
def test_patterns_within_the_limits_are_taken(pattern):
    rules({"x": {"regex": pattern}})


def test_a_huge_regex_count_in_agenteval_yaml_is_exit_2_naming_the_path(tmp_path, capsys):
    evals = tmp_path / "evals"
    evals.mkdir()
    call = {"name": "book", "args": {"code": "AB1"}}
    invocation = {"user_content": {"parts": [{"text": "book"}]}, "intermediate_data": {"tool_uses": [call]}}
    (evals / "a.evalset.json").write_text(json.dumps({"eval_set_id": "a", "eval_cases": [{"eval_id": "c", "conversation": [invocation]}]}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(
        "suites:\n  - agent: agent.py:handle\n    eval_sets: [evals/*.evalset.json]\n"
        "    criteria: {tool_argument_match_score: 1.0}\n    tool_args: {book: {code: {regex: 'a{99999999999999999999}'}}}\n"
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"{config.as_posix()} at $.suites[0].tool_args.book.code: regex 'a{{99999999999999999999}}' does not compile" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------- list pairing


@pytest.mark.parametrize(
    "expected, actual, rule, result",
    [
        ([1, 2], [2, 0.5], "subset", True),  # the issue's case: first come, first served paired 2 with 1
        ([1, 2], [2, 0.5], "superset", True),
        ([1, 2], [2.5, 1.5, 9], "superset", True),
        ([1, 2], [2.5, 9], "superset", False),
        ([1, 1], [1], "superset", False),  # duplicates need their own item each
        ([1], [1, 1], "subset", False),
        ([1, 1], [1, 1.5], "superset", True),
        ([], [3], "superset", True),
        ([3], [], "subset", True),
        ([], [], "exact", True),
    ],
)
def test_subset_and_superset_find_a_full_matching_when_one_exists(expected, actual, rule, result):
    tool_rules = {"x": rule, "x[*]": {"number": {"abs": 1}}}
    (check,) = compare_args({"x": expected}, {"x": actual}, rules(tool_rules))
    assert check.matched is result


def test_pairing_without_item_rules_counts_equal_items():
    assert matched([[1, 2], {"a": [3]}, 1], [{"a": [3.0]}, True, [1, 2], "z"], "superset")
    assert not matched([[1, 2], [1, 2]], [[1, 2], [2, 1]], "superset")
    assert not matched([float("nan")], [float("nan")], "superset")
    assert note([1, 2, 2], [2, 1], "superset") == "at x[2]: the expected item 2 has no match (superset)"


def test_item_rules_reach_nested_lists_and_use_the_expected_items_index():
    tool_rules = {"x": "superset", "x[*].tags": "superset", "x[0].name": "text"}
    expected = [{"name": "Ann", "tags": ["a"]}, {"name": "Bo", "tags": []}]
    actual = [{"name": "Bo", "tags": ["z"]}, {"name": "ANN ", "tags": ["b", "a"]}]
    (check,) = compare_args({"x": expected}, {"x": actual}, rules(tool_rules))
    assert check.matched


def test_too_many_items_to_pair_under_rules_fail_with_the_reason_quickly():
    started = time.perf_counter()
    items = list(range(2000))
    (check,) = compare_args({"x": items}, {"x": items[::-1]}, rules({"x": "superset", "x[*]": "number"}))
    assert not check.matched and "too many list items to pair under these rules" in check.note
    assert time.perf_counter() - started < 10
    (check,) = compare_args({"x": items}, {"x": items[::-1]}, rules({"x": "superset"}))  # no item rules: counted
    assert check.matched


def test_rule_precedence_fewer_wildcards_then_the_tools_own_then_first_written():
    tool_rules = rules({"x[*].a": "exact"}, every_tool={"x[0].a": "text"})
    assert [c.matched for c in compare_args({"x": [{"a": "A"}]}, {"x": [{"a": "a"}]}, tool_rules)] == [True]
    own_first = rules({"x[0].a": "exact"}, every_tool={"x[0].a": "text"})
    assert [c.matched for c in compare_args({"x": [{"a": "A"}]}, {"x": [{"a": "a"}]}, own_first)] == [False]


def test_nesting_deeper_than_python_can_recurse_fails_the_argument_not_the_run():
    within: object = 1
    for _ in range(100):  # 200 levels, as deep as a file we read may nest
        within = {"a": [within]}
    assert matched(within, within, "exact") and matched(within, within, "superset")
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    (check,) = compare_args({"x": deep}, {"x": deep}, rules({}))
    assert not check.matched and "nested too deeply to compare" in check.note


# ---------------------------------------------------------------- the alignment


def _turn(*calls: dict) -> Invocation:
    uses = [FunctionCall(name="t", args=args) for args in calls]
    return Invocation(user_content=Content.from_text("hi"), intermediate_data=IntermediateData(tool_uses=uses))


def test_equal_totals_are_decided_exactly_more_pairs_win():
    """Two pairs worth 1/3 and 1/2 against one pair worth 5/6: a tie, which more pairs wins.
    In floating point 1/3 + 1/2 < 5/6, and the one pair won."""
    keys = [f"k{i}" for i in range(1, 7)]
    expected = [dict.fromkeys(keys, 1), {"k1": 1, "k6": 1}]
    actual = [{"k1": 1, "k2": 1, "k3": 2, "k4": 2, "k5": 2, "k6": 2}, {**dict.fromkeys(keys, 1), "k6": 2}]
    tool_args = {"t": {"$": "superset"}}
    steps = align([FunctionCall(name="t", args=a) for a in expected], [FunctionCall(name="t", args=a) for a in actual], RuleBook(
        ToolArgsCriterion.model_validate({"threshold": 1, "tool_args": tool_args}).tool_args))
    assert [(s.expected_index, s.actual_index) for s in steps] == [(0, 0), (1, 1)]
    criterion = ToolArgsCriterion.model_validate({"threshold": 0.5, "tool_args": tool_args})
    case = EvalCase(eval_id="c", conversation=[_turn(*expected)])
    inp = MetricInput(criterion, [_turn(*actual)], case.conversation, case)
    assert REGISTRY["tool_argument_match_score"].evaluate(inp).score == 3 / 8
    assert REGISTRY["tool_trajectory_alignment_score"].evaluate(inp).score == 5 / 12  # 2 * (1/3 + 1/2) / (2 + 2), rounded once
