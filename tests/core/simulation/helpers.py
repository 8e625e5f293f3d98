"""A small travel project whose user side is simulated, and a fake Gemini scripted as both
the simulated user and the judge (requests told apart by their prompt text)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any, Callable, Optional

from tests.fakes.gemini import GeminiRequest, text_reply

SIMULATOR_MARK = "You are playing the user"
QUALITY_MARK = "You are checking a simulated user"
CONVERSATION_JUDGE_MARK = "You review a whole conversation"
SAFETY_MARK = "harm"

AGENT = '''
def concierge(text, session):
    said = text.lower()
    if "flight" in said:
        return {"response": "Sure. Which day do you want to fly to Lisbon?"}
    if "tuesday" in said:
        return {"response": "Booked: the Tuesday flight to Lisbon.", "tool_calls": [{"name": "book_flight", "args": {"day": "tuesday"}}]}
    if "car" in said:
        return {"response": "Your car in Lisbon is reserved.", "tool_calls": [{"name": "rent_car", "args": {"city": "Lisbon"}}]}
    return {"response": "Sorry, I did not get that. What can I do for you?"}
'''

PLAN = "Book a flight to Lisbon for Tuesday. Once it is booked, rent a car in Lisbon. Then you are done."
STARTING_PROMPT = "I need a flight to Lisbon."


def scenario_case(eval_id: str = "trip", persona: Any = None) -> dict[str, Any]:
    scenario: dict[str, Any] = {"starting_prompt": STARTING_PROMPT, "conversation_plan": PLAN}
    if persona is not None:
        scenario["user_persona"] = persona
    return {"eval_id": eval_id, "conversation_scenario": scenario}


def static_case(eval_id: str = "greeting") -> dict[str, Any]:
    return {
        "eval_id": eval_id,
        "conversation": [{
            "user_content": {"parts": [{"text": "I want a flight"}]},
            "final_response": {"parts": [{"text": "Sure. Which day do you want to fly to Lisbon?"}]},
            "intermediate_data": {"tool_uses": []},
        }],
    }


def simulator_turn(prompt: str) -> str:
    """A scripted simulated user: reacts to the agent's last message in the prompt's history."""
    last_agent = [line for line in prompt.splitlines() if line.startswith("agent: ")][-1]
    if "Which day" in last_agent:
        return "Tuesday, please."
    if "Tuesday flight" in last_agent:
        return "Great. Now I need a car in Lisbon."
    if "car in Lisbon is reserved" in last_agent:
        return "Thanks, that is all. </finished>"
    return "I need a flight to Lisbon."


def make_responder(
    simulator: Callable[[str], Any] = simulator_turn, verdict: Callable[[str], Any] = lambda prompt: True
) -> Callable[[GeminiRequest], Any]:
    def respond(request: GeminiRequest) -> Any:
        prompt = request.prompt_text
        if SIMULATOR_MARK in prompt:
            reply = simulator(prompt)
            return reply if not isinstance(reply, str) else text_reply(reply)
        if QUALITY_MARK in prompt:
            return text_reply(json.dumps({"checks": [], "is_valid": verdict(prompt)}))
        if CONVERSATION_JUDGE_MARK in prompt:
            ids = re.findall(r"- id: (\S+)", prompt)
            return text_reply(json.dumps({"rubrics": [{"id": i, "rationale": "ok", "verdict": "yes"} for i in ids]}))
        return text_reply(json.dumps({"verdict": "safe"}))

    return respond


CRITERIA = {
    "per_turn_user_simulator_quality_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}},
    "response_match_score": 0.5,
    "multi_turn_task_success_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}},
    "safety_v1": 0.5,
}


def make_project(
    root: Path,
    cases: list[dict[str, Any]],
    simulator_config: Optional[dict[str, Any]] = None,
    criteria: Optional[dict[str, Any]] = None,
    num_runs: int = 1,
) -> Path:
    (root / "agent.py").write_text(AGENT)
    evals = root / "evals"
    evals.mkdir(exist_ok=True)
    (evals / "trips.evalset.json").write_text(json.dumps({"eval_set_id": "trips", "eval_cases": cases}))
    config: dict[str, Any] = {"criteria": criteria or CRITERIA}
    if simulator_config is not None:
        config["user_simulator_config"] = simulator_config
    (evals / "test_config.json").write_text(json.dumps(config))
    project = root / "agenteval.yaml"
    project.write_text(textwrap.dedent(f"""\
        judge:
          cache: false
          max_retries: 2
          backoff_initial_seconds: 0.01
          backoff_max_seconds: 0.02
        suites:
          - agent: agent.py:concierge
            eval_sets: evals/*.evalset.json
            num_runs: {num_runs}
        """))
    return project
