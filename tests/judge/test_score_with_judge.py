"""`agenteval score` with LLM-judged metrics, end to end through the CLI and the fake Gemini server."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini, Fault
from tests.judge.helpers import json_reply

RUBRIC = {"rubric_id": "confirms", "rubric_content": {"text_property": "Confirms the action."}}


def write_case_files(tmp_path: Path, cases: int) -> Path:
    turns = [
        {
            "eval_id": f"case{i}",
            "conversation": [
                {
                    "user_content": {"parts": [{"text": f"Turn off light {i}"}], "role": "user"},
                    "final_response": {"parts": [{"text": f"Light {i} is off."}], "role": "model"},
                }
            ],
        }
        for i in range(cases)
    ]
    evalset = tmp_path / "home.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "home", "eval_cases": turns}))
    (tmp_path / "test_config.json").write_text(json.dumps({
        "criteria": {
            "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}},
            "rubric_based_final_response_quality_v1": {"threshold": 0.5, "rubrics": [RUBRIC], "judge_model_options": {"num_samples": 3}},
        }
    }))
    return evalset


def answer(request):
    if "- id: confirms" in request.prompt_text:
        return json_reply({"rubrics": [{"id": "confirms", "rationale": "it says so", "verdict": "yes"}]})
    return json_reply({"reasoning": "same", "verdict": "valid"})


def score_cli(evalset: Path, tmp_path: Path, out: str) -> dict:
    code = main(["score", str(evalset), "--actual", str(evalset), "--json", str(tmp_path / out), "--judge-cache-dir", str(tmp_path / "cache")])
    assert code == 0
    return json.loads((tmp_path / out).read_text())


def test_cold_then_warm_run_makes_zero_judge_calls(tmp_path, monkeypatch, capsys):
    evalset = write_case_files(tmp_path, cases=4)
    with FakeGemini(responder=answer) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        cold = score_cli(evalset, tmp_path, "cold.json")
        assert len(fake.requests) == 8  # 4 cases x 2 metrics, 3 samples per request
        assert {r.candidate_count for r in fake.requests} == {3}
        warm = score_cli(evalset, tmp_path, "warm.json")
        assert len(fake.requests) == 8
    assert cold["stats"]["judge_calls"] == 8 and cold["stats"]["judge_cache_misses"] == 24
    # The prompt is billed once per request (100 tokens), each sample's output (20) adds up.
    assert cold["stats"]["judge_tokens"] == {"input": 800, "output": 480}
    assert cold["stats"]["estimated_cost_usd"] > 0
    assert warm["stats"]["judge_calls"] == 0 and warm["stats"]["judge_cache_hits"] == 24
    metric = warm["cases"][0]["metrics"]["rubric_based_final_response_quality_v1"]
    assert metric["score"] == 1.0 and metric["runs"][0]["rubric_scores"][0]["rationale"] == "it says so"
    assert warm["cases"] == cold["cases"]


def test_faults_leave_scores_not_evaluated_and_the_run_completes(tmp_path, monkeypatch, capsys):
    evalset = write_case_files(tmp_path, cases=2)
    with FakeGemini(responder=lambda r: Fault(503, "overloaded", retry_after=0.01)) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("GOOGLE_API_KEY", "k")
        out = tmp_path / "r.json"
        code = main(["score", str(evalset), "--actual", str(evalset), "--json", str(out), "--no-judge-cache"])
    results = json.loads(out.read_text())
    metric = results["cases"][0]["metrics"]["final_response_match_v2"]
    assert metric["status"] == "NOT_EVALUATED" and "HTTP 503" in metric["reason"] and "overloaded" in metric["reason"]
    assert results["cases"][0]["status"] == "NOT_EVALUATED" and code == 0
    assert not (tmp_path / ".agenteval").exists()


def test_no_credentials_is_not_evaluated_not_a_crash(tmp_path, monkeypatch, capsys):
    evalset = write_case_files(tmp_path, cases=1)
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "r.json"
    assert main(["score", str(evalset), "--actual", str(evalset), "--json", str(out), "--no-judge-cache"]) == 0
    metric = json.loads(out.read_text())["cases"][0]["metrics"]["final_response_match_v2"]
    assert metric["status"] == "NOT_EVALUATED" and "no judge credentials" in metric["reason"]
