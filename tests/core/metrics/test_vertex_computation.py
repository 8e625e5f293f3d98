"""Vertex's computation-based metrics on Vertex's rows, through `agenteval score`, metric by metric."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from agenteval_ci.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "vertex"
METRICS = ["exact_match", "bleu", "rouge_1", "rouge_2", "rouge_l", "rouge_l_sum",
           "tool_call_valid", "tool_name_match", "tool_parameter_key_match", "tool_parameter_kv_match"]

# row_1: the response and the call are the reference's. row_2: reference "Headphones are wireless;
# they cost 50." (6 tokens, 5 bigrams) and two calls; response "Headphones cost 50." (3 tokens, 2
# bigrams, LCS 3) and only the second call, in the first place.
EXPECTED = {
    "row_1": dict.fromkeys(METRICS, 1.0),
    "row_2": {
        "exact_match": 0.0,
        # 13a tokens: "Headphones cost 50 ." against 8 reference tokens; n-gram precisions 4/4, 2/3,
        # 1/2 and 0/1, the last smoothed (exp) to 1/2; brevity penalty exp(1 - 8/4)
        "bleu": math.exp(1 - 8 / 4) * (1 * 2 / 3 * 1 / 2 * 1 / 2) ** 0.25,
        "rouge_1": 2 / 3, "rouge_2": 2 * 0.5 * 0.2 / 0.7, "rouge_l": 2 / 3, "rouge_l_sum": 2 / 3,
        "tool_call_valid": 1.0, "tool_name_match": 0.0,
        "tool_parameter_key_match": 0.5,  # product_name passed in place 0, nothing in place 1
        "tool_parameter_kv_match": 0.5,  # and with the value expected there
    },
}


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_vertex_rows_score_as_vertex_defines_each_metric(tmp_path, suffix):
    for stem in ("dataset", "responses"):
        shutil.copy(DATA / f"{stem}.{suffix}", tmp_path)
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": dict.fromkeys(METRICS, 0.5)}))
    out = tmp_path / "results.json"
    assert main(["score", str(tmp_path / f"dataset.{suffix}"), "--actual", str(tmp_path / f"responses.{suffix}"), "--json", str(out)]) == 1
    cases = {c["eval_id"]: c["metrics"] for c in json.loads(out.read_text())["cases"]}
    for row, scores in EXPECTED.items():
        for name, score in scores.items():
            assert cases[row][name]["score"] == pytest.approx(score), (row, name)


def test_nothing_expected_and_nothing_passed_is_a_match():
    from agenteval_ci.core.metrics.vertex_computation import tool_call_valid, tool_parameter_kv_match
    from agenteval_ci.schema import FunctionCall

    assert tool_parameter_kv_match([FunctionCall(name="a")], [FunctionCall(name="a", args={})]) == 1.0
    assert tool_parameter_kv_match([FunctionCall(name="a", args={"x": 1})], [FunctionCall(name="a")]) == 0.0
    assert tool_call_valid([], []) == 0.0  # a turn without a call holds no valid call


def test_bleu_without_sacrebleu_is_not_evaluated_with_the_reason(monkeypatch):
    from agenteval_ci.core.metrics import vertex_computation
    from agenteval_ci.schema import EvalCase

    monkeypatch.setattr(vertex_computation, "_sacrebleu_missing", lambda: "bleu needs sacrebleu")
    case = EvalCase.model_validate({"eval_id": "c", "conversation": [{"user_content": {"parts": [{"text": "hi"}]},
                                                                       "final_response": {"parts": [{"text": "hello"}]}}]})
    from agenteval_ci.core.metrics import MetricInput
    from agenteval_ci.schema import BaseCriterion

    run = vertex_computation.metric("bleu")(MetricInput(BaseCriterion(threshold=0.5), case.conversation, case.conversation, case))
    assert run.status.value == "NOT_EVALUATED" and run.reason == "bleu needs sacrebleu"
