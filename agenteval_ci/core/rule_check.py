"""Argument rules checked against the eval sets they apply to: a rule for a tool no case
expects, or a path that leads into nothing in every expected call, is a typo (exit 2)."""

from __future__ import annotations

from typing import Any, Iterable

from ..errors import Problem
from ..schema import EvalCase
from ..schema.arg_rules import ANY_TOOL, WILDCARD, ArgRule, PathStep, ToolArgs, parse_path

ExpectedArgs = dict[str, list[dict[str, Any]]]  # tool name -> the args of each expected call of it


def expected_args_by_tool(cases: Iterable[EvalCase]) -> ExpectedArgs:
    found: ExpectedArgs = {}
    for case in cases:
        for invocation in case.conversation or []:
            for call in invocation.tool_calls:
                found.setdefault(call.name or "", []).append(call.args or {})
    return found


def _values_at(value: Any, steps: tuple[PathStep, ...]) -> list[Any]:
    """Every value the path reaches in `value` (a wildcard fans out over list items)."""
    if not steps:
        return [value]
    step, rest = steps[0], steps[1:]
    if isinstance(step, str) and step != WILDCARD and isinstance(value, dict) and step in value:
        return _values_at(value[step], rest)
    if isinstance(value, list):
        if step == WILDCARD:
            return [found for item in value for found in _values_at(item, rest)]
        if isinstance(step, int) and step < len(value):
            return _values_at(value[step], rest)
    return []


def _parent_is_object(args: dict[str, Any], steps: tuple[PathStep, ...]) -> bool:
    return isinstance(steps[-1], str) and any(isinstance(v, dict) for v in _values_at(args, steps[:-1]))


def _path_problem(tool: str, path: str, rule: ArgRule, calls: list[dict[str, Any]]) -> str | None:
    steps = parse_path(path)
    if not steps or any(_values_at(args, steps) for args in calls):
        return None
    # `ignore` and `present` may name an argument only the agent passes (a request id, say).
    if rule.rule in ("ignore", "present") and any(_parent_is_object(args, steps) for args in calls):
        return None
    keys = sorted({key for args in calls for key in args})
    return f"{path!r} leads into nothing in every expected call of {tool} (their arguments: {', '.join(keys) or 'none'})"


def rule_problems(file: str, at: str, tool_args: ToolArgs, expected: ExpectedArgs) -> list[Problem]:
    """Problems with `tool_args` (found in `file` at `at`) against the expected calls."""
    problems = []
    for tool, rules in tool_args.items():
        if tool == ANY_TOOL:
            calls = [args for tool_calls in expected.values() for args in tool_calls]
        elif tool not in expected:
            known = ", ".join(sorted(expected)) or "none"
            problems.append(Problem(file, f"{at}.{tool}", f"no case expects a call of {tool!r} (expected tools: {known})"))
            continue
        else:
            calls = expected[tool]
        for path, rule in rules.items():
            message = _path_problem(tool, path, rule, calls)
            if message:
                problems.append(Problem(file, f"{at}.{tool}.{path}", message))
    return problems
