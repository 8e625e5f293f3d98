"""`agenteval score` end to end through the real CLI entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agenteval_ci.cli import main


def _eval_set(tmp_path: Path, name: str, tool_args: dict, reply: str) -> Path:
    data = {
        "eval_set_id": "home",
        "eval_cases": [
            {
                "eval_id": "lights",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "Turn off the bedroom light"}], "role": "user"},
                        "final_response": {"parts": [{"text": reply}], "role": "model"},
                        "intermediate_data": {"tool_uses": [{"name": "set_device", "args": tool_args}]},
                    }
                ],
            }
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_identical_outputs_pass_and_write_results(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2, "on": False}, "The bedroom light is off.")
    actual = _eval_set(tmp_path, "actual.json", {"id": 2.0, "on": False}, "The bedroom light is off.")
    out = tmp_path / "results.json"
    assert main(["score", str(expected), "--actual", str(actual), "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    metric = results["cases"][0]["metrics"]["tool_trajectory_avg_score"]
    assert results["schema_version"] == 2
    assert metric["score"] == 1.0 and metric["status"] == "PASSED"
    assert results["cases"][0]["metrics"]["response_match_score"]["score"] == 1.0


def test_wrong_tool_args_fail_the_case(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    actual = _eval_set(tmp_path, "actual.json", {"id": 3}, "The bedroom light is off.")
    assert main(["score", str(expected), "--actual", str(actual)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_unknown_key_under_invocation_is_a_clear_error(tmp_path, capsys):
    path = _eval_set(tmp_path, "bad.evalset.json", {}, "x")
    data = json.loads(path.read_text())
    data["eval_cases"][0]["conversation"][0]["final_answer"] = "x"
    path.write_text(json.dumps(data))
    assert main(["score", str(path), "--actual", str(path)]) == 2
    err = capsys.readouterr().err
    assert "$.eval_cases[0].conversation[0].final_answer" in err
    assert "unknown key 'final_answer' in Invocation" in err and "final_response" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------- bad input: one clear paragraph, exit 2


def _score_error(argv: list[str], capsys) -> str:
    assert main(["score", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agenteval: error: ") and "Traceback" not in err
    return err


def test_malformed_json_names_line_and_column(tmp_path, capsys):
    good = _eval_set(tmp_path, "home.evalset.json", {}, "ok")
    bad = tmp_path / "broken.json"
    bad.write_text('{"eval_set_id": "home",\n "eval_cases": [\n')
    err = _score_error([str(bad), "--actual", str(good)], capsys)
    assert "broken.json: not valid JSON" in err and "line 3, column 1" in err


def test_conversation_and_scenario_together_is_an_error(tmp_path, capsys):
    path = _eval_set(tmp_path, "both.evalset.json", {}, "ok")
    data = json.loads(path.read_text())
    data["eval_cases"][0]["conversation_scenario"] = {"starting_prompt": "hi", "conversation_plan": "ask"}
    path.write_text(json.dumps(data))
    err = _score_error([str(path), "--actual", str(path)], capsys)
    assert "both.evalset.json at $.eval_cases[0]: " in err and "exactly one of `conversation`" in err


def test_criterion_with_wrong_types_lists_every_problem(tmp_path, capsys):
    path = _eval_set(tmp_path, "home.evalset.json", {}, "ok")
    config = tmp_path / "criteria.json"
    config.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {"threshold": "high", "match_type": "SOMETIMES"}}}))
    err = _score_error([str(path), "--actual", str(path), "--eval-config", str(config)], capsys)
    assert "criteria.json at $.criteria.tool_trajectory_avg_score.threshold: " in err and '"high"' in err
    assert "$.criteria.tool_trajectory_avg_score.match_type: unknown match_type 'SOMETIMES'" in err
    assert "EXACT, IN_ORDER or ANY_ORDER" in err


def test_actual_with_other_case_ids_is_an_error(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {}, "ok")
    other = json.loads(expected.read_text())
    other["eval_cases"][0]["eval_id"] = "heating"
    actual = tmp_path / "actual.json"
    actual.write_text(json.dumps(other))
    err = _score_error([str(expected), "--actual", str(actual)], capsys)
    assert "actual.json: eval_id(s) not in the eval set: heating" in err
    assert "no recorded output for eval_id(s): lights" in err


def test_judge_model_at_the_top_of_a_criterion_warns(tmp_path, capsys):
    path = _eval_set(tmp_path, "home.evalset.json", {}, "ok")
    (tmp_path / "test_config.json").write_text(
        json.dumps({"criteria": {"response_match_score": {"threshold": 0.5, "judge_model": "gemini-2.5-pro"}}})
    )
    assert main(["score", str(path), "--actual", str(path)]) == 0  # test_config.json beside the eval set
    err = capsys.readouterr().err
    assert "warning: " in err and "$.criteria.response_match_score.judge_model" in err
    assert "judge_model_options" in err


def test_the_installed_entry_point_exits_2_without_traceback(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "broken.json"
    bad.write_text("{")
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval_ci", "score", str(bad), "--actual", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------- runs, the results file and the table


def test_repeated_actuals_are_runs_and_the_case_score_is_their_mean(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    right = _eval_set(tmp_path, "run1.json", {"id": 2}, "The bedroom light is off.")
    wrong = _eval_set(tmp_path, "run2.json", {"id": 3}, "The bedroom light is off.")
    out = tmp_path / "results.json"
    code = main(["score", str(expected), "--actual", str(right), "--actual", str(wrong), "--json", str(out)])
    case = json.loads(out.read_text())["cases"][0]
    trajectory = case["metrics"]["tool_trajectory_avg_score"]
    assert [r["score"] for r in trajectory["runs"]] == [1.0, 0.0]
    assert trajectory["score"] == 0.5 and trajectory["status"] == "FAILED" and trajectory["threshold"] == 1.0
    assert [p["status"] for p in trajectory["runs"][1]["per_invocation"]] == ["FAILED"]
    assert case["eval_set_id"] == "home" and case["eval_id"] == "lights" and case["status"] == "FAILED"
    assert len(case["runs"]) == 2 and code == 1


def test_json_to_stdout_and_informational_metrics(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    assert main(["score", str(expected), "--actual", str(expected), "--json", "-"]) == 0
    results = json.loads(capsys.readouterr().out)
    metrics = results["cases"][0]["metrics"]
    assert metrics["tool_call_count_v1"]["score"] == 1.0 and metrics["tool_call_count_v1"]["status"] == "INFORMATIONAL"
    assert "threshold" not in metrics["tool_call_count_v1"]
    assert metrics["token_usage_v1"]["status"] == "INFORMATIONAL" and "score" not in metrics["token_usage_v1"]


def test_adk_evalset_result_as_actual(tmp_path, capsys):
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    invocation = json.loads(expected.read_text())["eval_cases"][0]["conversation"][0]
    adk_result = {
        "eval_set_result_id": "home_1",
        "eval_set_id": "home",
        "eval_case_results": [
            {"eval_id": "lights", "eval_metric_result_per_invocation": [{"actual_invocation": invocation}]}
        ],
    }
    actual = tmp_path / "home_1.evalset_result.json"
    actual.write_text(json.dumps(json.dumps(adk_result)))  # ADK double-encodes the file
    assert main(["score", str(expected), "--actual", str(actual)]) == 0
    assert "PASS" in capsys.readouterr().out


def test_unknown_top_level_key_is_a_warning_and_the_file_still_scores(tmp_path, capsys):
    path = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    path.write_text(json.dumps({**json.loads(path.read_text()), "owner": "qa"}))
    assert main(["score", str(path), "--actual", str(path)]) == 0
    assert f"warning: {path.as_posix()} at $.owner: unknown key; google-adk ignores it" in capsys.readouterr().err


def test_a_deterministic_score_loads_neither_the_judge_nor_asyncio_nor_the_user_metrics_runner(tmp_path):
    """Start-up time is part of every CI job; the judged metrics' modules, what runs the user's
    own metrics, and the gate with the PR comment's view (`score` compares nothing) load only when used."""
    path = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    code = (
        "import sys; from agenteval_ci.cli import main; "
        f"code = main(['score', {str(path)!r}, '--actual', {str(path)!r}, '--json', {str(tmp_path / 'r.json')!r}]); "
        "print(code, sorted(m for m in sys.modules if m == 'asyncio' or m.startswith(('agenteval_ci.judge', 'agenteval_ci.core.metrics.llm', 'google.genai', "
        "'agenteval_ci.files.user_metrics', 'agenteval_ci.core.metrics.user', 'agenteval_ci.report.view', 'agenteval_ci.core.gate'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip().splitlines()[-1] == "0 []", proc.stderr


def test_the_console_entry_flushes_everything_before_its_fast_exit(tmp_path):
    """`python -m agenteval_ci score` skips freeing records at exit; nothing it wrote may be lost."""
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    actual = _eval_set(tmp_path, "actual.json", {"id": 3}, "The bedroom light is off.")
    command = [sys.executable, "-m", "agenteval_ci", "score", str(expected), "--actual", str(actual)]
    to_stdout = subprocess.run([*command, "--json", "-"], capture_output=True, text=True)
    assert to_stdout.returncode == 1, to_stdout.stderr
    assert json.loads(to_stdout.stdout)["cases"][0]["status"] == "FAILED"
    table = subprocess.run(command, capture_output=True, text=True)
    assert table.returncode == 1 and table.stdout.rstrip().endswith(
        "judge: 0 call(s), 0 cache hit(s), 0/0 tokens in/out"
    ), table.stdout[-300:]
    bad = subprocess.run([*command[:-2], "--actual", str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert bad.returncode == 2 and "file not found" in bad.stderr


def test_adk_result_of_a_case_whose_agent_raised_scores_failed(tmp_path, capsys):
    """google-adk writes an inference failure as final_eval_status FAILED with no invocations;
    the file here is made by google-adk's own model, so it has ADK's exact shape."""
    from google.adk.evaluation.eval_result import EvalCaseResult, EvalSetResult
    from google.adk.evaluation.evaluator import EvalStatus

    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    failed = EvalCaseResult(
        eval_set_file="home", eval_set_id="home", eval_id="lights", final_eval_status=EvalStatus.FAILED,
        overall_eval_metric_results=[], eval_metric_result_per_invocation=[], session_id="s1", user_id="u",
    )
    result = EvalSetResult(eval_set_result_id="home_1", eval_set_id="home", eval_case_results=[failed])
    actual = tmp_path / "home_1.evalset_result.json"
    actual.write_text(json.dumps(result.model_dump_json()))
    assert main(["score", str(expected), "--actual", str(actual)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "the agent's run failed" in out


def test_a_config_that_gates_on_nothing_is_refused_as_run_refuses_it(tmp_path, capsys):
    """A config whose criteria are missing (unwrapped) or empty would score every
    case NOT_EVALUATED or INFORMATIONAL, and no case can fail then: exit 2, naming $.criteria."""
    expected = _eval_set(tmp_path, "home.evalset.json", {"id": 2}, "The bedroom light is off.")
    actual = _eval_set(tmp_path, "actual.json", {"id": 3}, "Something else entirely.")
    for name, config in {"unwrapped.json": {"tool_trajectory_avg_score": 1.0},
                         "empty.json": {"criteria": {}}}.items():
        (tmp_path / name).write_text(json.dumps(config))
        out = tmp_path / f"{name}.results.json"
        assert main(["score", str(expected), "--actual", str(actual), "--eval-config", str(tmp_path / name), "--json", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"{name} at $.criteria: no gated metric" in err
        assert not out.exists()  # nothing written for a refused score


def test_an_eval_set_without_a_case_is_refused(tmp_path, capsys):
    """Nothing scored is no pass: exit 2 naming the eval set, as `run` and `validate` do."""
    empty = tmp_path / "empty.evalset.json"
    empty.write_text(json.dumps({"eval_set_id": "home", "eval_cases": []}))
    out = tmp_path / "results.json"
    assert main(["score", str(empty), "--actual", str(empty), "--json", str(out)]) == 2
    assert f"{empty.as_posix()} at $.eval_cases: no eval case" in capsys.readouterr().err
    assert not out.exists()
