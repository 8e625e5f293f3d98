"""Our own trajectory metrics beyond ADK's all-or-nothing match (docs/metrics.md):

tool_trajectory_alignment_score: partial credit from an order-keeping alignment of the
  expected and actual calls of a turn, each pair worth its argument similarity.
tool_argument_match_score: share of the expected arguments matched on the calls the
  alignment pairs, per tool; tool selection does not enter it.

Both keep the alignment in each turn's `details`, so the report can draw it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ...schema import FunctionCall, Invocation, InvocationScore, MetricRun, ToolArgsCriterion
from ...schema.arg_rules import ToolArgs
from .arg_match import ArgCheck, PairingBudget, ToolRuleSet, compare_args, similarity
from .base import MetricInput, mean_run, paired, status_for


@dataclass(frozen=True)
class AlignedStep:
    """One line of an alignment: a pair of calls of the same tool, or a call on one side only."""

    expected_index: Optional[int]
    actual_index: Optional[int]
    name: str
    similarity: Fraction = Fraction(0)  # exact, so equal totals tie exactly
    checks: tuple[ArgCheck, ...] = ()

    @property
    def paired(self) -> bool:
        return self.expected_index is not None and self.actual_index is not None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.name, "expected_index": self.expected_index, "actual_index": self.actual_index}
        if self.paired:
            out["similarity"] = float(self.similarity)
            out["arguments"] = [c.to_json() for c in self.checks]
        return out


class RuleBook:
    """Each tool's rules, compiled once per metric run."""

    def __init__(self, tool_args: ToolArgs):
        self._tool_args = tool_args
        self._by_tool: dict[str, ToolRuleSet] = {}

    def for_tool(self, name: str) -> ToolRuleSet:
        if name not in self._by_tool:
            self._by_tool[name] = ToolRuleSet(self._tool_args, name)
        return self._by_tool[name]


def align(expected: list[FunctionCall], actual: list[FunctionCall], rules: RuleBook) -> list[AlignedStep]:
    """The order-keeping pairing of calls of the same tool with the greatest total argument
    similarity (a weighted longest common subsequence); among equals, the one with more pairs.
    Totals are exact fractions, so 1/3 + 1/2 ties with 5/6 and the tie-break decides."""
    budget = PairingBudget()  # one turn's list pairing, over all its call pairs
    checks = {
        (i, j): compare_args(e.args, a.args, rules.for_tool(e.name or ""), budget)
        for i, e in enumerate(expected)
        for j, a in enumerate(actual)
        if e.name == a.name
    }
    sims = {pair: similarity(found) for pair, found in checks.items()}
    n, m = len(expected), len(actual)
    # best[i][j]: (total similarity, pairs) aligning expected[i:] with actual[j:]
    best: list[list[tuple[Fraction, int]]] = [[(Fraction(0), 0)] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if (i, j) in sims:
                total, pairs = best[i + 1][j + 1]
                options.append((total + sims[i, j], pairs + 1))
            best[i][j] = max(options)
    return _walk(expected, actual, checks, sims, best)


def _walk(
    expected: list[FunctionCall],
    actual: list[FunctionCall],
    checks: dict[tuple[int, int], list[ArgCheck]],
    sims: dict[tuple[int, int], Fraction],
    best: list[list[tuple[Fraction, int]]],
) -> list[AlignedStep]:
    """Read the chosen pairs and gaps off the table, first call first."""
    steps: list[AlignedStep] = []
    i = j = 0
    while i < len(expected) or j < len(actual):
        if (i, j) in sims:
            total, pairs = best[i + 1][j + 1]
            if best[i][j] == (total + sims[i, j], pairs + 1):
                steps.append(AlignedStep(i, j, expected[i].name or "", sims[i, j], tuple(checks[i, j])))
                i, j = i + 1, j + 1
                continue
        if i < len(expected) and (j == len(actual) or best[i][j] == best[i + 1][j]):
            steps.append(AlignedStep(i, None, expected[i].name or ""))
            i += 1
        else:
            steps.append(AlignedStep(None, j, actual[j].name or ""))
            j += 1
    return steps


def alignment_score(steps: list[AlignedStep], penalize_extra_calls: bool) -> float:
    """Matched similarity over the calls that count: both sides' (2S / (n + m)), or only the
    expected ones when extra calls cost nothing. 1.0 when there is nothing to count."""
    expected_calls = sum(1 for s in steps if s.expected_index is not None)
    actual_calls = sum(1 for s in steps if s.actual_index is not None)
    total = sum((s.similarity for s in steps if s.paired), Fraction(0))
    if penalize_extra_calls:
        return float(2 * total / (expected_calls + actual_calls)) if expected_calls + actual_calls else 1.0
    return float(total / expected_calls) if expected_calls else 1.0


def _criterion(inp: MetricInput) -> ToolArgsCriterion:
    criterion = inp.criterion
    assert isinstance(criterion, ToolArgsCriterion)
    return criterion


def _turn(score: Optional[float], threshold: float, details: dict[str, Any], reason: Optional[str] = None) -> InvocationScore:
    return InvocationScore(score=score, status=status_for(score, threshold), reason=reason, details=details)


def _aligned_turns(inp: MetricInput) -> list[tuple[Invocation, Invocation, list[AlignedStep]]] | MetricRun:
    pairs = paired(inp)
    if isinstance(pairs, MetricRun):
        return pairs
    rules = RuleBook(_criterion(inp).tool_args)
    return [(a, e, align(e.tool_calls, a.tool_calls, rules)) for a, e in pairs]


def evaluate_alignment(inp: MetricInput) -> MetricRun:
    criterion = _criterion(inp)
    turns = _aligned_turns(inp)
    if isinstance(turns, MetricRun):
        return turns
    per_invocation = [
        _turn(alignment_score(steps, criterion.penalize_extra_calls), criterion.threshold, {"alignment": [s.to_json() for s in steps]})
        for _, _, steps in turns
    ]
    return mean_run(per_invocation, criterion.threshold)


@dataclass
class ToolTally:
    matched: int = 0
    total: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"matched": self.matched, "total": self.total, "score": self.matched / self.total if self.total else None}


def _tally(steps: list[AlignedStep], into: dict[str, ToolTally]) -> tuple[int, int]:
    matched = total = 0
    for step in steps:
        if not step.paired:
            continue
        tally = into.setdefault(step.name, ToolTally())
        for check in step.checks:
            tally.total += 1
            total += 1
            if check.matched:
                tally.matched += 1
                matched += 1
    return matched, total


def evaluate_argument_match(inp: MetricInput) -> MetricRun:
    """Per turn: matched / compared arguments on the paired calls. A turn that expects calls
    but pairs none has no argument to score (tool selection is the other metric's business)."""
    criterion = _criterion(inp)
    turns = _aligned_turns(inp)
    if isinstance(turns, MetricRun):
        return turns
    per_invocation = []
    run_tally: dict[str, ToolTally] = {}
    for _, expected, steps in turns:
        turn_tally: dict[str, ToolTally] = {}
        matched, total = _tally(steps, turn_tally)
        for name, tally in turn_tally.items():
            overall = run_tally.setdefault(name, ToolTally())
            overall.matched, overall.total = overall.matched + tally.matched, overall.total + tally.total
        details = {"alignment": [s.to_json() for s in steps], "per_tool": {k: v.to_json() for k, v in turn_tally.items()}}
        if expected.tool_calls and not any(s.paired for s in steps):
            per_invocation.append(_turn(None, criterion.threshold, details, "no expected tool was called, so no argument to compare"))
        else:
            per_invocation.append(_turn(matched / total if total else 1.0, criterion.threshold, details))
    run = mean_run(per_invocation, criterion.threshold)
    return run.model_copy(update={"details": {"per_tool": {k: v.to_json() for k, v in sorted(run_tally.items())}}})

