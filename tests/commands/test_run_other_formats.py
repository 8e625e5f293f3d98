"""`agenteval run` of eval sets in other tools' formats: an agents-cli dataset and Vertex rows, as
a project's suites, against a Python callable agent; a regression in the agent fails the gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agenteval_ci.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"

AGENT = '''
import os

def answer(text, session):
    if "capital of France" in text:
        return {"response": os.environ.get("CAPITAL_REPLY", "The capital of France is Paris.")}
    if "smartphone" in text:
        return {"response": "The price of the smartphone is 500.",
                "predicted_trajectory": [{"tool_name": "get_product_price", "tool_input": {"product_name": "smartphone"}}]}
    return {"response": "I can help with capitals and prices."}
'''


def _project(tmp_path: Path) -> Path:
    evals = tmp_path / "evals"
    evals.mkdir()
    shutil.copy(DATA / "agents_cli" / "basic-dataset.json", evals)
    (evals / "rows.jsonl").write_text((DATA / "vertex" / "dataset.jsonl").read_text().splitlines()[0] + "\n")
    (evals / "test_config.json").write_text(json.dumps({"criteria": {"exact_match": 1.0}}))
    (tmp_path / "bot.py").write_text(AGENT)
    config = tmp_path / "agenteval.yaml"
    config.write_text("suites:\n  - agent: bot.py:answer\n    eval_sets: ['evals/basic-dataset.json', 'evals/rows.jsonl']\n")
    return config


def test_both_formats_run_and_a_changed_answer_fails(tmp_path, monkeypatch):
    config = _project(tmp_path)
    out = tmp_path / "results.json"
    assert main(["run", "--config", str(config), "--json", str(out), "--no-gate"]) in (0, 1)
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["capital_lookup"]["metrics"]["exact_match"]["score"] == 1.0
    assert cases["row_1"]["metrics"]["exact_match"]["score"] == 1.0
    assert cases["greeting"]["metrics"]["exact_match"]["score"] == 0.0  # nothing expected is not a match

    monkeypatch.setenv("CAPITAL_REPLY", "Paris, I think.")
    assert main(["run", "--config", str(config), "--json", str(out), "--no-gate"]) in (0, 1)
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["capital_lookup"]["metrics"]["exact_match"]["score"] == 0.0
    assert cases["capital_lookup"]["status"] == "FAILED"
