"""`validate` reports every refusal `run` makes before it starts an agent. Each check of
runner/preflight.py has a bad input here (a check added without one fails the first test), as
does what `run` reads for the suites before their cases (an agent's .env, num_runs: auto's
baseline); for each, `run` and `validate` both exit 2 with the same problems, in a project and
in adk eval's form, whichever file a pre-commit hook names."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.files.eval_sets import no_case
from agenteval_ci.runner.preflight import CASE_CHECKS, CONFIG_CHECKS
from tests.runner.test_suites import AGENT, turn

STATIC_CASE = {"eval_id": "c1", "conversation": [turn("hi c1", 1)]}
PERSONA_CASE = {"eval_id": "p1", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask for a flight",
                                                           "user_persona": "NOVICE"}}
WITHOUT_PERSONA = "{{ conversation_plan }} {{ stop_signal }} {{ conversation_history }}"
PROJECT = "suites:\n  - agent: agent.py:echo\n    eval_sets: evals/*.evalset.json\n"
AUTO = PROJECT + "    num_runs: auto\n"


def _write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data))


def _good(root: Path) -> None:
    """An agent, an eval set and its config that `run` takes."""
    (root / "agent.py").write_text(AGENT)
    (root / "evals").mkdir()
    _write(root / "evals" / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0}})
    _write(root / "evals" / "a.evalset.json", {"eval_set_id": "a", "eval_cases": [STATIC_CASE]})


def _criteria_unwrapped(root: Path) -> None:
    _write(root / "evals" / "test_config.json", {"tool_trajectory_avg_score": 1.0})


def _no_case(root: Path) -> None:
    _write(root / "evals" / "a.evalset.json", {"eval_set_id": "a", "eval_cases": []})


def _persona_without_placeholder(root: Path) -> None:
    _write(root / "evals" / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0},
                                                 "user_simulator_config": {"custom_instructions": WITHOUT_PERSONA}})
    _write(root / "evals" / "a.evalset.json", {"eval_set_id": "a", "eval_cases": [STATIC_CASE, PERSONA_CASE]})


def _user_metric_problems(root: Path) -> None:
    (root / "evals" / "my_metrics.py").write_text("def other(*args):\n    return None\n")
    custom = {"code": {"code_config": {"name": "my_metrics.score"}},
              "inline": {"custom_function": "def evaluat(instance):\n    return 1\n"},
              "program": {"command": ["no-such-program-agenteval", "metric.js"]}}
    _write(root / "evals" / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0, "code": 0.5, "inline": 0.5, "program": 0.5},
                                                 "custom_metrics": custom})


def _dotenv_not_utf8(root: Path) -> None:
    (root / ".env").write_bytes(b"GOOGLE_API_KEY=\xff\xfe\n")


def _named_baseline_missing(root: Path) -> None:
    (root / "agenteval.yaml").write_text("baseline: gone.json\n" + AUTO)


def _baseline_unreadable(root: Path) -> None:
    (root / "agenteval.yaml").write_text("baseline: broken.json\n" + AUTO)
    _write(root / "broken.json", {"cases": "none"})


# Run's checks of eval configs and cases: in a project and in adk eval's form.
CHECKED: dict[str, Callable[[Path], None]] = {
    "no_gated_metric": _criteria_unwrapped,
    "no_case": _no_case,  # of an eval set, found as its cases are read
    "persona_without_placeholder": _persona_without_placeholder,
    "user_metric_problems": _user_metric_problems,
}
# What run reads for a project's suites before their cases.
READ_FOR_THE_SUITES: dict[str, Callable[[Path], None]] = {
    "dotenv_not_utf8": _dotenv_not_utf8,
    "named_baseline_missing": _named_baseline_missing,
    "baseline_unreadable": _baseline_unreadable,
}


def test_every_check_run_makes_has_a_bad_input_here():
    assert {check.__name__ for check in (*CONFIG_CHECKS, *CASE_CHECKS, no_case)} == set(CHECKED)


def _refused_by_run(argv: list[str], capsys) -> list[str]:
    """The problems `run` exits 2 with, a line each."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    problems = [line.removeprefix("agenteval: error: ") for line in err.splitlines() if line and not line.startswith("warning: ")]
    assert problems, err
    return problems


def _reported_by_validate(path: Path, problems: list[str], capsys) -> None:
    assert main(["validate", str(path)]) == 2
    reported = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    for problem in problems:
        assert any(problem in line for line in reported), (problem, reported)


@pytest.mark.parametrize("bad_input", sorted({**CHECKED, **READ_FOR_THE_SUITES}))
def test_validate_reports_what_run_refuses_in_a_project(tmp_path, capsys, monkeypatch, bad_input):
    monkeypatch.chdir(tmp_path)
    _good(tmp_path)
    Path("agenteval.yaml").write_text(PROJECT)
    {**CHECKED, **READ_FOR_THE_SUITES}[bad_input](tmp_path)
    problems = _refused_by_run(["run", "--no-gate"], capsys)
    for named in (Path("agenteval.yaml"), Path("evals/a.evalset.json"), Path("evals/test_config.json"), Path(".")):
        _reported_by_validate(named, problems, capsys)


@pytest.mark.parametrize("bad_input", sorted(CHECKED))
def test_validate_reports_what_run_refuses_in_adk_evals_form(tmp_path, capsys, monkeypatch, bad_input):
    monkeypatch.chdir(tmp_path)
    _good(tmp_path)
    CHECKED[bad_input](tmp_path)
    problems = _refused_by_run(["run", "agent.py:echo", "evals/a.evalset.json"], capsys)
    for named in (Path("evals/a.evalset.json"), Path("evals/test_config.json"), Path("evals")):
        _reported_by_validate(named, problems, capsys)


def test_the_good_input_is_run_and_valid(tmp_path, capsys, monkeypatch):
    """So each refusal above is the bad input's."""
    monkeypatch.chdir(tmp_path)
    _good(tmp_path)
    Path("agenteval.yaml").write_text(AUTO)
    assert main(["run", "--no-gate"]) == 0
    assert main(["validate", "."]) == 0
    assert main(["run", "agent.py:echo", "evals/a.evalset.json"]) == 0
