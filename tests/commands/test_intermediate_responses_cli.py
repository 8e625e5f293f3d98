"""Intermediate responses (sub-agents' answers, texts between calls) in the case detail of the PR
comment and the HTML report: expected and actual, author and text, with a diff where they differ."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from agenteval_ci.cli import main

AGENT = '''
import os

def agent(text, session):
    planner = os.environ.get("PLANNER_SAYS", "I will look the order up first.")
    return {"response": os.environ.get("ANSWER", "Order A-17 is late."),
            "steps": [{"text": planner}, {"name": "lookup_order", "args": {"order_id": "A-17"}, "response": {"late": True}}],
            "app_details": {"agent_details": {"planner": {"name": "planner"}}}}
'''
CASE = {
    "eval_id": "late_order",
    "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": "Where is order A-17?"}]},
        "final_response": {"role": "model", "parts": [{"text": "Order A-17 is late."}]},
        "intermediate_data": {"tool_uses": [{"name": "lookup_order", "args": {"order_id": "A-17"}}],
                              "intermediate_responses": [["planner", [{"text": "I will look the order up first."}]]]},
    }],
}


def _project(tmp_path: Path) -> Path:
    (tmp_path / "orders.py").write_text(AGENT)
    (tmp_path / "orders.evalset.json").write_text(json.dumps({"eval_set_id": "orders", "eval_cases": [CASE]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}))
    config = tmp_path / "agenteval.yaml"
    config.write_text(yaml.safe_dump({"suites": [{"agent": "orders.py:agent", "eval_sets": "orders.evalset.json", "eval_config": "test_config.json"}]}))
    return config


def test_a_changed_sub_agent_answer_is_shown_expected_against_actual(tmp_path, monkeypatch, capsys):
    config = _project(tmp_path)
    passing, failing, baseline = tmp_path / "pass.json", tmp_path / "fail.json", tmp_path / "baseline.json"
    assert main(["run", "--config", str(config), "--json", str(passing), "-q"]) == 0
    assert main(["accept", str(passing), "--baseline", str(baseline)]) == 0
    monkeypatch.setenv("PLANNER_SAYS", "I will refund it without looking.")
    monkeypatch.setenv("ANSWER", "Refunded.")
    assert main(["run", "--config", str(config), "--json", str(failing), "-q", "--no-gate"]) == 1
    capsys.readouterr()
    assert main(["compare", str(failing), "--baseline", str(baseline), "--md", "-"]) == 1
    comment = capsys.readouterr().out
    assert "Intermediate responses (sub-agents' answers and texts between calls), expected → actual:" in comment
    assert "-planner: I will look the order up first." in comment
    assert "+planner: I will refund it without looking." in comment

    assert main(["report", str(failing), "--baseline", str(baseline), "--format", "html", "-o", str(tmp_path / "r.html")]) in (0, 1)
    html = (tmp_path / "r.html").read_text()
    assert "Intermediate responses diff (author: text)" in html
    assert '<span class="muted">planner:</span> I will look the order up first.<br>Order A-17 is late.' in html  # expected
    assert '<span class="muted">planner:</span> I will refund it without looking.<br>Refunded.' in html  # actual


def test_run_detailed_prints_expected_and_actual_intermediate_responses(tmp_path, capsys):
    config = _project(tmp_path)
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "r.json"), "--detailed"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"expected_intermediate: +planner: I will look the order up first\.", out)
    assert re.search(r"actual_intermediate: +planner: I will look the order up first\.", out)
