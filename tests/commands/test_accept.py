"""`agenteval accept` through the CLI: whole, partial, and refusing unusable baselines."""

from __future__ import annotations

import json

import pytest

from agenteval_ci.cli import main
from agenteval_ci.files.results_file import dump_results
from tests.report.scored import EXPECTED, lights, score


def _results_file(tmp_path, runs, name):
    results = score(tmp_path, EXPECTED, runs, name)
    path = tmp_path / f"file-{name}"
    path.write_bytes(dump_results(results))
    return path


def test_accept_writes_then_partially_updates_the_baseline(tmp_path, capsys):
    baseline = tmp_path / ".agenteval" / "baseline.json"
    good = _results_file(tmp_path, [EXPECTED], "good.json")
    assert main(["accept", str(good), "--baseline", str(baseline), "--commit", "c0ffee"]) == 0
    first = json.loads(baseline.read_text())
    assert first["provenance"]["commit"] == "c0ffee"
    assert sorted(first["suites"]["default"]["home"]) == ["lights", "music", "weather"]

    worse = _results_file(tmp_path, [{**EXPECTED, "lights": lights(on=True), "music": lights()}], "worse.json")
    assert main(["accept", str(worse), "--baseline", str(baseline), "--case", "lights"]) == 0
    second = json.loads(baseline.read_text())
    assert second["suites"]["default"]["home"]["lights"]["status"] == "FAILED"
    assert second["suites"]["default"]["home"]["music"] == first["suites"]["default"]["home"]["music"]
    assert "accepted lights into" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content",
    ['{"schema_version": 1, "provenance": {"creat', "not json at all", '{"schema_version": 7, "provenance": {}}'],
    ids=["truncated", "corrupt", "future-version"],
)
def test_unusable_baseline_exits_2_and_is_left_untouched(tmp_path, capsys, content):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(content)
    good = _results_file(tmp_path, [EXPECTED], "good.json")
    assert main(["accept", str(good), "--baseline", str(baseline)]) == 2
    err = capsys.readouterr().err
    assert str(baseline) in err and "Traceback" not in err
    assert baseline.read_text() == content
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".baseline")] == []


def test_unknown_case_exits_2_without_writing(tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    good = _results_file(tmp_path, [EXPECTED], "good.json")
    assert main(["accept", str(good), "--baseline", str(baseline), "--case", "nope"]) == 2
    assert "--case not in the results: nope" in capsys.readouterr().err
    assert not baseline.exists()
