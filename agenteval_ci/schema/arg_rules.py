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
from typing import Any, Literal, Optional, Union

from pydantic import Field, model_validator

from ._base import StrictModel

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
    pattern: Optional[str] = None  # regex: the actual string must match it whole (re.fullmatch)
    abs: float = Field(default=0.0, ge=0)  # number: |actual - expected| <= abs ...
    rel: float = Field(default=0.0, ge=0)  # ... or <= rel * |expected|
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
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"regex {self.pattern!r} does not compile: {exc}") from None
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

