"""JUnit XML for test reporters: one testcase per eval case, failures name the failed metrics."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from xml.etree import ElementTree as ET

from ..core.digest import ScoredCase, ScoredResults
from ..core.gate import CaseOutcome, Comparison
from ..schema import Outcome, Status
from ..schema.labels import SEPARATOR, case_labels
from ..schema.vocabulary import case_words
from .view import judged_without_text


def _failure_text(case: ScoredCase, regressed: list[str]) -> str:
    lines = [f"{name}: {'-' if m.score is None else f'{m.score:.3f}'} < threshold {m.threshold:g}" for name, m in case.metrics.items() if m.status == Status.FAILED]
    lines += [f"{name}: regressed from the baseline" for name in regressed]
    if case.reason:
        lines.append(case.reason)
    return "\n".join(lines)


def _testcase(case: ScoredCase, label: str, outcome: CaseOutcome | None) -> ET.Element:
    """`classname` is `suite.eval_set` and `name` the case, as the label shows them; a failure's
    message leads with the word the other reports lead with (`REGRESSED: metric, ...`); a case
    over budget names the budgets it went over."""
    duration = sum(r.duration or 0.0 for r in case.runs)
    parts = label.split(SEPARATOR)
    element = ET.Element("testcase", classname=".".join(parts[:2]), name=parts[-1], time=f"{duration:.3f}")
    regressed = outcome.counted if outcome else []
    over_budget = outcome.note.split("; ")[0] if outcome and outcome.outcome == Outcome.OVER_BUDGET else ""
    if case.status == Status.FAILED or regressed or over_budget:
        word, _ = case_words(Outcome(outcome.outcome) if outcome else None, case.status)
        failed = [n for n, m in case.metrics.items() if m.status == Status.FAILED] + regressed + ([over_budget] if over_budget else [])
        failure = ET.SubElement(element, "failure", message=f"{word}: " + ", ".join(dict.fromkeys(failed)) if failed else word, type="agenteval")
        failure.text = "\n".join(filter(None, [_failure_text(case, regressed), over_budget]))
    elif case.status == Status.NOT_EVALUATED:
        ET.SubElement(element, "skipped", message=case.reason or "not evaluated")
    blind = [f"{name} was judged without {judged_without_text(m.judged_without)}" for name, m in case.metrics.items() if m.judged_without]
    if blind:  # the score stands, but a reader of the test report should know the judge went blind
        ET.SubElement(element, "system-out").text = "\n".join(blind)
    return element


def junit_xml(results: ScoredResults, comparison: Comparison | None = None) -> str:
    return "".join(junit_parts(results, comparison))


def _fails(case: ScoredCase, outcome: CaseOutcome | None) -> bool:
    """What _testcase gives a <failure>: a failed case, a counted regression, a case over budget."""
    return case.status == Status.FAILED or bool(outcome and (outcome.counted or outcome.outcome == Outcome.OVER_BUDGET))


def junit_parts(results: ScoredResults, comparison: Comparison | None = None) -> Iterator[str]:
    """The XML a testcase at a time (each suite's counts come first, from the cases' statuses
    and outcomes): 100,000 cases never stand as one tree."""
    outcomes = {c.key: c for c in comparison.cases} if comparison else {}
    labels = case_labels(results.cases)
    ordered = sorted(results.cases, key=lambda c: c.suite)
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    if not ordered:
        yield '<testsuites name="agenteval" />\n'
        return
    yield '<testsuites name="agenteval">\n'
    for suite, grouped in groupby(ordered, key=lambda c: c.suite):
        cases = list(grouped)
        failed = [_fails(c, outcomes.get(c.key)) for c in cases]
        skipped = sum(not f and c.status == Status.NOT_EVALUATED for f, c in zip(failed, cases))
        node = ET.Element("testsuite", name=suite, tests=str(len(cases)), failures=str(sum(failed)), errors="0", skipped=str(skipped))
        opening = ET.tostring(node, encoding="unicode")
        yield f"  {opening[:-3]}>\n"  # `<testsuite ... />` opened
        for case in cases:
            element = _testcase(case, labels[case.key], outcomes.get(case.key))
            ET.indent(element, level=2)
            yield f"    {ET.tostring(element, encoding='unicode')}\n"
        yield "  </testsuite>\n"
    yield "</testsuites>\n"
