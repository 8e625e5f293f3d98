"""What a person reads in a terminal: colour rules, the named changes, adk eval's turn details."""

from __future__ import annotations

import io
import os
import re

import pytest

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.report.console import Style, colour_wanted, render_changes, turn_details
from agenteval_ci.report.table import render_table
from agenteval_ci.schema import Status
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, Turn, lights, score


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("env, tty, wanted", [
    ({}, True, True),
    ({}, False, False),  # a CI log, a pipe, a file
    ({"NO_COLOR": "1"}, True, False),
    ({"NO_COLOR": ""}, True, True),  # no-color.org: only a non-empty value counts
    ({"FORCE_COLOR": "1"}, False, True),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),  # NO_COLOR wins, as in CPython's own rule
    ({"TERM": "dumb"}, True, False),
])
def test_colour_follows_no_color_force_color_and_the_terminal(monkeypatch, env, tty, wanted):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert colour_wanted(Terminal() if tty else io.StringIO(), os.environ) is wanted


def test_changed_cases_are_named_with_baseline_to_pr_per_metric(tmp_path):
    failing_music = {**EXPECTED, "music": [Turn("Play jazz", "Playing rock.", [("play", {"genre": "rock"})])]}
    base = score(tmp_path, EXPECTED, [failing_music], "base.json")
    broken_lights = {**EXPECTED, "lights": lights(on=True)}
    new = score(tmp_path, EXPECTED, [broken_lights], "new.json")
    comparison = compare(new, baseline_from_results(base), GateSettings())
    text = render_changes(comparison)
    regressed, fixed = text.split("  FIXED (1)")
    assert "  REGRESSED (1)\n    default / home / lights\n" in regressed
    assert "tool_trajectory_avg_score  1.000 → 0.000  (-1.000)  PASSED → FAILED  threshold 1" in regressed
    assert "default / home / music" in fixed and "0.000 → 1.000  (+1.000)  FAILED → PASSED" in fixed
    assert "weather" not in text  # unchanged cases are not listed
    assert "\x1b[" not in text
    assert "\x1b[31mREGRESSED (1)\x1b[0m" in render_changes(comparison, Style(colour=True))
    table = render_table(new, outcomes={c.key: c.outcome for c in comparison.cases})
    assert "REGRESSED  default / home / lights\n" in table and "PASS       default / home / weather\n" in table
    assert "FIXED      default / home / music\n" in table


def test_unevaluated_cases_say_why(tmp_path):
    base = score(tmp_path, EXPECTED, [EXPECTED], "base.json")
    new = score(tmp_path, EXPECTED, [EXPECTED], "new.json")
    metric = new.cases[1].metrics["response_match_score"]
    lost = metric.model_copy(update={"status": Status.NOT_EVALUATED, "score": None, "reason": "unparseable judge reply"})
    new.cases[1].metrics["response_match_score"] = lost
    text = render_changes(compare(new, baseline_from_results(base), GateSettings()))
    assert "UNEVALUATED (1): not evaluated now (lost coverage)\n    default / home / weather\n" in text
    assert "response_match_score  1.000 → –  PASSED → NOT_EVALUATED" in text
    assert "response_match_score: unparseable judge reply" in text


def test_detailed_results_show_each_turn_as_adk_eval_does(tmp_path):
    wrong = {**EXPECTED, "lights": lights(on=True, reply="Done, the lamp is on.")}
    results = score(tmp_path, EXPECTED, [EXPECTED, wrong], "r.json")
    lines = turn_details(results.cases[0])
    text = "\n".join(lines)
    assert "run 1 of 2: tool_trajectory_avg_score 1.000, response_match_score 1.000" in text
    second_run = lines.index(next(x for x in lines if "run 2 of 2" in x))
    fields = {line.split(":", 1)[0].strip(): " ".join(line.split(":", 1)[1].split()) for line in lines[1:second_run] if ":" in line}
    assert fields["prompt"] == "Turn off the bedroom light"
    assert fields["expected_response"] == "The bedroom light is off."
    assert fields["actual_response"] == "The bedroom light is off."
    assert "run 2 of 2: tool_trajectory_avg_score 0.000, response_match_score 0.400" in text
    second = "\n".join(lines[second_run:])
    assert re.search(r"actual_response: +Done, the lamp is on\.", second)
    assert re.search(r'expected_tool_calls: +set_device\(\{"id": 2, "on": false\}\)', second)
    assert re.search(r'actual_tool_calls: +set_device\(\{"id": 2, "on": true\}\)', second)
    assert re.search(r"tool_trajectory_avg_score: +0\.000 FAILED", second)
    table = render_table(results, detailed=True)
    assert "per turn: []" not in table and "actual_response:" in table
