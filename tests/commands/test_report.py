"""`agenteval report` through the CLI, one test per format."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import pytest

from agenteval_ci.cli import main
from agenteval_ci.files.results_file import dump_results
from tests.report.scored import EXPECTED, lights, score


@pytest.fixture
def files(tmp_path):
    good, broken = tmp_path / "good.json", tmp_path / "broken.json"
    good.write_bytes(dump_results(score(tmp_path, EXPECTED, [EXPECTED], "g.json")))
    broken.write_bytes(dump_results(score(tmp_path, EXPECTED, [{**EXPECTED, "lights": lights(on=True)}], "b.json")))
    baseline = tmp_path / "baseline.json"
    assert main(["accept", str(good), "--baseline", str(baseline)]) == 0
    return broken, baseline


@pytest.mark.parametrize("fmt", ["md", "summary", "html", "junit", "json"])
def test_every_format_renders_the_regression(files, tmp_path, fmt):
    broken, baseline = files
    out = tmp_path / f"report.{fmt}"
    assert main(["report", str(broken), "--baseline", str(baseline), "--format", fmt, "-o", str(out)]) == 0
    text = out.read_text()
    if fmt == "json":
        assert json.loads(text)["cases"][0]["outcome"] == "regressed"
    elif fmt == "junit":
        failures = ET.fromstring(text).findall(".//testcase/failure")
        assert len(failures) == 1 and "tool_trajectory_avg_score" in failures[0].get("message")
    elif fmt == "html":  # the case's row carries its outcome (the CSS names every outcome anyway)
        assert 'data-outcome="regressed" data-text="default / home / lights' in text
    else:
        assert "lights" in text and "regressed" in text


def test_report_to_stdout_and_unknown_format(files, capsys):
    broken, baseline = files
    assert main(["report", str(broken), "--baseline", str(baseline), "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("<!-- agenteval-ci:suite=default -->")
    with pytest.raises(SystemExit) as exc:
        main(["report", str(broken), "--format", "pdf"])
    assert exc.value.code == 2
