"""agents-cli's own custom metrics score here exactly as google-agents-cli 1.11 scores them
itself: its `instance` (Content dicts, the reference under `response`, agent_data's turns and
events) is rebuilt as agents-cli builds it. A recorded differential: agents-cli's scores of the
same traces and metrics, made by the commands in tests/data/agents_cli_grade/README.md."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "agents_cli_grade"


def test_custom_metrics_score_as_agents_cli_scores_them(tmp_path):
    out = tmp_path / "results.json"
    code = main(["score", str(DATA / "dataset.json"), "--actual", str(DATA / "traces.json"),
                 "--eval-config", str(DATA / "eval_config.yaml"), "--json", str(out), "-q"])
    assert code == 0
    ours = {c["eval_id"]: {name: m["score"] for name, m in c["metrics"].items() if m["status"] != "INFORMATIONAL"}
            for c in json.loads(out.read_text())["cases"]}
    assert ours == json.loads((DATA / "agents_cli_scores.json").read_text())
