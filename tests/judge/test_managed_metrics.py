"""agents-cli's managed metrics scored by the Gen AI evaluation service (issue 39, item 3), through
`agenteval run` with the production provider and google-auth unpatched against the loopback fake
of `evaluateInstances` and of the OAuth token endpoint: the request the released client sends,
the score it answers, credentials missing or refused (not evaluated, the gate fails closed),
faults retried, a result without a score drawn again then not evaluated, the cache, and the
judge's fingerprint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.judge_fingerprint import prompt_hash
from tests.fakes.loopback import Fault
from tests.fakes.vertex_eval import EvalRequest, FakeEvaluationService, metric_error, missing_score, scored

VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL",
             "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS")
AGENT = """
def agent(text, session):
    light = text.split()[-1]
    return {"response": f"Light {light} is off.", "tool_calls": [{"name": "set_light", "args": {"light": light}}]}
"""


def write_project(root: Path, criteria: dict, judge: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "agent.py").write_text(AGENT)
    cases = [{
        "eval_id": f"case{i}",
        "conversation": [{
            "user_content": {"role": "user", "parts": [{"text": f"Turn off light {i}"}]},
            "final_response": {"role": "model", "parts": [{"text": f"Light {i} is off."}]},
            "intermediate_data": {"tool_uses": [{"name": "set_light", "args": {"light": str(i)}}]},
        }],
    } for i in range(3)]
    (root / "evals").mkdir()
    (root / "evals" / "lights.evalset.json").write_text(json.dumps({"eval_set_id": "lights", "eval_cases": cases}))
    (root / "evals" / "test_config.json").write_text(json.dumps({"criteria": criteria}))
    config = root / "agenteval.yaml"
    config.write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n"
                      "judge:\n  backoff_initial_seconds: 0.001\n  backoff_max_seconds: 0.005\n  request_timeout_seconds: 5\n"
                      f"  cache_dir: {root / 'cache'}\n" + judge)
    return config


def run(config: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *extra: str) -> tuple[int, dict]:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = config.parent / "r.json"
    code = main(["run", "--config", str(config), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def metric(results: dict, name: str, case: int = 0) -> dict:
    return results["cases"][case]["metrics"][name]


def by_light(request: EvalRequest) -> dict:
    """Light 2's answer scores 0.25, the others 0.75: a pure function of the request."""
    return scored(0.25 if "Light 2" in request.response_text else 0.75, "graded")


def test_a_managed_metric_is_scored_by_the_evaluation_service_as_agents_cli_asks_it(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5, "final_response_match": 0.5})
    with FakeEvaluationService(scorer=by_light) as fake:
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert code == 1  # light 2 scores 0.25 < 0.5: the gate fails on it
    assert [metric(results, "general_quality", i)["score"] for i in range(3)] == [0.75, 0.75, 0.25]
    assert [metric(results, "general_quality", i)["status"] for i in range(3)] == ["PASSED", "PASSED", "FAILED"]
    assert metric(results, "final_response_match")["runs"][0]["per_invocation"][0]["details"] == {"explanations": ["graded"]}
    # one token fetched from the token endpoint of the credentials file, then reused
    assert fake.token_requests == 1 and fake.refused == 0
    first = next(r for r in fake.evaluations if r.spec == "final_response_match_v3" and "light 0" in json.dumps(r.body))
    assert (first.project, first.location) == ("fake-project", "us-central1")
    instance = first.body["instance"]
    assert instance["prompt"] == {"contents": {"contents": [{"parts": [{"text": "Turn off light 0"}], "role": "user"}]}}
    assert instance["response"]["contents"]["contents"][0]["parts"] == [{"text": "Light 0 is off."}]
    assert instance["reference"]["contents"]["contents"][0]["parts"] == [{"text": "Light 0 is off."}]
    events = instance["agent_eval_data"]["turns"][0]["events"]
    assert [e["author"] for e in events] == ["user", "agent", "model"]  # the agent's own events, as it recorded them
    assert events[1]["content"]["parts"][0]["function_call"]["name"] == "set_light"
    assert sorted({r.spec for r in fake.evaluations}) == ["final_response_match_v3", "general_quality_v2"]
    judge = metric(results, "general_quality")["judge"]
    assert judge["provider"] == "vertex_eval" and judge["model"] == "vertex_eval/general_quality_v2" and judge["num_samples"] == 1
    assert judge["prompt"] == prompt_hash(("metrics/managed.py",))  # a change to what we send is a changed judge


def test_without_credentials_managed_metrics_are_not_evaluated_and_the_gate_fails_closed(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5, "tool_trajectory_avg_score": 1.0})
    code, results = run(config, monkeypatch, {})
    assert code == 1
    result = metric(results, "general_quality")
    assert result["status"] == "NOT_EVALUATED" and "GOOGLE_CLOUD_PROJECT" in result["reason"]
    assert metric(results, "tool_trajectory_avg_score")["status"] == "PASSED"


def test_refused_credentials_ask_the_service_nothing_and_say_why(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5})
    with FakeEvaluationService(refuse_tokens=True) as fake:
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert code == 1
    result = metric(results, "general_quality")
    assert result["status"] == "NOT_EVALUATED" and "credentials refused" in result["reason"] and "invalid_grant" in result["reason"]
    assert fake.evaluations == [] and fake.token_requests == 1  # refused once, not asked again per case


def test_a_missing_credentials_file_is_not_evaluated_with_the_hint(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"safety": 0.5})
    with FakeEvaluationService() as fake:
        env = {**fake.env(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "nowhere.json")}
        code, results = run(config, monkeypatch, env)
    assert code == 1 and fake.requests == []
    assert "application default credentials" in metric(results, "safety")["reason"]


def test_transient_faults_are_retried_and_score_as_without_them(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5})
    with FakeEvaluationService(scorer=by_light) as fake:
        fake.fail_next(Fault(503, "unavailable"), Fault(429, "quota", retry_after=0.01), Fault(malformed=True), Fault(drop=True))
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert fake.faults_served == 4
    assert [metric(results, "general_quality", i)["score"] for i in range(3)] == [0.75, 0.75, 0.25]


def test_a_result_without_a_score_is_drawn_again(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5})
    with FakeEvaluationService(scorer=by_light) as fake:
        fake.reply_next(missing_score())
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert len(fake.evaluations) == 4  # three cases, one of them asked twice
    assert [metric(results, "general_quality", i)["score"] for i in range(3)] == [0.75, 0.75, 0.25]


@pytest.mark.parametrize("reply, why", [(missing_score(), "no score in the metric result"),
                                        (metric_error(), "Single-turn metric received agent_eval_data")])
def test_a_result_that_never_has_a_score_is_not_evaluated_never_zero(tmp_path, monkeypatch, reply, why):
    config = write_project(tmp_path, {"general_quality": 0.5})
    with FakeEvaluationService(scorer=lambda request: reply) as fake:
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert code == 1
    result = metric(results, "general_quality")
    assert result["status"] == "NOT_EVALUATED" and result.get("score") is None and why in result["reason"]


def test_a_second_run_answers_from_the_cache(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5})
    with FakeEvaluationService(scorer=by_light) as fake:
        env = fake.env(tmp_path)
        _, first = run(config, monkeypatch, env)
        asked = len(fake.evaluations)
        _, second = run(config, monkeypatch, env)
    assert asked == 3 and len(fake.evaluations) == 3
    assert [metric(second, "general_quality", i)["score"] for i in range(3)] == [0.75, 0.75, 0.25]


def test_judge_model_of_agenteval_yaml_does_not_reroute_a_managed_metric(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"general_quality": 0.5}, judge="  model: gemini-2.5-flash\n")
    with FakeEvaluationService(scorer=by_light) as fake:
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert len(fake.evaluations) == 3
    assert metric(results, "general_quality")["judge"]["model"] == "vertex_eval/general_quality_v2"


def test_a_pinned_version_asks_that_spec(tmp_path, monkeypatch):
    pinned = {"threshold": 0.5, "judge_model_options": {"judge_model": "vertex_eval/general_quality_v1"}}
    config = write_project(tmp_path, {"general_quality": pinned})
    with FakeEvaluationService(scorer=by_light) as fake:
        run(config, monkeypatch, fake.env(tmp_path))
    assert {r.spec for r in fake.evaluations} == {"general_quality_v1"}


def test_another_judge_for_a_managed_metric_is_refused_naming_the_file_and_path(tmp_path, monkeypatch, capsys):
    config = write_project(tmp_path, {"general_quality": {"threshold": 0.5, "judge_model_options": {"judge_model": "gemini-2.5-flash"}}})
    assert main(["validate", str(config)]) == 2
    shown = capsys.readouterr().out
    assert "evals/test_config.json at $.criteria.general_quality" in shown and "judge_model must be vertex_eval/" in shown


def test_a_multi_turn_metric_judges_the_whole_conversation_once(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"multi_turn_task_success": 0.5})
    eval_set = tmp_path / "evals" / "lights.evalset.json"
    conversation = [{"user_content": {"role": "user", "parts": [{"text": f"Turn off light {i}"}]},
                     "final_response": {"role": "model", "parts": [{"text": f"Light {i} is off."}]}} for i in (1, 2)]
    eval_set.write_text(json.dumps({"eval_set_id": "lights", "eval_cases": [{"eval_id": "both", "conversation": conversation}]}))
    with FakeEvaluationService(scorer=by_light) as fake:
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    [request] = fake.evaluations
    assert request.spec == "multi_turn_task_success_v1"
    assert [turn["turn_index"] for turn in request.body["instance"]["agent_eval_data"]["turns"]] == [0, 1]
    prompts = request.body["instance"]["prompt"]["contents"]["contents"]
    assert [p["parts"][0]["text"] for p in prompts] == ["Turn off light 1", "Turn off light 2"]
    result = metric(results, "multi_turn_task_success")
    assert result["score"] == 0.25  # the last turn's response is graded: light 2
    first, last = result["runs"][0]["per_invocation"]
    assert first["status"] == "NOT_EVALUATED" and "whole conversation" in first["reason"] and last["score"] == 0.25


def test_a_request_the_service_refuses_is_not_retried_and_says_why(tmp_path, monkeypatch):
    config = write_project(tmp_path, {"grounding": 0.5})
    with FakeEvaluationService(scorer=lambda request: Fault(400, "grounding_v2 needs context in the instance")) as fake:
        code, results = run(config, monkeypatch, fake.env(tmp_path))
    assert code == 1 and len(fake.evaluations) == 3  # one request per case: a 400 would be refused again
    result = metric(results, "grounding")
    assert result["status"] == "NOT_EVALUATED" and "HTTP 400: grounding_v2 needs context" in result["reason"]


def test_the_endpoint_of_agenteval_yaml_is_used_and_a_url_that_is_none_is_not_evaluated(tmp_path, monkeypatch):
    with FakeEvaluationService(scorer=by_light) as fake:
        env = {**fake.env(tmp_path), "GOOGLE_VERTEX_BASE_URL": "http://127.0.0.1:9"}  # nothing listens there
        config = write_project(tmp_path / "a", {"general_quality": 0.5}, judge=f"  providers:\n    vertex_eval:\n      base_url: {fake.root_url}\n")
        run(config, monkeypatch, env)
        assert len(fake.evaluations) == 3
        config = write_project(tmp_path / "b", {"general_quality": 0.5}, judge="  providers:\n    vertex_eval:\n      base_url: 'ftp://127.0.0.1'\n")
        code, results = run(config, monkeypatch, env)
    result = metric(results, "general_quality")
    assert code == 1 and result["status"] == "NOT_EVALUATED" and "cannot be asked" in result["reason"]
