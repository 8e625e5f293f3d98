"""`validate` reports every refusal `run` makes before it starts an agent: each check of
runner/preflight.py has a bad input here (a check added without one fails the first test), and
for each, `run` and `validate` both exit 2 with the same problems, in a project and in adk
eval's form, for whichever file a pre-commit hook would name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.runner.preflight import CASE_CHECKS, CONFIG_CHECKS
from tests.runner.test_suites import AGENT, turn

STATIC_CASE = {"eval_id": "c1", "conversation": [turn("hi c1", 1)]}
PERSONA_CASE = {"eval_id": "p1", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask for a flight",
                                                           "user_persona": "NOVICE"}}
WITHOUT_PERSONA = "{{ conversation_plan }} {{ stop_signal }} {{ conversation_history }}"


def _criteria_unwrapped(evals: Path) -> None:
    _write(evals / "test_config.json", {"tool_trajectory_avg_score": 1.0})
    _write(evals / "a.evalset.json", {"eval_set_id": "a", "eval_cases": [STATIC_CASE]})


def _persona_without_placeholder(evals: Path) -> None:
    _write(evals / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0},
                                        "user_simulator_config": {"custom_instructions": WITHOUT_PERSONA}})
    _write(evals / "a.evalset.json", {"eval_set_id": "a", "eval_cases": [STATIC_CASE, PERSONA_CASE]})


BAD_INPUTS: dict[str, Callable[[Path], None]] = {
    "no_gated_metric": _criteria_unwrapped,
    "persona_without_placeholder": _persona_without_placeholder,
}


def _write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data))


def test_every_check_run_makes_has_a_bad_input_here():
    assert {check.__name__ for check in (*CONFIG_CHECKS, *CASE_CHECKS)} == set(BAD_INPUTS)


def _refused_by_run(argv: list[str], capsys) -> list[str]:
    """The problems `run` exits 2 with, a line each."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    problems = [line.removeprefix("agenteval: error: ") for line in err.splitlines() if not line.startswith("warning: ")]
    assert problems and all(" at $." in line for line in problems), err
    return problems


def _reported_by_validate(path: Path, problems: list[str], capsys) -> None:
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    for problem in problems:
        assert f"  {problem}" in out.splitlines(), (problem, out)


@pytest.mark.parametrize("check", sorted(BAD_INPUTS))
def test_validate_reports_what_run_refuses_in_a_project(tmp_path, capsys, monkeypatch, check):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "evals").mkdir()
    BAD_INPUTS[check](Path("evals"))
    Path("agenteval.yaml").write_text("suites:\n  - agent: agent.py:echo\n    eval_sets: evals/*.evalset.json\n")
    problems = _refused_by_run(["run", "--no-gate"], capsys)
    for named in (Path("agenteval.yaml"), Path("evals/a.evalset.json"), Path("evals/test_config.json"), Path(".")):
        _reported_by_validate(named, problems, capsys)


@pytest.mark.parametrize("check", sorted(BAD_INPUTS))
def test_validate_reports_what_run_refuses_in_adk_evals_form(tmp_path, capsys, monkeypatch, check):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "evals").mkdir()
    BAD_INPUTS[check](Path("evals"))
    problems = _refused_by_run(["run", "agent.py:echo", "evals/a.evalset.json"], capsys)
    for named in (Path("evals/a.evalset.json"), Path("evals/test_config.json"), Path("evals")):
        _reported_by_validate(named, problems, capsys)
