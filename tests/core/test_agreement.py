"""Cohen's kappa and the agreement rows of `judge-agreement` (core/agreement.py)."""

from __future__ import annotations

import pytest

from agenteval_ci.core.agreement import agreement, cohen_kappa
from agenteval_ci.schema import CaseResult, EvalCase, InvocationScore, MetricResult, MetricRun, RubricVerdict, Status


def test_kappa_is_agreement_beyond_chance():
    assert cohen_kappa([(True, True), (False, False)]) == 1.0
    assert cohen_kappa([(True, False), (False, True)]) == -1.0
    # 20 pairs: 15 agree; first says yes 10 times, second 11: chance 0.5*0.55 + 0.5*0.45 = 0.5
    pairs = [(True, True)] * 8 + [(False, False)] * 7 + [(True, False)] * 2 + [(False, True)] * 3
    assert cohen_kappa(pairs) == pytest.approx((0.75 - 0.5) / 0.5)
    assert cohen_kappa([(True, True)] * 3) is None and cohen_kappa([]) is None


def _case(eval_id: str, turns: list[InvocationScore]) -> CaseResult:
    metric = MetricResult(runs=[MetricRun(per_invocation=turns)])
    return CaseResult(eval_set_id="s", eval_id=eval_id, fingerprint="f", status=Status.PASSED, metrics={"m": metric},
                      eval_case=EvalCase(eval_id=eval_id, conversation=[]))


def test_rows_per_rubric_with_the_disagreements_and_the_verdicts_only_one_judge_gave():
    rubric = lambda *scores: InvocationScore(status=Status.PASSED, rubric_scores=[RubricVerdict(rubric_id=f"r{i}", score=s) for i, s in enumerate(scores)])
    first = [_case("a", [rubric(1.0, 1.0)]), _case("b", [rubric(0.0, 1.0)])]
    second = [_case("a", [rubric(1.0, 0.0)]), _case("b", [InvocationScore(status=Status.NOT_EVALUATED)])]
    rows = {row.rubric: row for row in agreement(first, second, ["m"])}
    assert rows["r0"].verdicts == 1 and rows["r0"].agreement == 1.0 and rows["r0"].only_one == 1
    assert rows["r1"].agreement == 0.0 and [(d.case, d.first, d.second) for d in rows["r1"].disagreements] == [("default/s/a", True, False)]
