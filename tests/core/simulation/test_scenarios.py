"""Scenario cases end to end through `agenteval run`: a callable agent, and the fake Gemini
as both the simulated user and the judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.core.simulation.helpers import (
    QUALITY_MARK,
    SIMULATOR_MARK,
    STARTING_PROMPT,
    make_project,
    make_responder,
    scenario_case,
    static_case,
)
from tests.fakes.gemini import FakeGemini, Fault, text_reply


@pytest.fixture
def gemini(monkeypatch):
    with FakeGemini(responder=make_responder()) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        yield fake


def run(project: Path, out: Path) -> tuple[int, dict]:
    code = main(["run", "--config", str(project), "--json", str(out)])
    return code, json.loads(out.read_text())


def user_turns(case: dict, run_index: int = 0) -> list[str]:
    return [inv["user_content"]["parts"][0]["text"] for inv in case["runs"][run_index]["invocations"]]


def simulator_prompts(fake: FakeGemini) -> list[str]:
    return [r.prompt_text for r in fake.requests if SIMULATOR_MARK in r.prompt_text]


def test_three_turns_end_on_the_stop_signal(gemini, tmp_path, capsys):
    code, results = run(make_project(tmp_path, [scenario_case()]), tmp_path / "r.json")
    case = results["cases"][0]
    assert code == 0, capsys.readouterr()
    assert user_turns(case) == [STARTING_PROMPT, "Tuesday, please.", "Great. Now I need a car in Lisbon."]
    assert case["runs"][0]["invocations"][2]["final_response"]["parts"][0]["text"] == "Your car in Lisbon is reserved."
    # The stop signal ended the conversation; it never reached the agent.
    assert len(simulator_prompts(gemini)) == 3
    assert "</finished>" not in json.dumps(case["runs"])
    # Turn 1 is the starting prompt verbatim, no model call; the prompt for turn 3 holds the plan and history.
    last_prompt = simulator_prompts(gemini)[1]
    assert "Book a flight to Lisbon for Tuesday" in last_prompt
    assert "user: Tuesday, please.\n\nagent: Booked: the Tuesday flight to Lisbon." in last_prompt
    quality = case["metrics"]["per_turn_user_simulator_quality_v1"]
    assert quality["score"] == 1.0 and quality["status"] == "PASSED"
    assert [t["status"] for t in quality["runs"][0]["per_invocation"]] == ["PASSED"] * 3
    # 2 later turns + the stop-signal check, 3 samples each (one request of 3 candidates).
    assert [r.candidate_count for r in gemini.requests if QUALITY_MARK in r.prompt_text] == [3, 3, 3]
    reference = case["metrics"]["response_match_score"]
    assert reference["status"] == "NOT_EVALUATED" and "conversation_scenario" in reference["reason"]
    assert case["metrics"]["multi_turn_task_success_v1"]["status"] == "PASSED"
    assert case["metrics"]["safety_v1"]["score"] == 1.0
    assert case["status"] == "PASSED"
    assert results["stats"]["agent_turns"] == 3
    # The only warning: this Python agent returns no app_details, so the task-success judge went without them.
    assert [w.split(" was judged without")[0] for w in results["warnings"]] == ["`multi_turn_task_success_v1`"]


def test_the_turn_limit_stops_a_conversation_that_would_go_on(gemini, tmp_path):
    gemini.responder = make_responder(simulator=lambda prompt: "Tuesday, please.")  # never finishes
    project = make_project(tmp_path, [scenario_case()], simulator_config={"max_allowed_invocations": 4})
    code, results = run(project, tmp_path / "r.json")
    case = results["cases"][0]
    assert user_turns(case) == [STARTING_PROMPT] + ["Tuesday, please."] * 3
    assert len(simulator_prompts(gemini)) == 3  # the starting prompt counts toward the limit
    assert case["runs"][0].get("error") is None and code == 0


def test_the_judge_fails_a_conversation_that_should_have_gone_on(gemini, tmp_path):
    """The stop-signal check says ending was wrong: as in ADK, the last turn fails."""
    gemini.responder = make_responder(verdict=lambda prompt: not prompt.rstrip().endswith("</finished>"))
    project = make_project(tmp_path, [scenario_case()], simulator_config={"max_allowed_invocations": 2})
    code, results = run(project, tmp_path / "r.json")
    quality = results["cases"][0]["metrics"]["per_turn_user_simulator_quality_v1"]
    assert [t["status"] for t in quality["runs"][0]["per_invocation"]] == ["PASSED", "FAILED"]
    assert "should not end" in quality["runs"][0]["per_invocation"][1]["reason"]
    assert quality["score"] == 0.5 and quality["status"] == "PASSED"  # 1 of 2 turns; threshold 0.5


def test_a_persona_shapes_the_simulated_user_and_its_judge(gemini, tmp_path):
    project = make_project(tmp_path, [scenario_case("expert", "EXPERT"), scenario_case("novice", "NOVICE")])
    code, results = run(project, tmp_path / "r.json")
    assert code == 0
    prompts = simulator_prompts(gemini)
    expert = [p for p in prompts if "knows exactly what they want" in p]
    novice = [p for p in prompts if "half understand" in p]
    assert len(expert) == 3 and len(novice) == 3
    assert all("Professional tone" in p for p in expert) and all("Casual tone" in p for p in novice)
    # Persona texts fill in the stop signal.
    assert all("reply with `</finished>` to end the conversation" in p for p in novice)
    quality_prompts = [r.prompt_text for r in gemini.requests if QUALITY_MARK in r.prompt_text]
    assert any("# Persona" in p and "Invalid if:" in p for p in quality_prompts)
    assert [c["status"] for c in results["cases"]] == ["PASSED", "PASSED"]


def test_custom_instructions_are_a_jinja_template(gemini, tmp_path):
    custom = "PLAN={{ conversation_plan }} END={{ stop_signal }} HISTORY={{ conversation_history }} " + SIMULATOR_MARK
    project = make_project(tmp_path, [scenario_case()], simulator_config={"custom_instructions": custom, "include_function_calls": True})
    run(project, tmp_path / "r.json")
    prompt = simulator_prompts(gemini)[1]
    assert prompt.startswith("PLAN=Book a flight to Lisbon") and "END=</finished>" in prompt
    assert "agent called tool 'book_flight' with args {'day': 'tuesday'}" in prompt


def test_custom_instructions_without_a_placeholder_are_a_clear_input_error(gemini, tmp_path, capsys):
    project = make_project(tmp_path, [scenario_case()], simulator_config={"custom_instructions": "{{ conversation_plan }}"})
    assert main(["run", "--config", str(project)]) == 2
    err = capsys.readouterr().err
    assert "test_config.json at $.user_simulator_config.custom_instructions" in err
    assert "missing: stop_signal, conversation_history" in err


def test_a_persona_needs_the_persona_placeholder(gemini, tmp_path, capsys):
    custom = "{{ conversation_plan }} {{ stop_signal }} {{ conversation_history }}"
    project = make_project(tmp_path, [scenario_case("p", "NOVICE")], simulator_config={"custom_instructions": custom})
    assert main(["run", "--config", str(project)]) == 2
    err = capsys.readouterr().err
    assert "$.user_simulator_config.custom_instructions" in err and "{{ persona }}" in err and "'p'" in err
    assert gemini.requests == []  # found before anything ran


def test_simulator_failures_fail_their_case_with_the_reason_and_the_run_completes(gemini, tmp_path):
    def simulator(prompt: str):
        if "broken" in prompt:
            return Fault(500, "backend down")
        if "empty" in prompt:
            return text_reply("")
        return "Thanks, that is all. </finished>"

    gemini.responder = make_responder(simulator=simulator)
    cases = [scenario_case("ok")]
    for name in ("broken", "empty"):
        case = scenario_case(name)
        case["conversation_scenario"]["conversation_plan"] += f" ({name})"
        cases.append(case)
    code, results = run(make_project(tmp_path, cases), tmp_path / "r.json")
    by_id = {c["eval_id"]: c for c in results["cases"]}
    assert code == 1
    assert by_id["ok"]["status"] == "PASSED" and user_turns(by_id["ok"]) == [STARTING_PROMPT]
    broken = by_id["broken"]
    assert broken["status"] == "FAILED" and "turn 2" in broken["reason"] and "HTTP 500" in broken["reason"]
    assert user_turns(broken) == [STARTING_PROMPT]  # what ran before the failure is kept
    assert sum("(broken)" in p for p in simulator_prompts(gemini)) == 3  # first try + 2 retries
    empty = by_id["empty"]
    assert empty["status"] == "FAILED" and "turn 2" in empty["reason"] and "no text" in empty["reason"]


def test_scenario_and_static_cases_in_one_eval_set_then_rescored_without_generating(gemini, tmp_path, capsys):
    project = make_project(tmp_path, [static_case("static"), scenario_case("trip")], num_runs=2)
    code, results = run(project, tmp_path / "r.json")
    by_id = {c["eval_id"]: c for c in results["cases"]}
    assert code == 0 and [c["eval_id"] for c in results["cases"]] == ["static", "trip"]
    assert by_id["static"]["metrics"]["response_match_score"]["score"] == 1.0
    sim = by_id["static"]["metrics"]["per_turn_user_simulator_quality_v1"]
    assert sim["status"] == "NOT_EVALUATED" and "fixed conversation" in sim["reason"]
    assert len(by_id["trip"]["runs"]) == 2 and user_turns(by_id["trip"], 1)[2] == "Great. Now I need a car in Lisbon."

    # Re-score the recorded conversations: the judge is asked again, the simulated user is not.
    generated = len(simulator_prompts(gemini))
    out = tmp_path / "rescored.json"
    evalset = tmp_path / "evals" / "trips.evalset.json"
    assert main(["score", str(evalset), "--actual", str(tmp_path / "r.json"), "--json", str(out), "--no-judge-cache"]) == 0
    assert len(simulator_prompts(gemini)) == generated
    rescored = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert rescored["trip"]["runs"] == by_id["trip"]["runs"]
    assert rescored["trip"]["metrics"]["per_turn_user_simulator_quality_v1"]["score"] == 1.0
    assert rescored["trip"]["metrics"]["response_match_score"]["status"] == "NOT_EVALUATED"
