"""`agenteval compare` with agenteval.yaml's gate policy per metric, through the CLI."""

from __future__ import annotations

from agenteval_ci.cli import main
from agenteval_ci.files.results_file import dump_results
from tests.report.scored import EXPECTED, lights, score


def _files(tmp_path):
    good, broken = tmp_path / "good.results.json", tmp_path / "broken.results.json"
    good.write_bytes(dump_results(score(tmp_path, EXPECTED, [EXPECTED], "good.json")))
    broken.write_bytes(dump_results(score(tmp_path, EXPECTED, [{**EXPECTED, "lights": lights(on=True)}], "broken.json")))
    assert main(["accept", str(good), "--baseline", str(tmp_path / "baseline.json")]) == 0
    return broken


def _config(tmp_path, gate: str):
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"baseline: baseline.json\nsuites: [{{agent: a.py:f, eval_sets: [x.json]}}]\ngate:\n{gate}")
    return config


def test_a_warn_metric_regressing_leaves_the_gate_green_and_says_so(tmp_path, capsys):
    broken = _files(tmp_path)
    capsys.readouterr()
    assert main(["compare", str(broken), "--config", str(_config(tmp_path, "  tolerance: 0.05\n"))]) == 1
    assert "gate failed" in capsys.readouterr().out
    warn = _config(tmp_path, "  metrics: {tool_trajectory_avg_score: {severity: warn}}\n")
    assert main(["compare", str(broken), "--config", str(warn), "--md", str(tmp_path / "c.md")]) == 0
    out = capsys.readouterr().out
    assert "gate passed" in out and "warn only (does not fail the gate):\n  - tool_trajectory_avg_score: regressed" in out
    assert "**Warn only (gate.metrics severity: warn)" in (tmp_path / "c.md").read_text()


def test_a_bad_policy_is_named_by_its_path_and_exits_2(tmp_path, capsys):
    broken = _files(tmp_path)
    bad = _config(tmp_path, "  metrics: {tool_trajectory_avg_score: {severity: sometimes}}\n")
    assert main(["compare", str(broken), "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "agenteval.yaml" in err and "gate.metrics.tool_trajectory_avg_score.severity" in err
