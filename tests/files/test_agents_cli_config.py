"""agents-cli's `tests/eval/eval_config.yaml` (issue 39, item 3): `metrics_to_run` read as it is,
managed names (any case, a version pinned) scored by the loopback fake of the evaluation service,
ADK's metric names beside them, and every bad entry exit 2 naming the file and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.errors import InputError
from agenteval_ci.files.eval_configs import load_eval_config
from tests.fakes.vertex_eval import EvalRequest, FakeEvaluationService, scored
from tests.judge.test_managed_metrics import VARIABLES

# The scaffold's dataset as `agents-cli create my-agent -y` (google-agents-cli 1.11) writes it.
DATASET = {"eval_cases": [
    {"eval_case_id": "greeting", "prompt": {"role": "user", "parts": [{"text": "Hello, what can you help me with?"}]}},
    {"eval_case_id": "capital_lookup", "prompt": {"role": "user", "parts": [{"text": "What is the capital of France?"}]},
     "reference": {"response": {"role": "model", "parts": [{"text": "The capital of France is Paris."}]}}},
]}
AGENT = """
def agent(text, session):
    return {"response": "Paris." if "France" in text else "I can look up weather and time."}
"""
CAPITAL_FROM_FILE = """
from pathlib import Path

def agent(text, session):
    capital = Path(__file__).with_name("capital.txt").read_text()
    return {"response": capital if "France" in text else "I can look up weather and time."}
"""


def agents_cli_project(root: Path, eval_config: str) -> Path:
    (root / "tests" / "eval" / "datasets").mkdir(parents=True)
    (root / "tests" / "eval" / "datasets" / "basic-dataset.json").write_text(json.dumps(DATASET))
    (root / "tests" / "eval" / "eval_config.yaml").write_text(eval_config)
    (root / "agent.py").write_text(AGENT)
    config = root / "agenteval.yaml"
    config.write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: tests/eval/datasets/*.json\n"
                      "    eval_config: tests/eval/eval_config.yaml\n"
                      f"judge:\n  backoff_initial_seconds: 0.001\n  backoff_max_seconds: 0.005\n  cache_dir: {root / 'cache'}\n")
    return config


def by_answer(request: EvalRequest) -> dict:
    return scored(1.0 if request.response_text == "Paris." else 0.5)


def test_metrics_to_run_of_an_agents_cli_project_are_gated_unchanged(tmp_path, monkeypatch):
    config = agents_cli_project(tmp_path, "metrics_to_run:\n  - GENERAL_QUALITY\n  - final_response_match_v2\n  - response_match_score\n")
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with FakeEvaluationService(scorer=by_answer) as fake:
        for name, value in fake.env(tmp_path).items():
            monkeypatch.setenv(name, value)
        code = main(["run", "--config", str(config), "--json", str(tmp_path / "r.json")])
    results = {case["eval_id"]: case["metrics"] for case in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert results["greeting"]["general_quality"]["score"] == 0.5
    assert results["capital_lookup"]["general_quality"]["score"] == 1.0
    # a version pinned in the name asks that version of the spec, only where the case has a reference
    assert results["capital_lookup"]["final_response_match"]["score"] == 1.0
    assert "reference response" in results["greeting"]["final_response_match"]["reason"]
    assert results["capital_lookup"]["response_match_score"]["threshold"] == 0.0
    assert sorted({r.spec for r in fake.evaluations}) == ["final_response_match_v2", "general_quality_v2"]
    assert code == 1  # greeting has no reference: its final_response_match is not evaluated, never a pass


@pytest.mark.parametrize("text, at, says", [
    ("metrics_to_run: general_quality\n", "$.metrics_to_run", "must be a list of metric names"),
    ("metrics_to_run:\n  - general_quality\n  - no_such_metric\n", "$.metrics_to_run[1]", "unknown metric 'no_such_metric'"),
    ("metrics_to_run:\n  - 7\n", "$.metrics_to_run[0]", "must be a metric name"),
    ("metrics_to_run:\n  - general_quality\ncustom_metrics:\n  - name: general_quality\n"
     "    metric_spec_parameters: {rubric_group_key: r}\n", "$.metrics_to_run[0]", "only sets a built-in metric's parameters"),
    ("metrics_to_run:\n  - polite\ncustom_metrics:\n  - name: polite\n    prompt_template: 'Is {answer} polite?'\n"
     "    labels: {yes: 1, no: 0}\n", "$.custom_metrics[0]", "prompt_template names the field {answer}"),
    ("metrics_to_run:\n  - trajectory_single_tool_use\n", "$.metrics_to_run[0]", "needs settings a name in metrics_to_run cannot give (tool_name)"),
    ("metrics_to_run: []\ncustom_metrics: {name: x}\n", "$.custom_metrics", "must be a list of metric objects"),
    ("metrics_to_run:\n  - [general_quality\n", "$", "not valid YAML at line 3"),
])
def test_a_bad_entry_names_the_file_and_json_path(tmp_path, capsys, text, at, says):
    config = tmp_path / "eval_config.yaml"
    config.write_text(text)
    with pytest.raises(InputError) as raised:
        load_eval_config(config)
    where = f" at {at}:" if at != "$" else ":"  # the whole file is named without a path
    shown = str(raised.value)
    assert f"{config.as_posix()}{where}" in shown and says in shown
    project = agents_cli_project(tmp_path / "project", text)
    assert main(["validate", str(project)]) == 2
    assert f"tests/eval/eval_config.yaml{where}" in capsys.readouterr().out


def test_the_json_form_is_read_too(tmp_path):
    config = tmp_path / "eval_config.json"
    config.write_text(json.dumps({"metrics_to_run": ["multi_turn_task_success", "safety"]}))
    loaded = load_eval_config(config)
    judged = {m.name: m.criterion.judge_model_options.judge_model for m in loaded.metrics if m.spec.judged}
    assert judged == {"multi_turn_task_success": "vertex_eval/multi_turn_task_success_v1", "safety": "vertex_eval/safety_v3"}


def test_a_managed_metric_catches_a_regression_against_the_baseline_and_its_revert_is_green(tmp_path, monkeypatch):
    config = agents_cli_project(tmp_path, "metrics_to_run:\n  - general_quality\n")
    # the agent reads its answer at each call: an in-process agent module is imported once
    (tmp_path / "agent.py").write_text(CAPITAL_FROM_FILE)
    (tmp_path / "capital.txt").write_text("Paris.")
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    with FakeEvaluationService(scorer=by_answer) as fake:
        for name, value in fake.env(tmp_path).items():
            monkeypatch.setenv(name, value)
        assert main(["run", "--config", str(config)]) == 0  # first run: thresholds of 0 only
        assert main(["accept", "--config", str(config)]) == 0
        (tmp_path / "capital.txt").write_text("Lyon.")  # the scripted regression
        assert main(["run", "--config", str(config)]) == 1  # capital_lookup: 1.0 -> 0.5
        results = json.loads((tmp_path / ".agenteval" / "results.json").read_text())
        assert {c["eval_id"]: c["metrics"]["general_quality"]["score"] for c in results["cases"]} == {"greeting": 0.5, "capital_lookup": 0.5}
        (tmp_path / "capital.txt").write_text("Paris.")  # its revert
        assert main(["run", "--config", str(config)]) == 0


def test_validate_checks_agents_cli_eval_config_named_or_found_in_a_folder(tmp_path, capsys):
    folder = tmp_path / "tests" / "eval"
    folder.mkdir(parents=True)
    (folder / "eval_config.yaml").write_text("metrics_to_run:\n  - general_quality\n")
    assert main(["validate", str(folder / "eval_config.yaml")]) == 0
    assert "eval config, 1 criteria" in capsys.readouterr().out
    (folder / "eval_config.yaml").write_text("metrics_to_run:\n  - general_qualty\n")
    assert main(["validate", str(tmp_path)]) == 2
    assert "eval_config.yaml at $.metrics_to_run[0]: unknown metric 'general_qualty'" in capsys.readouterr().out
    (folder / "eval_config.yaml").unlink()
    (folder / "eval_config.json").write_text(json.dumps({"metrics_to_run": ["nope"]}))
    assert main(["validate", str(folder / "eval_config.json")]) == 2
    assert "eval_config.json at $.metrics_to_run[0]: unknown metric 'nope'" in capsys.readouterr().out


def test_traces_agents_cli_generated_are_scored_by_managed_metrics_with_no_agent_run(tmp_path, monkeypatch):
    """The traces' shape is what `agents-cli eval generate --dataset basic-dataset.json` writes:
    the dataset's cases with the agent's events in agent_data.turns."""
    agents_cli_project(tmp_path, "metrics_to_run:\n  - general_quality\n")
    def traced(case: dict, answer: str) -> dict:
        events = [{"author": "user", "content": case["prompt"]}, {"author": "my_agent", "content": {"role": "model", "parts": [{"text": answer}]}}]
        return {"eval_case_id": case["eval_case_id"], "agent_data": {"turns": [{"turn_index": 0, "events": events}]}}
    greeting, capital = DATASET["eval_cases"]
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps({"eval_cases": [traced(greeting, "I can help."), traced(capital, "Paris.")]}))
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with FakeEvaluationService(scorer=by_answer) as fake:
        for name, value in fake.env(tmp_path).items():
            monkeypatch.setenv(name, value)
        code = main(["score", str(tmp_path / "tests/eval/datasets/basic-dataset.json"), "--actual", str(traces),
                     "--eval-config", str(tmp_path / "tests/eval/eval_config.yaml"), "--json", str(tmp_path / "r.json"),
                     "--judge-cache-dir", str(tmp_path / "cache")])
    results = {case["eval_id"]: case["metrics"] for case in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert (code, results["capital_lookup"]["general_quality"]["score"], results["greeting"]["general_quality"]["score"]) == (0, 1.0, 0.5)
    assert [r.body["instance"]["agent_eval_data"]["turns"][0]["events"][-1]["author"] for r in fake.evaluations] == ["model", "model"]
