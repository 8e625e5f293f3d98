"""Comparing one expected tool call's arguments with the agent's, under the configured rules.

Pure functions over JSON values. The result is one ArgCheck per top-level argument, so a
report can say, argument by argument, what was expected, what came, and which rule decided.

No argument can crash or hang a run: numbers compare exactly whatever their size, a regex
matches under a time limit, list items pair by a maximum bipartite matching within a work
budget, and whatever exceeds a bound fails its check with the reason (docs/metrics.md).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Optional, Union

from ...schema.arg_rules import ANY_TOOL, EXACT, WILDCARD, ArgRule, PathStep, ToolArgs, compiled_pattern, format_path, parse_path

Steps = tuple[PathStep, ...]

REGEX_TIME_LIMIT = 0.1  # seconds for one regex match; past it the check fails
PAIRING_BUDGET = 200_000  # item comparisons one turn may spend pairing list items under rules
LENIENT_MAX_LENGTH = 100  # characters of a numeric string `lenient` reads
# A numeric string `lenient` reads: sign, digits with an optional point, an exponent of at most 4 digits.
_NUMERIC = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


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
    """The rules for one tool: its own, over those given for every tool ("*").

    When several paths fit one value: fewer `[*]` wins (`legs[0].from` refines
    `legs[*].from`), then the tool's own rule over "*"'s, then the one written first."""

    def __init__(self, tool_args: ToolArgs, tool: str):
        own = tool_args.get(tool, {}) if tool != ANY_TOOL else {}
        merged = {**tool_args.get(ANY_TOOL, {}), **own}
        parsed = [(parse_path(path), rule, path in own) for path, rule in merged.items()]
        parsed.sort(key=lambda item: (item[0].count(WILDCARD), not item[2]))
        self._rules = [(pattern, rule) for pattern, rule, _ in parsed]
        self._labels = {id(rule): rule.label() for _, rule in [*self._rules, ((), EXACT)]}
        self._found: dict[Steps, Optional[ArgRule]] = {}

    def at(self, steps: Steps) -> Optional[ArgRule]:
        if steps not in self._found:  # list pairing asks about the same paths again and again
            self._found[steps] = next((r for pattern, r in self._rules if len(pattern) == len(steps) and _fits(pattern, steps)), None)
        return self._found[steps]

    def any_below(self, steps: Steps) -> bool:
        """Whether some rule applies inside the value at `steps` (to an item, a key, deeper)."""
        return any(len(pattern) > len(steps) and _fits(pattern[: len(steps)], steps) for pattern, _ in self._rules)

    def required_keys(self, steps: Steps) -> list[str]:
        """The keys that `present` rules require in the object at `steps`."""
        return [
            pattern[-1]
            for pattern, rule in self._rules
            if rule.rule == "present" and len(pattern) == len(steps) + 1 and isinstance(pattern[-1], str)
            and pattern[-1] != WILDCARD and _fits(pattern[:-1], steps)
        ]

    def label(self, rule: ArgRule) -> str:
        return self._labels[id(rule)]

    @property
    def root(self) -> ArgRule:
        return self.at(()) or EXACT


def _fits(pattern: Steps, steps: Steps) -> bool:
    return all(p == s or (p == WILDCARD and isinstance(s, int)) for p, s in zip(pattern, steps))


class PairingBudget:
    """The item comparisons left for pairing list items under rules; shared by one turn's calls."""

    def __init__(self, comparisons: int = PAIRING_BUDGET):
        self.left = comparisons

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OverBudget


class _OverBudget(Exception):
    pass


# ---------------------------------------------------------------- showing values


def _shown(value: Any) -> str:
    """Compact JSON, cut at 60 characters (never serialising more than it shows)."""
    if value is ABSENT:
        return "(absent)"
    text = ""
    try:
        for chunk in json.JSONEncoder(ensure_ascii=False, sort_keys=True).iterencode(value):
            text += chunk
            if len(text) > 60:
                break
    except (ValueError, TypeError, RecursionError):  # an integer past Python's 4,300 digits, say
        return f"(a {type(value).__name__} too large to show)"
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------- the rules on single values


Exact = Union[Fraction, float]  # a finite number as an exact fraction; inf and nan stay floats


def exact_number(value: Any, lenient: bool) -> Optional[Exact]:
    """A JSON number as the decimal it is written as (a float's shortest repr, which is what
    a JSON file or a model wrote), exactly; a numeric string too when `lenient`. Not a bool."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return _decimal(value) if math.isfinite(value) else value
    if lenient and isinstance(value, str):
        text = value.strip()
        if len(text) <= LENIENT_MAX_LENGTH and _NUMERIC.fullmatch(text):
            return Fraction(text)
    return None


@lru_cache(maxsize=65536)
def _decimal(value: float) -> Fraction:
    """A finite float as the shortest decimal that reads back as it: `0.1` is exactly 1/10."""
    return Fraction(repr(value))


def _number_note(expected: Any, actual: Any, rule: ArgRule) -> Optional[str]:
    e, a = exact_number(expected, rule.lenient), exact_number(actual, rule.lenient)
    if e is None or a is None:
        return ""
    if isinstance(e, float) or isinstance(a, float):  # nan matches nothing; an infinity only itself
        return None if e == a else ("NaN matches nothing" if e != e or a != a else "")
    tolerance = max(_decimal(rule.abs), _decimal(rule.rel) * abs(e))
    return None if abs(a - e) <= tolerance else ""


def _normal_text(value: str, rule: ArgRule) -> str:
    text = unicodedata.normalize("NFKC", value)
    if rule.ignore_whitespace:
        text = " ".join(text.split())
    return text.casefold() if rule.ignore_case else text


def regex_verdict(pattern: str, text: str) -> Optional[bool]:
    """Does the pattern match `text` whole? None when the match ran out of time. Short values
    are remembered (alignment compares each actual call with several expected ones), long
    ones are not, so the cache never holds large arguments alive."""
    return _remembered_verdict(pattern, text) if len(text) <= 10_000 else _verdict(pattern, text)


def _verdict(pattern: str, text: str) -> Optional[bool]:
    try:
        return compiled_pattern(pattern).fullmatch(text, timeout=REGEX_TIME_LIMIT) is not None
    except TimeoutError:
        return None


_remembered_verdict = lru_cache(maxsize=4096)(_verdict)


def _scalar_note(expected: Any, actual: Any, rule: ArgRule) -> Optional[str]:
    """None when `actual` satisfies the rule; else why not (empty: the plain mismatch)."""
    if rule.rule == "regex":
        if not isinstance(actual, str):
            return ""
        verdict = regex_verdict(rule.pattern or "", actual)
        if verdict is None:
            return f"the regex took over {REGEX_TIME_LIMIT:g} s on this {len(actual):,}-character value and was stopped"
        return None if verdict else ""
    if rule.rule == "number":
        return _number_note(expected, actual, rule)
    if rule.rule == "text":
        same = isinstance(expected, str) and isinstance(actual, str) and _normal_text(expected, rule) == _normal_text(actual, rule)
        return None if same else ""
    return None if expected == actual else ""  # ADK's equality: 21 == 21.0, true == 1, nan != nan


# ---------------------------------------------------------------- values, objects, lists


Entry = tuple[str, Any, Any, Verdict]


class _Matcher:
    """One comparison under one tool's rules, spending `budget` on list pairing."""

    def __init__(self, rules: ToolRuleSet, budget: PairingBudget):
        self.rules = rules
        self.budget = budget
        self.pairing = 0  # > 0 while comparing candidate pairs of list items

    def value(self, expected: Any, actual: Any, steps: Steps) -> Verdict:
        """Does `actual` satisfy `expected` at this path? Containers recurse, so rules deeper down apply."""
        if self.pairing:
            self.budget.spend()
        rule = self.rules.at(steps) or EXACT
        label = self.rules.label(rule)
        if rule.rule in ("ignore", "present"):
            return Verdict(True, label)
        if rule.rule in ("exact", "subset", "superset"):
            if isinstance(expected, dict) and isinstance(actual, dict):
                return _first_failure(self.entries(expected, actual, steps, rule.rule), label)
            if isinstance(expected, list) and isinstance(actual, list):
                return self.lists(expected, actual, steps, rule.rule, label)
        why = _scalar_note(expected, actual, rule)
        if why is None:
            return Verdict(True, label)
        if self.pairing:  # a candidate pair: only whether it fits counts
            return Verdict(False, label)
        return Verdict(False, label, f"at {format_path(steps)}: expected {_shown(expected)}, got {_shown(actual)} ({label}{'; ' + why if why else ''})")

    def entries(self, expected: dict[str, Any], actual: dict[str, Any], steps: Steps, mode: str) -> list[Entry]:
        """(key, expected, actual, verdict) for every key either side has, ignored keys left out.
        exact: same keys; superset: the agent may add keys; subset: the agent may leave keys out."""
        found = []
        for key in [*expected, *(k for k in actual if k not in expected)]:
            child = (*steps, key)
            rule = self.rules.at(child)
            if rule is not None and rule.rule == "ignore":
                continue
            e, a = expected.get(key, ABSENT), actual.get(key, ABSENT)
            found.append((key, e, a, self.entry(e, a, child, rule, mode)))
        for key in self.rules.required_keys(steps):
            if key not in expected and key not in actual:  # a `present` argument neither side has
                found.append((key, ABSENT, ABSENT, _missing(steps, key, "present", ABSENT)))
        return found

    def entry(self, e: Any, a: Any, child: Steps, rule: Optional[ArgRule], mode: str) -> Verdict:
        label = self.rules.label(rule) if rule is not None else mode
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
        return self.guarded(e, a, child)

    def guarded(self, expected: Any, actual: Any, steps: Steps) -> Verdict:
        """`value`, failing with the reason instead of running past a bound."""
        if self.pairing:  # the pairing that spent the budget reports it
            return self.value(expected, actual, steps)
        try:
            return self.value(expected, actual, steps)
        except _OverBudget:
            return Verdict(False, "pairing", f"at {format_path(steps)}: too many list items to pair under these rules "
                                             f"(over {PAIRING_BUDGET:,} item comparisons in this turn)")
        except RecursionError:
            return Verdict(False, "exact", f"at {format_path(steps)}: nested too deeply to compare")

    def lists(self, expected: list[Any], actual: list[Any], steps: Steps, mode: str, label: str) -> Verdict:
        """exact: same length, item by item; superset: each expected item has its own matching
        actual item (any order); subset: each actual item has its own matching expected item."""
        if mode == "exact":
            if len(expected) != len(actual):
                return Verdict(False, label, f"at {format_path(steps)}: expected {len(expected)} item(s), got {len(actual)} ({label})")
            for index, (e, a) in enumerate(zip(expected, actual)):
                verdict = self.value(e, a, (*steps, index))
                if not verdict.ok:
                    return Verdict(False, label, verdict.note)
            return Verdict(True, label)
        needles, haystack = (expected, actual) if mode == "superset" else (actual, expected)
        if self.rules.any_below(steps):
            lonely = self._unmatched(needles, haystack, steps, mode)
        else:
            lonely = _unmatched_equal(needles, haystack)
        if lonely is None:
            return Verdict(True, label)
        side = "expected" if mode == "superset" else "actual"
        return Verdict(False, label, f"at {format_path((*steps, lonely))}: the {side} item {_shown(needles[lonely])} has no match ({label})")

    def _unmatched(self, needles: list[Any], haystack: list[Any], steps: Steps, mode: str) -> Optional[int]:
        """The first needle a maximum matching leaves alone (Kuhn's augmenting paths), or None
        when every needle gets its own haystack item. Item rules are looked up at the expected
        item's index."""
        fits: dict[tuple[int, int], bool] = {}

        def fit(n: int, h: int) -> bool:
            if (n, h) not in fits:
                e, a, index = (needles[n], haystack[h], n) if mode == "superset" else (haystack[h], needles[n], h)
                self.pairing += 1
                try:
                    fits[n, h] = self.value(e, a, (*steps, index)).ok
                finally:
                    self.pairing -= 1
            return fits[n, h]

        owner: dict[int, int] = {}  # haystack item -> the needle it serves
        lonely = None
        for needle in range(len(needles)):
            if not _augment(needle, len(haystack), owner, fit, self.budget) and lonely is None:
                lonely = needle
        return lonely


def _augment(start: int, width: int, owner: dict[int, int], fit: Any, budget: PairingBudget) -> bool:
    """Kuhn's step: find an augmenting path from needle `start` (depth first, without
    recursion) and flip it, so `start` gets an item and every needle on the path keeps one."""
    visited: set[int] = set()
    stack = [[start, 0]]  # [needle, the next haystack item it tries]
    wanted: list[int] = []  # wanted[k]: the item frame k claims if frame k + 1 finds another
    while stack:
        frame = stack[-1]
        needle, item = frame
        if item == width:
            stack.pop()
            if wanted:
                wanted.pop()
            continue
        frame[1] = item + 1
        budget.spend()
        if item in visited or not fit(needle, item):
            continue
        visited.add(item)
        if item not in owner:
            owner[item] = needle
            for (earlier, _), claimed in zip(stack[:-1], wanted):
                owner[claimed] = earlier
            return True
        wanted.append(item)
        stack.append([owner[item], 0])
    return False


def _canonical(value: Any) -> Any:
    """A hashable stand-in equal exactly when ADK's equality holds (1 == 1.0 == true; nan is
    equal to nothing, so each nan gets a key of its own)."""
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_canonical(item) for item in value))
    if isinstance(value, float) and value != value:
        return object()
    return value


def _unmatched_equal(needles: list[Any], haystack: list[Any]) -> Optional[int]:
    """Items compared exactly: equality is an equivalence, so counting equal items is a maximum matching."""
    left = Counter(_canonical(item) for item in haystack)
    for index, needle in enumerate(needles):
        key = _canonical(needle)
        if left[key] <= 0:
            return index
        left[key] -= 1
    return None


def _first_failure(entries: list[Entry], label: str) -> Verdict:
    failed = next((verdict for _, _, _, verdict in entries if not verdict.ok), None)
    return Verdict(True, label) if failed is None else Verdict(False, label, failed.note)


def _missing(parent: Steps, key: PathStep, label: str, expected: Any) -> Verdict:
    wanted = "" if expected is ABSENT else f", expected {_shown(expected)}"
    return Verdict(False, label, f"at {format_path((*parent, key))}: missing{wanted} ({label})")


# ---------------------------------------------------------------- one call


def compare_args(
    expected: Optional[dict[str, Any]], actual: Optional[dict[str, Any]], rules: ToolRuleSet, budget: Optional[PairingBudget] = None
) -> list[ArgCheck]:
    """One check per top-level argument that counts (ignored ones do not); the `$` rule says
    whether the agent may add arguments (superset) or leave some out (subset)."""
    root = rules.root
    if root.rule == "ignore":
        return []
    if root.rule == "exact" and (expected is None) != (actual is None) and not (expected or actual):
        # ADK's equality: no args at all (null) is not an empty args object.
        return [ArgCheck("$", "exact", expected, actual, False, f"at $: expected {_shown(expected)}, got {_shown(actual)} (exact)")]
    matcher = _Matcher(rules, budget or PairingBudget())
    checks = []
    for key, e, a, verdict in matcher.entries(expected or {}, actual or {}, (), root.rule):
        if e is ABSENT and a is not ABSENT and verdict.ok and verdict.rule == "superset":
            continue  # an extra argument the `$: superset` rule allows: nothing to score
        checks.append(ArgCheck(key, verdict.rule, e, a, verdict.ok, verdict.note))
    return checks


def similarity(checks: list[ArgCheck]) -> Fraction:
    """Share of the arguments that matched, exactly; a call with nothing to compare is a full match."""
    if not checks:
        return Fraction(1)
    return Fraction(sum(1 for c in checks if c.matched), len(checks))
