"""JUnit XML for test reporters: one testcase per eval case, failures name the failed metrics."""

from __future__ import annotations

from itertools import groupby
from xml.etree import ElementTree as ET

from ..core.gate import Comparison, case_key
from ..schema import CaseResult, Results, Status
from .view import judged_without_text


def _failure_text(case: CaseResult, regressed: list[str]) -> str:
    lines = [f"{name}: {'-' if m.score is None else f'{m.score:.3f}'} < threshold {m.threshold:g}" for name, m in case.metrics.items() if m.status == Status.FAILED]
    lines += [f"{name}: regressed from the baseline" for name in regressed]
    if case.reason:
        lines.append(case.reason)
    return "\n".join(lines)


def _testcase(case: CaseResult, regressed: list[str]) -> ET.Element:
    duration = sum(r.duration or 0.0 for r in case.runs)
    element = ET.Element("testcase", classname=f"{case.suite}.{case.eval_set_id}", name=case.eval_id, time=f"{duration:.3f}")
    if case.status == Status.FAILED or regressed:
        failed = [n for n, m in case.metrics.items() if m.status == Status.FAILED] + regressed
        failure = ET.SubElement(element, "failure", message="failed: " + ", ".join(dict.fromkeys(failed)) if failed else "failed", type="agenteval")
        failure.text = _failure_text(case, regressed)
    elif case.status == Status.NOT_EVALUATED:
        ET.SubElement(element, "skipped", message=case.reason or "not evaluated")
    blind = [f"{name} was judged without {judged_without_text(m.judged_without)}" for name, m in case.metrics.items() if m.judged_without]
    if blind:  # the score stands, but a reader of the test report should know the judge went blind
        ET.SubElement(element, "system-out").text = "\n".join(blind)
    return element


def junit_xml(results: Results, comparison: Comparison | None = None) -> str:
    regressed = {c.key: c.counted for c in comparison.cases} if comparison else {}
    root = ET.Element("testsuites", name="agenteval")
    ordered = sorted(results.cases, key=lambda c: c.suite)
    for suite, cases in groupby(ordered, key=lambda c: c.suite):
        elements = [_testcase(c, regressed.get(case_key(c), [])) for c in cases]
        failures = sum(e.find("failure") is not None for e in elements)
        skipped = sum(e.find("skipped") is not None for e in elements)
        node = ET.SubElement(root, "testsuite", name=suite, tests=str(len(elements)), failures=str(failures), errors="0", skipped=str(skipped))
        node.extend(elements)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
