"""`score --actual` matches recorded outputs on the case key (suite / eval set / case), not on
eval_id alone: a results file of several eval sets scores each, cases of other eval sets are
passed by with a note, and an eval set's outputs never stand in for another's with the same ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.runner.test_suites import AGENT, turn

PROJECT = """\
suites:
  - name: s1
    agent: agent.py:echo
    eval_sets: evals/*.evalset.json
  - name: s2
    agent: agent.py:echo
    eval_sets: evals/b.evalset.json
    num_runs: 2
"""


def _eval_set(path: Path, eval_set_id: str, texts: dict[str, str]) -> Path:
    """Cases whose expected turn is what the echo agent answers to that case's text."""
    cases = [{"eval_id": eval_id, "conversation": [turn(text, 1)]} for eval_id, text in texts.items()]
    path.write_text(json.dumps({"eval_set_id": eval_set_id, "eval_cases": cases}))
    return path


@pytest.fixture
def recorded(tmp_path, monkeypatch) -> Path:
    """Two eval sets with the same case ids and different turns, run by `run` into one results
    file: set_a under suite s1; set_b under s1 and s2 (twice a case there)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "evals").mkdir()
    _eval_set(tmp_path / "evals" / "a.evalset.json", "set_a", {"c1": "lights on", "c2": "lights off", "only_a": "blinds"})
    _eval_set(tmp_path / "evals" / "b.evalset.json", "set_b", {"c1": "heat up", "c2": "heat down"})
    (tmp_path / "agenteval.yaml").write_text(PROJECT)
    assert main(["run", "--no-gate", "--json", "results.json", "-q"]) == 0
    return tmp_path / "results.json"


def _scored(out: Path) -> list[tuple[str, str, int]]:
    return [(c["eval_set_id"], c["eval_id"], len(c["runs"])) for c in json.loads(out.read_text())["cases"] if c["status"] == "PASSED"]


def test_each_eval_set_of_a_results_file_scores_on_its_own_cases(recorded, capsys):
    assert main(["score", "evals/a.evalset.json", "--actual", str(recorded), "--json", "a.json", "--log-level", "info"]) == 0
    assert _scored(Path("a.json")) == [("set_a", "c1", 1), ("set_a", "c2", 1), ("set_a", "only_a", 1)]
    assert "results.json: cases of other eval sets passed by: 'set_b' (4 case(s))" in capsys.readouterr().err


def test_a_case_recorded_under_two_suites_is_the_named_suites(recorded, capsys):
    assert main(["score", "evals/b.evalset.json", "--actual", str(recorded)]) == 2
    assert "case 'c1' is recorded under suites 's1', 's2': name the one to score with --suite" in capsys.readouterr().err
    assert main(["score", "evals/b.evalset.json", "--actual", str(recorded), "--suite", "s2", "--json", "b.json"]) == 0
    assert _scored(Path("b.json")) == [("set_b", "c1", 2), ("set_b", "c2", 2)]  # s2 ran each case twice


def test_another_eval_sets_outputs_with_the_same_ids_are_no_outputs_of_this_one(recorded, capsys):
    """As an EvalSet-shaped file and as google-adk's evalset_result, each naming its eval set."""
    b_outputs = _eval_set(Path("b_outputs.json"), "set_b", {"c1": "heat up", "c2": "heat down"})
    assert main(["score", "evals/a.evalset.json", "--actual", str(b_outputs)]) == 2
    err = capsys.readouterr().err
    assert "no recorded output for eval_id(s): c1, c2, only_a (it holds other eval sets' cases: 'set_b' (2 case(s)))" in err

    cases = json.loads(b_outputs.read_text())["eval_cases"]
    per_case = [{"eval_id": c["eval_id"], "eval_metric_result_per_invocation": [{"actual_invocation": c["conversation"][0]}]} for c in cases]
    adk_result = Path("b.evalset_result.json")
    adk_result.write_text(json.dumps(json.dumps({"eval_set_result_id": "r", "eval_set_id": "set_b", "eval_case_results": per_case})))
    assert main(["score", "evals/a.evalset.json", "--actual", str(adk_result)]) == 2
    assert "no recorded output for eval_id(s): c1, c2, only_a" in capsys.readouterr().err
    assert main(["score", "evals/b.evalset.json", "--actual", str(adk_result)]) == 0
