"""Tool-argument rules: how an expected argument is compared with the agent's (docs/metrics.md).

They are read by our own metrics only (tool_trajectory_alignment_score and
tool_argument_match_score), never by ADK's tool_trajectory_avg_score, so a file
google-adk accepts keeps scoring exactly as ADK scores it.

In a file a rule is a name (`exact`, `ignore`, `present`, `subset`, `superset`, `text`,
`number`) or a one-key object with options (`{regex: '...'}`, `{number: {abs: 0.5}}`,
`{text: {ignore_case: false}}`). Rules are keyed by tool name (`"*"` for every tool) and
then by argument path: `$` is the whole args object, `city`, `filters.max_price`,
`legs[0].from`, `legs[*].from`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from pydantic import Field, model_validator

from ._base import StrictModel

if TYPE_CHECKING:
    import regex

RULE_NAMES = ("exact", "ignore", "present", "subset", "superset", "regex", "number", "text")
ANY_TOOL = "*"
ROOT = "$"
ROOT_RULES = ("exact", "ignore", "subset", "superset")  # what the whole args object may use
WILDCARD = "*"

PathStep = Union[str, int]  # an object key, a list index, or WILDCARD for any index
_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+|\*)\]")


def parse_path(path: str) -> tuple[PathStep, ...]:
    """`legs[*].from` -> ('legs', '*', 'from'); `$` -> (). Raises ValueError on bad syntax."""
    if path == ROOT:
        return ()
    text = path[2:] if path.startswith("$.") else path[1:] if path.startswith("$[") else path
    steps: list[PathStep] = []
    position = 0
    while position < len(text):
        found = _STEP.match(text, position)
        if found is None or (position == 0 and text.startswith(".")):
            raise ValueError(f"bad argument path {path!r} at character {position + 1}; write it like a.b, items[0].id or items[*].id")
        key, index = found.groups()
        steps.append(key if key is not None else (WILDCARD if index == WILDCARD else int(index)))
        position = found.end()
    if not steps:
        raise ValueError(f"bad argument path {path!r}; write it like a.b, items[0].id or items[*].id")
    return tuple(steps)


def format_path(steps: tuple[PathStep, ...]) -> str:
    """The inverse of parse_path; list steps are written [i] or [*]."""
    out = ""
    for step in steps:
        if isinstance(step, int) or (step == WILDCARD and out):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out or ROOT


class ArgRule(StrictModel):
    """One rule with its options; only the options of its own kind may be set."""

    rule: Literal["exact", "ignore", "present", "subset", "superset", "regex", "number", "text"]
    pattern: Optional[str] = None  # regex: the actual string must match it whole (re syntax, fullmatch)
    abs: float = Field(default=0.0, ge=0, allow_inf_nan=False)  # number: |actual - expected| <= abs ...
    rel: float = Field(default=0.0, ge=0, allow_inf_nan=False)  # ... or <= rel * |expected|
    lenient: bool = False  # number: "19" counts as 19 (only when asked)
    ignore_case: bool = True  # text: compare case-folded
    ignore_whitespace: bool = True  # text: runs of whitespace are one space, ends trimmed
    # text is always compared Unicode-normalised (NFKC): "ﬁ" == "fi", full-width digits == ASCII.

    @model_validator(mode="before")
    @classmethod
    def _from_short_form(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"rule": _known_rule(value)}
        if isinstance(value, dict) and "rule" not in value:
            if len(value) != 1:
                raise ValueError(f"a rule object has one key, the rule's name ({', '.join(RULE_NAMES)}); got {', '.join(map(str, value)) or 'none'}")
            (name, options), = value.items()
            name = _known_rule(str(name))
            if name == "regex":
                return {"rule": "regex", "pattern": options}
            if options is None:
                return {"rule": name}
            if not isinstance(options, dict):
                raise ValueError(f"the options of {name!r} are an object, e.g. {_EXAMPLES.get(name, '{}')}; got {options!r}")
            foreign = sorted(str(option) for option in options if option not in _OPTIONS_OF.get(name, ()))
            if foreign:
                allowed = ", ".join(_OPTIONS_OF.get(name, ())) or "none"
                raise ValueError(f"{name} does not take {', '.join(foreign)} (its options: {allowed})")
            return {"rule": name, **options}
        return value

    @model_validator(mode="after")
    def _options_fit_the_rule(self) -> "ArgRule":
        if self.rule == "regex":
            if not isinstance(self.pattern, str):
                raise ValueError("regex needs a pattern string, e.g. {regex: '^NYC|JFK$'}")
            check_pattern(self.pattern)
        foreign = {
            option for option in self.model_fields_set - {"rule"}
            if option not in _OPTIONS_OF.get(self.rule, ())
        }
        if foreign:
            allowed = ", ".join(_OPTIONS_OF.get(self.rule, ())) or "none"
            raise ValueError(f"{self.rule} does not take {', '.join(sorted(foreign))} (its options: {allowed})")
        return self

    def label(self) -> str:
        """How reports name the rule, with its options when they are not the defaults."""
        if self.rule == "regex":
            return f"regex {self.pattern}"
        if self.rule == "number":
            options = [f"abs {self.abs:g}"] * bool(self.abs) + [f"rel {self.rel:g}"] * bool(self.rel) + ["lenient"] * self.lenient
            return "number" + (f" ({', '.join(options)})" if options else "")
        if self.rule == "text":
            off = [name for name, on in (("case", self.ignore_case), ("whitespace", self.ignore_whitespace)) if not on]
            return "text" + (f" (keeps {', '.join(off)})" if off else "")
        return self.rule


_OPTIONS_OF = {"regex": ("pattern",), "number": ("abs", "rel", "lenient"), "text": ("ignore_case", "ignore_whitespace")}
_EXAMPLES = {"number": "{abs: 0.5, rel: 0.01, lenient: true}", "text": "{ignore_case: true, ignore_whitespace: true}"}


MAX_PATTERN_LENGTH = 1000  # characters
MAX_PATTERN_SIZE = 10_000  # elements once counted repeats are written out: `(ab){5000}` is 10,000
MAX_PATTERN_NESTING = 100  # groups and repeats inside each other


def check_pattern(pattern: str) -> None:
    """A ValueError unless `pattern` is a regex we can match safely: Python `re` syntax, and
    small enough for the matcher (the `regex` module, which writes counted repeats out) to
    compile in milliseconds. Matching itself is bounded in time (core/metrics/arg_match.py)."""
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ValueError(f"regex {shown!r} is {len(pattern):,} characters long; the limit is {MAX_PATTERN_LENGTH:,}")
    try:
        from re import _parser  # type: ignore[attr-defined]  # the parser `re` itself uses: the pattern's structure exactly as re reads it

        re.compile(pattern)
        size = _pattern_size(_parser.parse(pattern), 0)
    except _TooDeep as exc:
        raise ValueError(f"regex {shown!r} is too deeply nested: {exc}") from None
    except (re.error, OverflowError, RecursionError, MemoryError, ValueError) as exc:  # e.g. a count past any limit
        raise ValueError(f"regex {shown!r} does not compile: {exc or type(exc).__name__}") from None
    if size > MAX_PATTERN_SIZE:
        raise ValueError(
            f"regex {shown!r} is too large: its counted repeats write out to {size:,} elements; "
            f"the limit is {MAX_PATTERN_SIZE:,} (e.g. (ab){{5000}} is 10,000)"
        )
    try:
        compiled_pattern(pattern)
    except Exception as exc:  # the matcher's engine refuses a pattern `re` takes (none known)
        raise ValueError(f"regex {shown!r} is not supported by the matcher: {exc}") from None


@lru_cache(maxsize=512)
def compiled_pattern(pattern: str) -> "regex.Pattern[str]":
    """The pattern as the matcher runs it: the `regex` module (re's syntax and semantics,
    plus a time limit per match), in its re-compatible mode."""
    import regex

    return regex.compile(pattern, flags=regex.VERSION0)


class _TooDeep(ValueError):
    pass


def _pattern_size(items: Any, depth: int) -> int:
    """Elements (a character, a class, an anchor, ...) with each counted repeat written out
    (`x{m,n}`: n copies of x; `x{m,}`, `x*`, `x+`: max(m, 1) copies). Stops counting past the limit."""
    if depth > MAX_PATTERN_NESTING:
        raise _TooDeep(f"groups and repeats nest more than {MAX_PATTERN_NESTING} levels deep")
    from re._constants import MAXREPEAT

    total = 0
    for op, av in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = av
            total += max(low if high == MAXREPEAT else high, 1) * _pattern_size(body, depth + 1)
        elif name == "SUBPATTERN":
            total += _pattern_size(av[3], depth + 1)
        elif name == "BRANCH":
            total += sum(_pattern_size(branch, depth + 1) for branch in av[1])
        elif name in ("ASSERT", "ASSERT_NOT"):
            total += _pattern_size(av[1], depth + 1)
        elif name == "ATOMIC_GROUP":
            total += _pattern_size(av, depth + 1)
        elif name == "GROUPREF_EXISTS":
            total += sum(_pattern_size(branch, depth + 1) for branch in av[1:] if branch is not None)
        else:
            total += 1
        if total > MAX_PATTERN_SIZE:
            return total
    return total


def _known_rule(name: str) -> str:
    if name not in RULE_NAMES:
        raise ValueError(f"unknown rule {name!r}; rules are: {', '.join(RULE_NAMES)}")
    return name


EXACT = ArgRule(rule="exact")

ToolRules = dict[str, ArgRule]  # argument path -> rule
ToolArgs = dict[str, ToolRules]  # tool name (or "*") -> its rules


def check_tool_args(value: ToolArgs) -> ToolArgs:
    """Every tool name is non-empty and every argument path parses (a pydantic validator)."""
    for tool, rules in value.items():
        if not tool:
            raise ValueError("a tool name is empty; use '*' for every tool")
        for path, rule in rules.items():
            try:
                steps = parse_path(path)
            except ValueError as exc:
                raise ValueError(f"{tool}: {exc}") from None
            if not steps and rule.rule not in ROOT_RULES:
                raise ValueError(f"{tool}: the whole args object ($) takes {', '.join(ROOT_RULES)}, not {rule.rule}")
    return value

