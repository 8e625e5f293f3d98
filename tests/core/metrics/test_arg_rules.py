"""Argument rules, one by one, on the cases that motivated them in google/adk-python's issues
(#1591, #2757, #4794, #5643): reordered keys, 21 vs 21.0, "19" vs 19, extra optional args,
free-text args, and transfer_to_agent in multi-agent trajectories."""

from __future__ import annotations

import pydantic
import pytest

from agenteval_ci.core.metrics.arg_match import ToolRuleSet, compare_args
from agenteval_ci.schema import ToolArgsCriterion
from agenteval_ci.schema.arg_rules import format_path, parse_path


def rules(tool_rules: dict, tool: str = "t") -> ToolRuleSet:
    criterion = ToolArgsCriterion.model_validate({"threshold": 1.0, "tool_args": {tool: tool_rules}})
    return ToolRuleSet(criterion.tool_args, tool)


def verdicts(expected: dict, actual: dict, tool_rules: dict) -> dict[str, bool]:
    return {c.path: c.matched for c in compare_args(expected, actual, rules(tool_rules))}


def test_exact_is_adks_equality_reordered_keys_and_21_vs_21_0_match():
    expected = {"city": "Paris", "filters": {"stars": 4, "price": 21}}
    actual = {"filters": {"price": 21.0, "stars": 4}, "city": "Paris"}
    assert verdicts(expected, actual, {}) == {"city": True, "filters": True}


def test_a_number_as_a_string_fails_unless_lenient_is_asked():
    assert verdicts({"temperature": 19}, {"temperature": "19"}, {}) == {"temperature": False}
    assert verdicts({"temperature": 19}, {"temperature": "19"}, {"temperature": "number"}) == {"temperature": False}
    assert verdicts({"temperature": 19}, {"temperature": " 19 "}, {"temperature": {"number": {"lenient": True}}}) == {"temperature": True}
    assert verdicts({"temperature": 19}, {"temperature": "nineteen"}, {"temperature": {"number": {"lenient": True}}}) == {"temperature": False}


def test_a_bool_is_not_a_number():
    assert verdicts({"n": 1}, {"n": True}, {"n": {"number": {"abs": 0.5}}}) == {"n": False}


@pytest.mark.parametrize(
    "options, actual, matched",
    [
        ({"abs": 0.5}, 21.4, True),
        ({"abs": 0.5}, 21.6, False),
        ({"rel": 0.01}, 21.2, True),  # 1% of 21 is 0.21
        ({"rel": 0.01}, 21.3, False),
        ({"abs": 0.1, "rel": 0.01}, 20.8, True),  # the wider of the two
    ],
)
def test_numeric_tolerance(options, actual, matched):
    assert verdicts({"price": 21}, {"price": actual}, {"price": {"number": options}}) == {"price": matched}


def test_extra_optional_args_fail_exact_and_pass_superset():
    expected = {"query": "hotels in Rome"}
    actual = {"query": "hotels in Rome", "limit": 10, "sort": "price"}
    assert verdicts(expected, actual, {}) == {"query": True, "limit": False, "sort": False}
    assert verdicts(expected, actual, {"$": "superset"}) == {"query": True}


def test_subset_lets_the_agent_leave_arguments_out_but_not_add_any():
    expected = {"query": "Rome", "limit": 10}
    assert verdicts(expected, {"query": "Rome"}, {"$": "subset"}) == {"query": True, "limit": True}
    assert verdicts(expected, {"query": "Rome", "page": 2}, {"$": "subset"}) == {"query": True, "limit": True, "page": False}


def test_free_text_arguments_text_rule_folds_case_whitespace_and_unicode():
    expected = {"summary": "Generate response to user greeting", "name": "ﬁle Ｎo. 1"}
    actual = {"summary": "  generate response\n to USER greeting ", "name": "file No. 1"}
    assert verdicts(expected, actual, {"summary": "text", "name": "text"}) == {"summary": True, "name": True}
    assert verdicts(expected, actual, {"summary": {"text": {"ignore_case": False}}, "name": "text"}) == {"summary": False, "name": True}
    assert verdicts(expected, actual, {"summary": "exact", "name": "exact"}) == {"summary": False, "name": False}


def test_regex_must_match_the_whole_actual_string():
    rule = {"date": {"regex": r"2025-06-\d\d"}}
    assert verdicts({"date": "2025-06-01"}, {"date": "2025-06-17"}, rule) == {"date": True}
    assert verdicts({"date": "2025-06-01"}, {"date": "on 2025-06-17"}, rule) == {"date": False}
    assert verdicts({"date": "2025-06-01"}, {"date": 20250617}, rule) == {"date": False}


def test_ignore_and_present():
    tool_rules = {"request_id": "ignore", "session": "present"}
    assert verdicts({"q": 1, "request_id": "a"}, {"q": 1, "session": "xyz"}, tool_rules) == {"q": True, "session": True}
    assert verdicts({"q": 1, "request_id": "a"}, {"q": 1, "request_id": "b"}, tool_rules) == {"q": True, "session": False}
    assert verdicts({"q": 1, "session": None}, {"q": 1, "session": None}, tool_rules) == {"q": True, "session": True}


def test_ignore_the_whole_call_is_adks_ignore_args():
    assert compare_args({"a": 1}, {"b": 2}, rules({"$": "ignore"})) == []


def test_paths_reach_into_nested_objects_and_lists():
    expected = {"trip": {"legs": [{"from": "JFK", "at": "09:00"}, {"from": "LHR", "at": "18:00"}]}}
    actual = {"trip": {"legs": [{"from": "jfk", "at": "09:05"}, {"from": "lhr", "at": "18:00"}]}}
    assert verdicts(expected, actual, {}) == {"trip": False}
    relaxed = {"trip.legs[*].from": "text", "trip.legs[*].at": "ignore"}
    assert verdicts(expected, actual, relaxed) == {"trip": True}
    # A concrete index refines the wildcard: the first leg's time must be exact.
    checks = compare_args(expected, actual, rules({**relaxed, "trip.legs[0].at": "exact"}))
    assert [c.matched for c in checks] == [False]
    assert checks[0].note == 'at trip.legs[0].at: expected "09:00", got "09:05" (exact)'


def test_superset_and_subset_of_lists_ignore_order():
    expected = {"tags": ["a", "b"]}
    assert verdicts(expected, {"tags": ["b", "c", "a"]}, {"tags": "superset"}) == {"tags": True}
    assert verdicts(expected, {"tags": ["b", "c"]}, {"tags": "superset"}) == {"tags": False}
    assert verdicts(expected, {"tags": ["b"]}, {"tags": "subset"}) == {"tags": True}
    assert verdicts(expected, {"tags": ["b", "z"]}, {"tags": "subset"}) == {"tags": False}


def test_nested_superset_allows_extra_keys_only_there():
    expected = {"filters": {"stars": 4}, "city": "Rome"}
    actual = {"filters": {"stars": 4, "pool": True}, "city": "Rome"}
    assert verdicts(expected, actual, {"filters": "superset"}) == {"filters": True, "city": True}
    assert verdicts(expected, actual, {}) == {"filters": False, "city": True}


def test_every_tool_rules_apply_under_a_tools_own():
    criterion = ToolArgsCriterion.model_validate(
        {"threshold": 1, "tool_args": {"*": {"request_id": "ignore", "q": "text"}, "search": {"q": "exact"}}}
    )
    search, other = ToolRuleSet(criterion.tool_args, "search"), ToolRuleSet(criterion.tool_args, "other")
    assert [c.matched for c in compare_args({"q": "A", "request_id": 1}, {"q": "a", "request_id": 2}, search)] == [False]
    assert [c.matched for c in compare_args({"q": "A", "request_id": 1}, {"q": "a", "request_id": 2}, other)] == [True]


@pytest.mark.parametrize("path", ["$", "a", "a.b", "items[0].id", "items[*].id", "$.a.b", "a[1][2]"])
def test_paths_round_trip(path):
    steps = parse_path(path)
    assert parse_path(format_path(steps)) == steps


@pytest.mark.parametrize(
    "tool_rules, message",
    [
        ({"q": "fuzzy"}, "unknown rule 'fuzzy'; rules are: exact, ignore, present"),
        ({"q": {"regex": "(["}}, "regex '([' does not compile"),
        ({"q": {"number": {"tolerance": 1}}}, "number does not take tolerance (its options: abs, rel, lenient)"),
        ({"q": {"text": 1}}, "the options of 'text' are an object"),
        ({"q": {"regex": "a", "text": {}}}, "a rule object has one key"),
        ({"a..b": "exact"}, "bad argument path 'a..b'"),
        ({"a[x]": "exact"}, "bad argument path 'a[x]'"),
        ({"$": "text"}, "the whole args object ($) takes exact, ignore, subset, superset, not text"),
        ({"q": {"number": {"abs": -1}}}, "greater than or equal to 0"),
    ],
)
def test_bad_rules_are_refused_with_the_reason(tool_rules, message):
    with pytest.raises(pydantic.ValidationError) as raised:
        ToolArgsCriterion.model_validate({"threshold": 1, "tool_args": {"t": tool_rules}})
    assert message in str(raised.value)


def test_the_example_in_docs_metrics_md_is_a_valid_suite():
    import re
    from pathlib import Path

    import yaml

    from agenteval_ci.schema.project import ProjectConfig

    doc = (Path(__file__).resolve().parents[3] / "docs" / "metrics.md").read_text()
    block = re.search(r"```yaml\n(suites:.*?)```", doc, re.S)[1]
    suite = ProjectConfig.model_validate(yaml.safe_load(block)).suites[0]
    assert suite.tool_args["search_flights"]["$"].rule == "superset"
    assert suite.tool_args["search_flights"]["max_price"].label() == "number (abs 5, rel 0.02)"
    assert set(suite.criteria) == {"tool_trajectory_alignment_score", "tool_argument_match_score"}
