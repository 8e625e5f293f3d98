"""JUnit XML for test reporters: one testcase per eval case, failures name the failed metrics."""

from __future__ import annotations

from collections.abc import Iterator
from xml.etree import ElementTree as ET

from ..core.digest import ScoredCase, ScoredResults
from ..core.gate import CaseOutcome, Comparison
from ..schema import Outcome, Status
from ..schema.labels import SEPARATOR, CaseLabels
from ..schema.vocabulary import case_words
from .view import judged_without_text


def _failure_text(case: ScoredCase, regressed: list[str]) -> str:
    lines = [f"{name}: {'-' if m.score is None else f'{m.score:.3f}'} < threshold {m.threshold:g}" + (f" ({m.reason})" if m.reason else "")
             for name, m in case.metrics.items() if m.status == Status.FAILED]
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
    """The XML a testcase at a time, suite by suite in the results' order (each suite's counts
    come first, from the cases' statuses and outcomes, in a pass of their own): 100,000 cases
    never stand as one tree, nor as a list."""
    def outcome_of(case: ScoredCase) -> CaseOutcome | None:
        found = comparison.cases.with_key(case.key) if comparison else []
        return found[-1] if found else None  # a repeated case: the last, as a dict by key keeps it

    labels = CaseLabels(results.cases)
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    suites = sorted({c.suite for c in results.cases})
    if not suites:
        yield '<testsuites name="agenteval" />\n'
        return
    yield '<testsuites name="agenteval">\n'
    for suite in suites:
        tests = failures = skipped = 0
        for case in _of_suite(results, suite):
            failed = _fails(case, outcome_of(case))
            tests += 1
            failures += failed
            skipped += not failed and case.status == Status.NOT_EVALUATED
        node = ET.Element("testsuite", name=suite, tests=str(tests), failures=str(failures), errors="0", skipped=str(skipped))
        opening = ET.tostring(node, encoding="unicode")
        yield f"  {opening[:-3]}>\n"  # `<testsuite ... />` opened
        for case in _of_suite(results, suite):
            element = _testcase(case, labels.label_of(case), outcome_of(case))
            ET.indent(element, level=2)
            yield f"    {ET.tostring(element, encoding='unicode')}\n"
        yield "  </testsuite>\n"
    yield "</testsuites>\n"


def _of_suite(results: ScoredResults, suite: str) -> Iterator[ScoredCase]:
    return (c for c in results.cases if c.suite == suite)
