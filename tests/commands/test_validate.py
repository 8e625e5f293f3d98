"""`agenteval validate`: files and folders, every problem with file and JSON path."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main

GOOD_CASE = {"eval_id": "a", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]}


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_a_folder_of_valid_files_passes(tmp_path, capsys):
    _write(tmp_path / "evals" / "home.evalset.json", {"eval_set_id": "home", "eval_cases": [GOOD_CASE]})
    _write(tmp_path / "evals" / "deep" / "old.test.json", [{"query": "hi", "expected_tool_use": [], "reference": "hello"}])
    _write(tmp_path / "evals" / "test_config.json", {"criteria": {"trajectory_precision": 0.5, "response_match_score": 0.7}})
    _write(tmp_path / "evals" / "notes.json", {"not": "an eval set"})  # not a pattern we check
    assert main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "3 file(s) checked, 0 invalid" in out and "legacy test file, 1 case(s)" in out


def test_every_problem_of_every_file_is_printed_and_exit_is_2(tmp_path, capsys):
    bad_case = {"eval_id": "a", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}, "final_answer": "x"}]}
    _write(tmp_path / "bad.evalset.json", {"eval_set_id": "s", "eval_cases": [GOOD_CASE, bad_case]})
    _write(tmp_path / "test_config.json", {"criteria": {"no_such_metric": 1.0, "trajectory_single_tool_use": 0.5}})
    _write(tmp_path / "good.evalset.json", {"eval_set_id": "s", "eval_cases": [GOOD_CASE]})
    assert main(["validate", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "$.eval_cases[1].conversation[0].final_answer" in out
    assert "$.criteria.no_such_metric: unknown metric 'no_such_metric'" in out
    assert "$.criteria.trajectory_single_tool_use" in out and "tool_name" in out  # required key missing
    # the good eval set too: adk eval's form would run it with the broken test_config.json beside it
    assert f"INVALID {(tmp_path / 'good.evalset.json').as_posix()}" in out
    assert "3 file(s) checked, 3 invalid" in out


def test_a_missing_path_is_a_usage_error(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_informational_metrics_take_no_threshold(tmp_path, capsys):
    _write(tmp_path / "test_config.json", {"criteria": {"token_usage_v1": 100}})
    assert main(["validate", str(tmp_path / "test_config.json")]) == 2
    assert "informational" in capsys.readouterr().out


# ---------------------------------------------------------------- agenteval.yaml (issue 24)

HOME = Path(__file__).resolve().parents[2] / "examples" / "home_automation"
RULED_SET = {"eval_set_id": "ruled", "eval_cases": [{"eval_id": "light", "conversation": [{
    "user_content": {"parts": [{"text": "Turn on the kitchen light"}]},
    "final_response": {"parts": [{"text": "The kitchen light is now on."}]},
    "intermediate_data": {"tool_uses": [{"name": "set_light", "args": {"room": "kitchen", "on": True}}]}}]}]}


def _ruled_project(tmp_path: Path, rules: str, extra: str = "") -> Path:
    _write(tmp_path / "evals" / "home.evalset.json", RULED_SET)
    config = tmp_path / "agenteval.yaml"
    config.write_text(f"suites:\n  - agent: {HOME / 'agent.py'}:handle\n    eval_sets: evals/*.evalset.json\n"
                      f"    criteria: {{tool_argument_match_score: 0.9}}\n    tool_args: {rules}\n{extra}")
    (tmp_path / ".git").mkdir(exist_ok=True)  # the repository root: the search for the project file stops here
    return config


def test_agenteval_yaml_is_checked_as_run_would_load_it(tmp_path, capsys):
    config = _ruled_project(tmp_path, "{set_light: {room: text}}")
    assert main(["validate", str(config)]) == 0
    assert "(project, 1 suite(s), 1 eval set file(s), 1 case(s))" in capsys.readouterr().out
    bad = {
        "{set_lights: {room: text}}": "$.suites[0].tool_args.set_lights: no case expects a call of 'set_lights' (expected tools: set_light)",
        "{set_light: {rooms: text}}": "$.suites[0].tool_args.set_light.rooms: 'rooms' leads into nothing",
    }
    for rules, message in bad.items():
        _ruled_project(tmp_path, rules)
        assert main(["validate", str(config)]) == 2
        assert message in capsys.readouterr().out
        assert main(["run", "--config", str(config)]) == 2  # what validate catches is what run refuses
        assert message in capsys.readouterr().err
    _ruled_project(tmp_path, "{}", "    concurency: 3\n    num_runs: 0\n")
    assert main(["validate", str(config)]) == 2
    out = capsys.readouterr().out
    assert "$.suites[0].concurency: unknown key" in out and "$.suites[0].num_runs" in out


def test_a_suite_whose_agent_is_missing_is_invalid_without_running_anything(tmp_path, capsys):
    config = _ruled_project(tmp_path, "{}")
    for agent, message in [("no_such_agent", "no agent folder, .py file or module 'no_such_agent'"),
                           ("gone.py:handle", "no such file: "), ("evals", "is a folder without __init__.py")]:
        config.write_text(config.read_text().replace(f"{HOME / 'agent.py'}:handle", agent))
        assert main(["validate", str(config)]) == 2
        assert "agenteval.yaml at $.suites[0].agent: " in (out := capsys.readouterr().out) and message in out
        config.write_text(config.read_text().replace(f"agent: {agent}", f"agent: {HOME / 'agent.py'}:handle"))


def test_an_eval_set_named_alone_brings_its_project_along(tmp_path, capsys):
    """pre-commit passes only the changed eval set; a rule it breaks in agenteval.yaml must fail."""
    _ruled_project(tmp_path, "{set_light: {room: text}}")
    evalset = tmp_path / "evals" / "home.evalset.json"
    assert main(["validate", str(evalset)]) == 0
    assert f"(the project of {evalset.as_posix()})" in capsys.readouterr().out
    edited = json.loads(json.dumps(RULED_SET))
    edited["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"][0]["name"] = "switch_light"
    _write(evalset, edited)
    assert main(["validate", str(evalset)]) == 2
    out = capsys.readouterr().out
    assert f"ok      {evalset.as_posix()}" in out and f"agenteval.yaml (the project of {evalset.as_posix()})\n" in out
    assert "no case expects a call of 'set_light' (expected tools: switch_light)" in out


def test_an_eval_configs_rules_are_checked_against_the_eval_sets_that_use_it(tmp_path, capsys):
    _write(tmp_path / "evals" / "home.evalset.json", RULED_SET)
    config = _write(tmp_path / "evals" / "test_config.json",
                    {"criteria": {"tool_argument_match_score": {"threshold": 0.9, "tool_args": {"set_light": {"room": "text"}}}}})
    assert main(["validate", str(config)]) == 0
    assert "used by 1 eval set file(s)" in capsys.readouterr().out
    _write(config, {"criteria": {"tool_argument_match_score": {"threshold": 0.9, "tool_args": {"dim_light": {"room": "text"}}}}})
    assert main(["validate", str(tmp_path)]) == 2
    assert "$.criteria.tool_argument_match_score.tool_args.dim_light: no case expects a call of 'dim_light'" in capsys.readouterr().out
    assert main(["score", str(tmp_path / "evals" / "home.evalset.json"), "--actual", str(tmp_path / "evals" / "home.evalset.json"),
                 "--eval-config", str(config)]) == 2  # as `score` refuses it


def _served_project(tmp_path: Path, agent: str, session: bool = True) -> Path:
    case = {**GOOD_CASE, **({"session_input": {"app_name": "weather", "user_id": "u"}} if session else {})}
    _write(tmp_path / "evals" / "w.evalset.json", {"eval_set_id": "w", "eval_cases": [case]})
    (tmp_path / "agenteval.yaml").write_text(f"suites:\n  - eval_sets: evals/*.evalset.json\n    agent: {agent}\n")
    return tmp_path / "agenteval.yaml"


def test_a_served_agents_config_is_checked_not_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("AGENT_TOKEN", raising=False)
    config = _served_project(tmp_path, '{kind: adk_api_server, url: "http://127.0.0.1:8000", start: "./serve --port 8000", '
                                       'headers: {Authorization: "Bearer ${AGENT_TOKEN}"}}')
    (tmp_path / "serve").write_text("#!/bin/sh\n")
    assert main(["validate", str(config)]) == 0
    captured = capsys.readouterr()
    assert "ok      " in captured.out
    assert "$.suites[0].agent: ${AGENT_TOKEN} is not set here (`run` needs it)" in captured.err


def test_a_served_agent_run_would_fail_is_invalid(tmp_path, capsys):
    config = _served_project(tmp_path, '{kind: adk_api_server, url: "http://127.0.0.1:8000", start: "npx adk api_server .", cwd: web}',
                             session=False)
    assert main(["validate", str(config)]) == 2
    out = capsys.readouterr().out
    assert f"$.suites[0].agent: cwd: {(tmp_path / 'web').as_posix()} is not a folder (`start` runs there)" in out
    assert "$.suites[0].agent: 1 case(s) have no session_input.app_name (first: a): give the app's name on the server as `app_name`" in out
    (tmp_path / "web").mkdir()
    config.write_text(config.read_text().replace("cwd: web}", "cwd: web, app_name: weather}").replace("npx adk", "no-such-program-agenteval"))
    assert main(["validate", str(config)]) == 0
    assert "start: `no-such-program-agenteval` is not installed here" in capsys.readouterr().err


def test_a_criterion_naming_a_declared_custom_metric_is_valid_and_a_missing_function_is_named(tmp_path, capsys):
    (tmp_path / "metrics.py").write_text("def my_metric(eval_metric, actual, expected, scenario):\n    return None\n")
    custom = {"my_metric": {"code_config": {"name": "metrics.my_metric"}}, "gone": {"code_config": {"name": "metrics.gone"}}}
    _write(tmp_path / "test_config.json", {"criteria": {"my_metric": 0.5}, "custom_metrics": custom})
    _write(tmp_path / "good.evalset.json", {"eval_set_id": "s", "eval_cases": [GOOD_CASE]})
    assert main(["validate", str(tmp_path)]) == 0
    _write(tmp_path / "test_config.json", {"criteria": {"my_metric": 0.5, "gone": 0.5}, "custom_metrics": custom})
    assert main(["validate", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "$.custom_metrics.gone.code_config.name: " in out and "defines no function 'gone'" in out
