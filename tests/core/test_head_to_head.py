"""head_to_head_v1's rules: both orders, position disagreements as ties, all-or-nothing turns,
the suite's sign test and its interval; and bench/head_to_head_accuracy.py on a few trials."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

from agenteval_ci.core.head_to_head import losses_beyond_chance, net_interval, order_verdict, turn_verdict
from agenteval_ci.core.judging import JudgeAnswer, Unreadable
from agenteval_ci.core.metrics import MetricInput
from agenteval_ci.core.metrics.registry import REGISTRY
from agenteval_ci.schema import EvalCase, Invocation, LlmAsAJudgeCriterion, Status

BENCH = Path(__file__).resolve().parents[2] / "bench" / "head_to_head_accuracy.py"


def test_a_win_or_a_loss_needs_both_orders_and_every_sample():
    assert order_verdict(["first", "first", "first"]) == "first"
    assert order_verdict(["first", "second", "first"]) == "tie"  # 2 of 3 is not three quarters
    assert order_verdict(["second", "second", "tie", "second", "second"]) == "second"  # 4 of 5
    assert order_verdict(["first", "first", "first", "second", "second"]) == "tie"  # a bare majority is not enough
    assert turn_verdict("second", "first").outcome == "win"  # the PR's answer named in both orders
    assert turn_verdict("first", "second").outcome == "loss"
    assert turn_verdict("tie", "first").outcome == "tie"
    followed = turn_verdict("first", "first")  # each order named whichever came first: the position, not the answer
    assert (followed.outcome, followed.position_disagreement, followed.score) == ("tie", True, 0.5)
    assert not turn_verdict("tie", "tie").position_disagreement


def test_the_sign_test_and_the_net_interval_match_hand_computed_values():
    assert losses_beyond_chance(5, 0) == 1 / 32
    assert losses_beyond_chance(0, 0) == 1.0
    assert losses_beyond_chance(2, 1) == 0.5
    net, low, high = net_interval(wins=0, ties=0, losses=8, confidence=0.95)
    assert net == -1.0 and low == -1.0 and high == pytest.approx(-0.8 + 1.959964 * 0.6 / 10**0.5, abs=1e-6)
    assert net_interval(2, 6, 2, 0.95)[0] == 0.0


class ScriptedJudge:
    """Answers by the order of the prompt: `replies[(first answer, second answer)]`, one per sample,
    read by the metric's reader as the real judge reads them (an unreadable one is an error)."""

    def __init__(self, replies: dict[tuple[str, str], list[str]]) -> None:
        self.replies = replies
        self.asked: list[int] = []

    async def ask_many(self, metric, model, config, prompt, count, read, media=()):
        first = prompt.split("### Answer A\n", 1)[1].split("\n", 1)[0]
        second = prompt.split("### Answer B\n", 1)[1].split("\n", 1)[0]
        self.asked.append(count)
        out = []
        for text in self.replies[(first, second)][:count]:
            verdict = read(text)
            out.append(JudgeAnswer(text=text, error=verdict.why) if isinstance(verdict, Unreadable) else JudgeAnswer(text=text, verdict=verdict))
        return out


def _turn(answer: str) -> Invocation:
    return Invocation.model_validate({"user_content": {"role": "user", "parts": [{"text": "lights off"}]},
                                      "final_response": {"role": "model", "parts": [{"text": answer}]}})


def _evaluate(judge, now: list[str], before: list[str] | None, samples: int = 2):
    criterion = LlmAsAJudgeCriterion.model_validate({"threshold": 0, "judge_model_options": {"num_samples": samples}})
    case = EvalCase.model_validate({"eval_id": "c", "conversation": [_turn(a).model_dump() for a in now]})
    inp = MetricInput(criterion, [_turn(a) for a in now], case.conversation, case, judge,
                      baseline=None if before is None else [_turn(a) for a in before], baseline_missing="a case new since the baseline")
    return asyncio.run(REGISTRY["head_to_head_v1"].evaluate(inp))


def _better(label: str) -> str:
    return json.dumps({"reasoning": "r", "better": label})


def test_a_turn_is_judged_from_both_orders_and_one_unreadable_sample_leaves_the_case_unjudged():
    good, bad = "The light is off.", "Off light the is."
    judge = ScriptedJudge({(good, bad): [_better("A")] * 2, (bad, good): [_better("B")] * 2})
    lost = _evaluate(judge, [bad], [good])
    assert (lost.score, lost.status) == (0.0, Status.PASSED) and judge.asked == [2, 2]  # num_samples per order
    details = lost.per_invocation[0].details
    assert (details["outcome"], details["baseline_response"], details["pr_response"]) == ("loss", good, bad)
    assert [(v.rubric_id, v.score) for v in lost.rubric_scores] == [("orders_agree", 1.0)]

    followed = ScriptedJudge({(good, bad): [_better("A")] * 2, (bad, good): [_better("A")] * 2})
    tie = _evaluate(followed, [bad], [good])
    assert tie.score == 0.5 and [(v.rubric_id, v.score) for v in tie.rubric_scores] == [("orders_agree", 0.0)]

    unreadable = ScriptedJudge({(good, bad): [_better("A"), _better("maybe")], (bad, good): [_better("B")] * 2,
                        (good, good): [_better("tie")] * 2})
    two_turns = _evaluate(unreadable, [good, bad], [good, good])  # the second turn has an unreadable sample
    assert (two_turns.score, two_turns.status) == (None, Status.NOT_EVALUATED)  # never judged on part of the case
    assert two_turns.reason == "sample 2 of 2: \"better\" is 'maybe', not one of A, B, tie"


def test_without_a_recorded_baseline_answer_it_is_not_evaluated_with_the_reason():
    judge = ScriptedJudge({})
    run = _evaluate(judge, ["x"], None)
    assert (run.status, run.reason) == (Status.NOT_EVALUATED, "no recorded baseline answer to compare with: a case new since the baseline")
    assert judge.asked == []
    other = _evaluate(judge, ["x", "y"], ["x"])
    assert other.reason == "the baseline's recorded run has 1 turn(s), this run 2"


def _bench():
    spec = importlib.util.spec_from_file_location("head_to_head_accuracy", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["head_to_head_accuracy"] = module
    spec.loader.exec_module(module)
    return module


def test_the_bench_goes_through_the_gate_a_clear_loss_fails_and_nothing_changed_passes():
    bench = _bench()
    rng = random.Random(5)
    assert all(bench.trial(30, 0.5, 3, 0.6, 0.95, rng) for _ in range(3))  # half the answers worse: caught
    assert not any(bench.trial(30, 0.0, 3, 1.0, 0.95, rng) for _ in range(3))  # a judge that always names the first: all ties
