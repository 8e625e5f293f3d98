"""Readable expected-vs-actual diffs of tool trajectories and responses (pure)."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass

from ..schema import AlignedCall, ArgumentCheck, FunctionCall, Invocation, text_of
from ..schema.eval_set import BuiltinToolUse


@dataclass(frozen=True)
class CallChange:
    kind: str  # missing | added | reordered | changed args | same
    name: str
    expected_args: str = ""
    actual_args: str = ""

    def line(self) -> str:
        mark = {"missing": "-", "added": "+", "reordered": "~", "changed args": "!", "same": " "}[self.kind]
        if self.kind == "changed args":
            return f"{mark} {self.name}({self.expected_args}) -> ({self.actual_args})"
        args = self.expected_args if self.kind in ("missing", "same") else self.actual_args
        return f"{mark} {self.name}({args})" + ("  [reordered]" if self.kind == "reordered" else "")


def call_args(call: FunctionCall) -> str:
    return json.dumps(call.args or {}, sort_keys=True, ensure_ascii=False)


def call_text(call: FunctionCall) -> str:
    return f"{call.name}({call_args(call)})"


def trajectory_changes(expected: list[FunctionCall], actual: list[FunctionCall]) -> list[CallChange]:
    """Align by tool name (longest common subsequence), then name what differs: calls only
    on one side are missing/added; an added call whose name is expected elsewhere moved."""
    exp_names = [c.name or "" for c in expected]
    act_names = [c.name or "" for c in actual]
    changes: list[CallChange] = []
    matcher = difflib.SequenceMatcher(a=exp_names, b=act_names, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for e, a in zip(expected[i1:i2], actual[j1:j2]):
                kind = "same" if call_args(e) == call_args(a) else "changed args"
                changes.append(CallChange(kind, e.name or "", call_args(e), call_args(a)))
            continue
        for e in expected[i1:i2]:
            changes.append(CallChange("missing", e.name or "", call_args(e)))
        for a in actual[j1:j2]:
            kind = "reordered" if (a.name or "") in exp_names[:i1] + exp_names[i2:] else "added"
            changes.append(CallChange(kind, a.name or "", actual_args=call_args(a)))
    return changes


def _drop_reordered_missing(changes: list[CallChange]) -> list[CallChange]:
    """A call that only moved shows once, as reordered, not also as missing."""
    moved = {c.name for c in changes if c.kind == "reordered"}
    return [c for c in changes if not (c.kind == "missing" and c.name in moved)]


def builtin_line(use: BuiltinToolUse) -> str:
    """`* google_search {"queries": [...]} -> {"sources": [...]}  (built-in, not a tool call)`."""
    text = f"* {use.name} {json.dumps(use.args, ensure_ascii=False, sort_keys=True)}"
    if use.result:
        text += f" -> {json.dumps(use.result, ensure_ascii=False, sort_keys=True)}"
    return text + "  (built-in, not a tool call)"


def builtin_lines(actual: list[Invocation], turn: int) -> list[str]:
    return [builtin_line(use) for use in actual[turn].builtin_tool_uses] if turn < len(actual) else []


def trajectory_diff(expected: list[Invocation], actual: list[Invocation]) -> str:
    """One block per turn whose calls differ or whose model ran a built-in tool; empty when none."""
    blocks = []
    for turn in range(max(len(expected), len(actual))):
        exp = expected[turn].tool_calls if turn < len(expected) else []
        act = actual[turn].tool_calls if turn < len(actual) else []
        changes = _drop_reordered_missing(trajectory_changes(exp, act))
        builtin = builtin_lines(actual, turn)
        if all(c.kind == "same" for c in changes) and not builtin:
            continue
        blocks.append(f"turn {turn + 1}:\n" + "\n".join([*(c.line() for c in changes), *builtin]))
    return "\n".join(blocks)


def response_diff(expected: list[Invocation], actual: list[Invocation]) -> str:
    """Unified diff of the final responses, turn by turn; empty when they are equal."""
    blocks = []
    for turn in range(max(len(expected), len(actual))):
        exp = text_of(expected[turn].final_response) if turn < len(expected) else ""
        act = text_of(actual[turn].final_response) if turn < len(actual) else ""
        if exp == act:
            continue
        lines = difflib.unified_diff(exp.splitlines(), act.splitlines(), "expected", "actual", lineterm="", n=1)
        blocks.append(f"turn {turn + 1}:\n" + "\n".join(list(lines)[2:]))
    return "\n".join(blocks)


def _answer_lines(invocation: Invocation | None) -> list[str]:
    return [f"{author}: {' '.join(text.split())}" for author, text in invocation.intermediate_responses] if invocation else []


def intermediate_diff(expected: list[Invocation], actual: list[Invocation]) -> str:
    """The answers on the way (author: text, one a line), expected vs actual, turn by turn, as a
    unified diff; empty when every turn's are the same."""
    blocks = []
    for turn in range(max(len(expected), len(actual))):
        exp = _answer_lines(expected[turn] if turn < len(expected) else None)
        act = _answer_lines(actual[turn] if turn < len(actual) else None)
        if exp == act:
            continue
        lines = difflib.unified_diff(exp, act, "expected", "actual", lineterm="", n=len(exp) + len(act))
        blocks.append(f"turn {turn + 1}:\n" + "\n".join(list(lines)[3:]))
    return "\n".join(blocks)


# ---------------------------------------------------------------- aligned trajectories (our metrics)

def _value(check: ArgumentCheck, side: str) -> str:
    if side not in check.model_fields_set:
        return "(absent)"
    text = json.dumps(getattr(check, side), ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _argument_line(check: ArgumentCheck) -> str:
    """`!     city: "New York" -> "NYC"   ✗ text (at city: ...)`: expected -> actual, then the rule."""
    mark, verdict = (" ", "✓") if check.matched else ("!", "✗")
    line = f"{mark}     {check.path}: {_value(check, 'expected')} -> {_value(check, 'actual')}   {verdict} {check.rule}"
    nested = check.note and not check.note.startswith(f"at {check.path}:")
    return line + (f" ({check.note})" if nested else "")


def _aligned_lines(step: AlignedCall, expected: list[FunctionCall], actual: list[FunctionCall]) -> list[str]:
    if step.actual_index is None:
        call = expected[step.expected_index] if step.expected_index is not None and step.expected_index < len(expected) else None
        return [f"- {step.tool}({call_args(call) if call else ''})  missing"]
    if step.expected_index is None:
        call = actual[step.actual_index] if step.actual_index < len(actual) else None
        return [f"+ {step.tool}({call_args(call) if call else ''})  added"]
    similarity = step.similarity if step.similarity is not None else 0.0
    mark = " " if all(c.matched for c in step.arguments) else "!"
    return [f"{mark} {step.tool}  similarity {similarity:.2f}", *(_argument_line(c) for c in step.arguments)]


def aligned_trajectory_diff(
    expected: list[Invocation], actual: list[Invocation], alignments: list[list[AlignedCall] | None]
) -> str:
    """One block per turn whose calls differ, drawn from the metric's own alignment: each
    pair with its arguments (expected -> actual, the rule, ✓/✗), calls only one side made."""
    blocks = []
    for turn, steps in enumerate(alignments):
        exp = expected[turn].tool_calls if turn < len(expected) else []
        act = actual[turn].tool_calls if turn < len(actual) else []
        if steps is None:
            block = trajectory_diff(expected[turn : turn + 1], actual[turn : turn + 1])
            blocks += [block.replace("turn 1:", f"turn {turn + 1}:", 1)] if block else []
            continue
        builtin = builtin_lines(actual, turn)
        if all(s.expected_index is not None and s.actual_index is not None and all(c.matched for c in s.arguments) for s in steps) and not builtin:
            continue
        lines = [line for step in steps for line in _aligned_lines(step, exp, act)]
        blocks.append(f"turn {turn + 1}:\n" + "\n".join([*lines, *builtin]))
    return "\n".join(blocks)


def state_diff(checks: list[ArgumentCheck]) -> str:
    """The final session state key by key (expected -> actual, ✓/✗ and the rule); empty when every key matched."""
    if all(c.matched for c in checks):
        return ""
    return "\n".join(_argument_line(c) for c in checks)
