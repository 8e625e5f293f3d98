"""The offline example's rubric-judged eval set scores from its committed judge cache, with no API key.

Fails when a change to the cases, rubrics or judge prompts invalidates the cache: re-record
with examples/home_automation/record_judge_cache.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "home_automation"


def test_example_runs_its_rubric_metric_offline_from_the_committed_cache(tmp_path, monkeypatch, capsys):
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # nothing listens: a call would fail
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(EXAMPLE / "agenteval.yaml"), "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert results["stats"]["judge_calls"] == 0 and results["stats"]["judge_cache_hits"] == 9
    case = next(c for c in results["cases"] if (c["eval_set_id"], c["eval_id"]) == ("home_judged", "out_of_scope"))
    rubrics = case["metrics"]["rubric_based_final_response_quality_v1"]["runs"][0]["rubric_scores"]
    assert {r["rubric_id"]: r["score"] for r in rubrics} == {"confirms_change": 0.0, "one_sentence": 1.0}
    assert all(r["rationale"] for r in rubrics)
