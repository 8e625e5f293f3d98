"""Comparing one expected tool call's arguments with the agent's, under the configured rules.

Pure functions over JSON values. The result is one ArgCheck per top-level argument, so a
report can say, argument by argument, what was expected, what came, and which rule decided.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from ..schema.arg_rules import ANY_TOOL, EXACT, WILDCARD, ArgRule, PathStep, ToolArgs, format_path, parse_path

Steps = tuple[PathStep, ...]


class _Absent:
    """An argument one side does not have (distinct from a JSON null)."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class ArgCheck:
    path: str  # the top-level argument
    rule: str  # the label of the rule that decided
    expected: Any  # ABSENT when only the agent passed it
    actual: Any  # ABSENT when the agent left it out
    matched: bool
    note: str = ""  # why it failed, down to the nested path

    def to_json(self) -> dict[str, Any]:
        """As the results file's ArgumentCheck holds it: an absent side is left out."""
        out: dict[str, Any] = {"path": self.path, "rule": self.rule, "matched": self.matched}
        out.update({side: value for side, value in (("expected", self.expected), ("actual", self.actual)) if value is not ABSENT})
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Verdict:
    ok: bool
    rule: str
    note: str = ""


class ToolRuleSet:
    """The rules for one tool: its own, over those given for every tool ("*")."""

    def __init__(self, tool_args: ToolArgs, tool: str):
        merged = {**tool_args.get(ANY_TOOL, {}), **tool_args.get(tool, {})}
        parsed = [(parse_path(path), rule) for path, rule in merged.items()]
        # Concrete paths win over wildcard ones, so `legs[0].from` can refine `legs[*].from`.
        parsed.sort(key=lambda item: WILDCARD in item[0])
        self._rules = parsed

    def at(self, steps: Steps) -> Optional[ArgRule]:
        for pattern, rule in self._rules:
            if len(pattern) == len(steps) and all(_step_fits(p, s) for p, s in zip(pattern, steps)):
                return rule
        return None

    def required_keys(self, steps: Steps) -> list[str]:
        """The keys that `present` rules require in the object at `steps`."""
        return [
            pattern[-1]
            for pattern, rule in self._rules
            if rule.rule == "present" and len(pattern) == len(steps) + 1 and isinstance(pattern[-1], str)
            and pattern[-1] != WILDCARD and all(_step_fits(p, s) for p, s in zip(pattern, steps))
        ]

    @property
    def root(self) -> ArgRule:
        return self.at(()) or EXACT


def _step_fits(pattern: PathStep, step: PathStep) -> bool:
    return pattern == step or (pattern == WILDCARD and isinstance(step, int))


# ---------------------------------------------------------------- the rules on single values


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: Any, lenient: bool) -> Optional[float]:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if lenient and isinstance(value, str):
        try:
            parsed = float(value.strip())
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None
    return None


def _numbers_close(expected: Any, actual: Any, rule: ArgRule) -> bool:
    e, a = _number(expected, rule.lenient), _number(actual, rule.lenient)
    if e is None or a is None:
        return False
    return abs(a - e) <= max(rule.abs, rule.rel * abs(e))


def _normal_text(value: str, rule: ArgRule) -> str:
    text = unicodedata.normalize("NFKC", value)
    if rule.ignore_whitespace:
        text = " ".join(text.split())
    return text.casefold() if rule.ignore_case else text


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _scalar_ok(expected: Any, actual: Any, rule: ArgRule) -> bool:
    if rule.rule == "regex":
        return isinstance(actual, str) and _compiled(rule.pattern or "").fullmatch(actual) is not None
    if rule.rule == "number":
        return _numbers_close(expected, actual, rule)
    if rule.rule == "text":
        return isinstance(expected, str) and isinstance(actual, str) and _normal_text(expected, rule) == _normal_text(actual, rule)
    return expected == actual  # ADK's equality: 21 == 21.0, key order never matters


# ---------------------------------------------------------------- values, objects, lists


def match_value(expected: Any, actual: Any, steps: Steps, rules: ToolRuleSet) -> Verdict:
    """Does `actual` satisfy `expected` at this path? Containers recurse, so rules deeper down apply."""
    rule = rules.at(steps) or EXACT
    if rule.rule in ("ignore", "present"):
        return Verdict(True, rule.label())
    mode = rule.rule if rule.rule in ("subset", "superset") else "exact"
    if rule.rule in ("exact", "subset", "superset"):
        if isinstance(expected, dict) and isinstance(actual, dict):
            return _first_failure(_object_entries(expected, actual, steps, rules, mode), rule.label())
        if isinstance(expected, list) and isinstance(actual, list):
            return _list_verdict(expected, actual, steps, rules, mode, rule.label())
    if _scalar_ok(expected, actual, rule):
        return Verdict(True, rule.label())
    return Verdict(False, rule.label(), f"at {format_path(steps)}: expected {_shown(expected)}, got {_shown(actual)} ({rule.label()})")


def _first_failure(entries: list[tuple[str, Any, Any, Verdict]], label: str) -> Verdict:
    failed = next((verdict for _, _, _, verdict in entries if not verdict.ok), None)
    return Verdict(True, label) if failed is None else Verdict(False, label, failed.note)


def _object_entries(
    expected: dict[str, Any], actual: dict[str, Any], steps: Steps, rules: ToolRuleSet, mode: str
) -> list[tuple[str, Any, Any, Verdict]]:
    """(key, expected, actual, verdict) for every key either side has, ignored keys left out.
    exact: same keys; superset: the agent may add keys; subset: the agent may leave keys out."""
    entries = []
    for key in [*expected, *(k for k in actual if k not in expected)]:
        child = (*steps, key)
        rule = rules.at(child)
        if rule is not None and rule.rule == "ignore":
            continue
        e, a = expected.get(key, ABSENT), actual.get(key, ABSENT)
        entries.append((key, e, a, _entry_verdict(e, a, child, rule, rules, mode)))
    for key in rules.required_keys(steps):
        if key not in expected and key not in actual:  # a `present` argument neither side has
            entries.append((key, ABSENT, ABSENT, _missing(steps, key, "present", ABSENT)))
    return entries


def _entry_verdict(e: Any, a: Any, child: Steps, rule: Optional[ArgRule], rules: ToolRuleSet, mode: str) -> Verdict:
    label = rule.label() if rule is not None else mode
    if a is ABSENT:
        if mode == "subset" and (rule is None or rule.rule != "present"):
            return Verdict(True, "subset")
        return _missing(child[:-1], child[-1], label, e)
    if e is ABSENT:
        if rule is not None and rule.rule == "present":
            return Verdict(True, "present")
        if mode == "superset":
            return Verdict(True, "superset")
        return Verdict(False, label, f"at {format_path(child)}: not expected, got {_shown(a)} ({label})")
    return match_value(e, a, child, rules)


def _missing(parent: Steps, key: PathStep, label: str, expected: Any) -> Verdict:
    wanted = "" if expected is ABSENT else f", expected {_shown(expected)}"
    return Verdict(False, label, f"at {format_path((*parent, key))}: missing{wanted} ({label})")


def _list_verdict(expected: list[Any], actual: list[Any], steps: Steps, rules: ToolRuleSet, mode: str, label: str) -> Verdict:
    """exact: same length, item by item; superset: each expected item has its own actual item
    (any order, first fit); subset: each actual item has its own expected item."""
    if mode == "exact":
        if len(expected) != len(actual):
            return Verdict(False, label, f"at {format_path(steps)}: expected {len(expected)} item(s), got {len(actual)} ({label})")
        for index, (e, a) in enumerate(zip(expected, actual)):
            verdict = match_value(e, a, (*steps, index), rules)
            if not verdict.ok:
                return Verdict(False, label, verdict.note)
        return Verdict(True, label)
    needles, haystack = (expected, actual) if mode == "superset" else (actual, expected)
    unused = list(range(len(haystack)))
    for index, needle in enumerate(needles):
        pair = (lambda j: (needle, haystack[j])) if mode == "superset" else (lambda j: (haystack[j], needle))
        fit = next((j for j in unused if match_value(*pair(j), (*steps, j if mode == "subset" else index), rules).ok), None)
        if fit is None:
            side = "expected" if mode == "superset" else "actual"
            return Verdict(False, label, f"at {format_path((*steps, index))}: the {side} item {_shown(needle)} has no match ({label})")
        unused.remove(fit)
    return Verdict(True, label)


# ---------------------------------------------------------------- one call


def compare_args(expected: Optional[dict[str, Any]], actual: Optional[dict[str, Any]], rules: ToolRuleSet) -> list[ArgCheck]:
    """One check per top-level argument that counts (ignored ones do not); the `$` rule says
    whether the agent may add arguments (superset) or leave some out (subset)."""
    root = rules.root
    if root.rule == "ignore":
        return []
    if root.rule == "exact" and (expected is None) != (actual is None) and not (expected or actual):
        # ADK's equality: no args at all (null) is not an empty args object.
        return [ArgCheck("$", "exact", expected, actual, False, f"at $: expected {_shown(expected)}, got {_shown(actual)} (exact)")]
    entries = _object_entries(expected or {}, actual or {}, (), rules, root.rule)
    checks = []
    for key, e, a, verdict in entries:
        if e is ABSENT and a is not ABSENT and verdict.ok and verdict.rule == "superset":
            continue  # an extra argument the `$: superset` rule allows: nothing to score
        checks.append(ArgCheck(key, verdict.rule, e, a, verdict.ok, verdict.note))
    return checks


def similarity(checks: list[ArgCheck]) -> float:
    """Share of the arguments that matched; a call with nothing to compare is a full match."""
    if not checks:
        return 1.0
    return sum(1 for c in checks if c.matched) / len(checks)
