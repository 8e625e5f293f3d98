"""`agenteval compare` through the CLI: exit codes, --json and --md outputs."""

from __future__ import annotations

import json

from agenteval_ci.cli import main
from agenteval_ci.commands.compare import compare_and_report
from agenteval_ci.files.results_file import dump_results
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, lights, score


def _results_file(tmp_path, runs, name):
    path = tmp_path / f"file-{name}"
    path.write_bytes(dump_results(score(tmp_path, EXPECTED, runs, name)))
    return path


def test_compare_exit_codes_and_outputs(tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    good = _results_file(tmp_path, [EXPECTED, EXPECTED], "good.json")
    broken = _results_file(tmp_path, [{**EXPECTED, "lights": lights(on=True)}] * 2, "broken.json")
    assert main(["accept", str(good), "--baseline", str(baseline)]) == 0
    assert main(["compare", str(good), "--baseline", str(baseline)]) == 0
    assert "gate passed" in capsys.readouterr().out

    md, js = tmp_path / "comment.md", tmp_path / "comparison.json"
    assert main(["compare", str(broken), "--baseline", str(baseline), "--md", str(md), "--json", str(js)]) == 1
    assert "gate failed" in capsys.readouterr().out
    assert md.read_text().startswith("<!-- agenteval-ci:suite=default -->\n> [!CAUTION]")
    data = json.loads(js.read_text())
    assert data["verdict"] == "failed" and data["regressions"] == 1 and data["exit_code"] == 1
    assert main(["compare", str(broken), "--baseline", str(baseline), "--fail-on", "never"]) == 0


def test_no_baseline_falls_back_to_thresholds_and_says_how_to_create_one(tmp_path, capsys, monkeypatch):
    broken = _results_file(tmp_path, [{**EXPECTED, "lights": lights(on=True)}], "broken.json")
    monkeypatch.chdir(tmp_path)  # the default baseline path, absent: a first run
    assert main(["compare", str(broken), "--md", "-"]) == 1
    captured = capsys.readouterr()
    assert "No baseline yet" in captured.out and "/agenteval accept" in captured.out
    assert "no baseline at .agenteval/baseline.json: this is a first run" in captured.err


def test_a_named_baseline_that_does_not_exist_is_an_error(tmp_path, capsys):
    good = _results_file(tmp_path, [EXPECTED], "good.json")
    assert main(["compare", str(good), "--baseline", str(tmp_path / "nothere.json")]) == 2
    assert "nothere.json: file not found (it was named explicitly" in capsys.readouterr().err
    config = tmp_path / "agenteval.yaml"
    config.write_text("baseline: .agenteval/baselin.json\nsuites: [{agent: a.py:f, eval_sets: [x.json]}]\n")
    assert main(["compare", str(good), "--config", str(config)]) == 2
    assert "baselin.json: file not found" in capsys.readouterr().err


def test_corrupt_baseline_and_bad_flags_exit_2(tmp_path, capsys):
    good = _results_file(tmp_path, [EXPECTED], "good.json")
    baseline = tmp_path / "baseline.json"
    baseline.write_text("{")
    assert main(["compare", str(good), "--baseline", str(baseline)]) == 2
    assert f"{baseline}: not valid JSON" in capsys.readouterr().err
    assert main(["compare", str(good), "--baseline", str(tmp_path / "x.json"), "--confidence", "1.5"]) == 2
    assert "--confidence" in capsys.readouterr().err


def test_compare_and_report_is_what_run_calls(tmp_path):
    results = score(tmp_path, EXPECTED, [EXPECTED], "r.json")
    md = tmp_path / "out" / "comment.md"
    comparison = compare_and_report(results, tmp_path / "missing.json", GateSettings(), md_out=str(md))
    assert comparison.verdict == "passed" and not comparison.has_baseline
    assert md.read_text().startswith("<!-- agenteval-ci:suite=default -->")
