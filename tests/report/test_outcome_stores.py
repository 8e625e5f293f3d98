"""The comparison's case outcomes kept on disk (what `compare`, `report` and the action use)
give every output byte for byte as kept in memory (what the gate's other tests read), on
suites that have every kind of outcome: regressed, incomparable, new, removed, over budget."""

from __future__ import annotations

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import OUTCOMES, Comparison, compare
from agenteval_ci.files.spilled_outcomes import SpilledOutcomes
from agenteval_ci.report import comparison_json, render_comment, render_html, render_junit, render_summary
from agenteval_ci.report.console import render_budgets, render_changes
from agenteval_ci.schema.settings import GateSettings
from tests.report.test_comment import golden_results
from tests.test_budgets import BUDGETS, baseline_of, runs_of, scored


def _outputs(comparison: Comparison, results) -> dict[str, str]:
    return {
        "json": comparison_json(comparison), "comment": render_comment(comparison, results), "summary": render_summary(comparison, results),
        "junit": render_junit(results, comparison), "html": render_html(comparison, results),
        "console": render_changes(comparison, per_section=1) + render_budgets(comparison),
    }


def _same_either_way(results, baseline, settings: GateSettings) -> Comparison:
    kept = compare(results, baseline, settings)
    spilled = compare(results, baseline, settings, SpilledOutcomes())
    assert len(spilled.cases) == len(kept.cases) and list(spilled.cases) == list(kept.cases)
    assert spilled.cases[0] == kept.cases[0] and spilled.cases[-1] == kept.cases[-1]
    for outcome in OUTCOMES:
        assert list(spilled.cases.of(outcome)) == list(kept.cases.of(outcome))
    for case in kept.cases:
        assert spilled.cases.with_key(case.key) == kept.cases.with_key(case.key) == [case]
    assert spilled.cases.with_key("no/such/case") == []
    assert _outputs(spilled, results) == _outputs(kept, results)
    return kept


def test_outcomes_on_disk_give_every_report_as_in_memory(tmp_path, monkeypatch):
    base, results = golden_results(tmp_path, monkeypatch)
    kept = _same_either_way(results, baseline_from_results(base), GateSettings())
    assert {c.outcome for c in kept.cases} == {"regressed", "incomparable", "new", "removed"}
    first_run = _same_either_way(results, None, GateSettings())  # no baseline: every case new
    assert {c.outcome for c in first_run.cases} == {"new"}


def test_outcomes_over_budget_on_disk_read_as_in_memory(tmp_path):
    sizes = [1000] * 6
    base = scored(tmp_path, "base", runs_of(6, [sizes] * 3), 6)
    one = scored(tmp_path, "one", [{**runs_of(6, [sizes])[0], "c3": runs_of(6, [sizes], tools=2)[0]["c3"]}], 6)
    kept = _same_either_way(one, baseline_of(base), BUDGETS)
    assert {c.eval_id for c in kept.cases if c.outcome == "over_budget"} == {"c3"}
