"""The agent's context a judge sees (app_details): from a Python agent, from recorded actuals,
over a conversation, in hallucinations_v1; "not recorded" is said and flagged, never silent."""

from __future__ import annotations

import asyncio
import json
import re

from agenteval_ci.agents.recorded import CaseRef, load_actuals
from agenteval_ci.cli import main
from agenteval_ci.core.metrics.judge_context import NOT_RECORDED
from agenteval_ci.judge.costs import estimate_prompt_tokens
from agenteval_ci.schema import AppDetails, InvocationEvent, InvocationEvents
from tests.fakes.gemini import FakeGemini, GeminiRequest, text_reply
from tests.judge.helpers import json_reply, judge_for, score, turn

DECLARATION = {"name": "set_light", "description": "Turns a room's light on or off.", "parameters_json_schema": {"type": "object", "properties": {"room": {"type": "string"}}}}
APP = {"agent_details": {"home": {"name": "home", "instructions": "Only touch the lights.", "tool_declarations": [{"function_declarations": [DECLARATION]}]}}}
AGENT = f'''
APP = {APP!r}

def with_details(text, session):
    call = {{"name": "set_light", "args": {{"room": "kitchen"}}, "response": {{"kitchen": "on"}}}}
    return {{"response": "The kitchen light is on.", "tool_calls": [call], "app_details": APP}}

def without_details(text, session):
    return {{"response": "The kitchen light is on.", "tool_calls": [{{"name": "set_light", "args": {{"room": "kitchen"}}}}]}}

def broken_details(text, session):
    return {{"response": "ok", "app_details": {{"agent_details": {{"home": {{"instructions": "no name"}}}}}}}}
'''
RUBRIC = {"rubric_id": "right_tool", "rubric_content": {"text_property": "The agent calls set_light."}}
CRITERIA = {"criteria": {"rubric_based_tool_use_quality_v1": {"threshold": 0.5, "rubrics": [RUBRIC], "judge_model_options": {"num_samples": 1}}}}


def rubric_judge(request: GeminiRequest):
    ids = re.findall(r"^- id: (\S+) \|", request.prompt_text, re.M)
    return json_reply({"rubrics": [{"id": i, "rationale": "ok", "verdict": "yes"} for i in ids]})


def _project(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT)
    case = {"eval_id": "light", "conversation": [{"user_content": {"parts": [{"text": "Turn on the kitchen light"}]}}]}
    (tmp_path / "home.evalset.json").write_text(json.dumps({"eval_set_id": "home", "eval_cases": [case]}))
    (tmp_path / "test_config.json").write_text(json.dumps(CRITERIA))


def _run(tmp_path, function: str, fake: FakeGemini, monkeypatch) -> tuple[int, dict]:
    for name, value in fake.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / f"{function}.json"
    code = main(["run", f"agent.py:{function}", "home.evalset.json", "--json", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def test_a_python_agent_returns_app_details_and_the_judge_sees_them(tmp_path, monkeypatch):
    _project(tmp_path)
    with FakeGemini(responder=rubric_judge) as fake:
        code, results = _run(tmp_path, "with_details", fake, monkeypatch)
        [prompt] = [r.prompt_text for r in fake.requests]
    assert code == 0
    assert "[home]\nOnly touch the lights." in prompt
    assert json.dumps({"home": APP["agent_details"]["home"]["tool_declarations"]}, separators=(",", ":")) in prompt
    assert '{"result_of": "set_light", "result": {"kitchen": "on"}}' in prompt  # the tool's response
    case = results["cases"][0]
    assert case["runs"][0]["invocations"][0]["app_details"] == APP
    assert "judged_without" not in case["metrics"]["rubric_based_tool_use_quality_v1"]
    assert results["warnings"] == []


def test_without_app_details_the_prompt_says_so_and_the_results_and_report_warn(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    with FakeGemini(responder=rubric_judge) as fake:
        code, results = _run(tmp_path, "without_details", fake, monkeypatch)
        [prompt] = [r.prompt_text for r in fake.requests]
    assert code == 0
    assert prompt.count(NOT_RECORDED) == 2  # the instructions and the tools
    metric = results["cases"][0]["metrics"]["rubric_based_tool_use_quality_v1"]
    assert metric["score"] == 1.0
    assert metric["judged_without"] == metric["runs"][0]["judged_without"] == ["instructions", "tool_declarations", "tool_responses"]
    [warning] = results["warnings"]
    assert ("`rubric_based_tool_use_quality_v1` was judged without the agent's instructions and its tool declarations "
            "and the tools' responses in 1 of 1 case(s)") in warning
    assert warning in capsys.readouterr().err

    assert main(["report", str(tmp_path / "without_details.json"), "--format", "md"]) == 0
    comment = capsys.readouterr().out
    assert "> [!WARNING]\n> - `rubric_based_tool_use_quality_v1` was judged without" in comment


def test_invalid_app_details_from_a_python_agent_fail_the_run_with_the_path(tmp_path, monkeypatch):
    _project(tmp_path)
    with FakeGemini(responder=rubric_judge) as fake:
        code, results = _run(tmp_path, "broken_details", fake, monkeypatch)
    assert code == 1
    assert "at $.app_details.agent_details.home.name: required key 'name' is missing" in results["cases"][0]["runs"][0]["error"]


def test_recorded_actuals_keep_app_details(tmp_path):
    """An EvalSet-shaped actual file and an ADK evalset_result (which writes every null)."""
    invocation = {"invocation_id": "t1", "user_content": {"parts": [{"text": "hi"}]}, "app_details": APP}
    eval_set = tmp_path / "actual.evalset.json"
    eval_set.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [invocation]}]}))
    [run] = load_actuals(eval_set)[CaseRef("s", "c")]
    assert run.invocations[0].app_details == AppDetails.model_validate(APP)

    with_nulls = json.loads(json.dumps(APP))
    with_nulls["agent_details"]["home"]["tool_declarations"][0]["retrieval"] = None
    adk_invocation = {**invocation, "app_details": with_nulls}
    per_invocation = [{"actual_invocation": adk_invocation, "expected_invocation": None}]
    adk = {"eval_set_result_id": "r", "eval_case_results": [{"eval_id": "c", "final_eval_status": 1, "eval_metric_result_per_invocation": per_invocation}]}
    result_file = tmp_path / "run.evalset_result.json"
    result_file.write_text(json.dumps(json.dumps(adk)))  # ADK's JSON string inside JSON
    [run] = load_actuals(result_file)[CaseRef(None, "c")]  # this ADK result names no eval set
    assert run.invocations[0].app_details.agent_details["home"].tool_declarations[0]["retrieval"] is None

    # The judge sees the same declarations either way: null fields are dropped.
    with FakeGemini(responder=rubric_judge) as fake:
        score("rubric_based_tool_use_quality_v1", CRITERIA["criteria"]["rubric_based_tool_use_quality_v1"], run.invocations, judge_for(fake, tmp_path / "cache"))
        [prompt] = [r.prompt_text for r in fake.requests]
    assert '"retrieval"' not in prompt and '"name":"set_light"' in prompt


def test_a_conversation_judge_lists_each_agent_once_however_many_turns(tmp_path):
    details = AppDetails.model_validate(APP)
    turns = [turn(f"turn {n}", "done", app_details=details) for n in range(4)]
    trajectory = {"threshold": 0.5, "rubrics": [{**RUBRIC, "type": "TRAJECTORY_QUALITY"}], "judge_model_options": {"num_samples": 1}}
    with FakeGemini(responder=rubric_judge) as fake:
        run = score("rubric_based_multi_turn_trajectory_quality_v1", trajectory, turns, judge_for(fake, tmp_path), expected=turns)
        score("multi_turn_tool_use_quality_v1", {"threshold": 0.5, "judge_model_options": {"num_samples": 1}}, turns, judge_for(fake, tmp_path))
        summaries, full = [r.prompt_text for r in fake.requests]
    assert run.score == 1.0 and run.judged_without is None
    # ADK's trajectory rubric: each tool by name and description; Vertex's metrics: full declarations.
    assert summaries.count("- set_light: Turns a room's light on or off.") == 1 and "parameters_json_schema" not in summaries
    assert full.count('"name":"set_light"') == 1 and full.count("Only touch the lights.") == 1
    blind = score("rubric_based_multi_turn_trajectory_quality_v1", trajectory, [turn("a", "b")], None)
    assert blind.judged_without is None  # nothing was judged (no judge): no blind verdict to flag


def test_hallucinations_context_has_every_agent_and_the_grounding(tmp_path):
    app = AppDetails.model_validate({"agent_details": {
        "front": {"name": "front", "instructions": "The customer is Ada, tier gold."},
        "back": {"name": "back", "instructions": "Refund at most 50 EUR.", "tool_declarations": [{"function_declarations": [DECLARATION]}]},
    }})
    grounded = InvocationEvent(author="front", grounding_metadata={"web_search_queries": ["ada tier"]})
    answer = turn("What tier am I?", "You are tier gold.", app_details=app, intermediate_data=InvocationEvents(invocation_events=[grounded]))

    def judge(request: GeminiRequest):
        if "### Context" in request.prompt_text:
            return json_reply({"sentences": [{"sentence": "You are tier gold.", "rationale": "stated", "label": "supported"}]})
        return json_reply({"sentences": ["You are tier gold."]})

    with FakeGemini(responder=judge) as fake:
        run = score("hallucinations_v1", {"threshold": 0.5, "judge_model_options": {"num_samples": 1}}, [answer], judge_for(fake, tmp_path))
        [context] = [r.prompt_text for r in fake.requests if "### Context" in r.prompt_text]
    assert run.score == 1.0 and run.judged_without is None
    assert "[front]\nThe customer is Ada, tier gold.\n\n[back]\nRefund at most 50 EUR." in context
    assert '{"front":[],"back":[{"function_declarations":[' in context
    assert '"web_search_queries":["ada tier"]' in context


def test_a_reply_without_usage_is_priced_from_the_whole_prompt(tmp_path):
    """Declarations can be most of a prompt: with no usage reported, they still count."""
    no_usage = {k: v for k, v in text_reply("fine").items() if k != "usageMetadata"}
    prompt = "Tools: " + json.dumps([DECLARATION] * 200)
    with FakeGemini(responder=lambda r: no_usage) as fake:
        judge = judge_for(fake, tmp_path)
        asyncio.run(judge.ask("metric", "gemini-2.5-flash", None, prompt, 0))
    stats = judge.stats()
    assert stats.tokens.input == estimate_prompt_tokens(prompt) > len(prompt) // 5
    assert stats.estimated_cost_usd > 0


def test_a_turn_with_an_image_is_judged_without_media_and_the_report_says_so(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    image = {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}
    case = {"eval_id": "light", "conversation": [{"user_content": {"parts": [{"text": "Turn on the light in this photo"}, image]}}]}
    (tmp_path / "home.evalset.json").write_text(json.dumps({"eval_set_id": "home", "eval_cases": [case]}))
    with FakeGemini(responder=rubric_judge) as fake:
        code, results = _run(tmp_path, "with_details", fake, monkeypatch)
    assert code == 0
    metric = results["cases"][0]["metrics"]["rubric_based_tool_use_quality_v1"]
    assert metric["score"] == 1.0 and metric["judged_without"] == ["media"]
    [warning] = results["warnings"]
    assert "was judged without the conversation's images and files in 1 of 1 case(s): the judge's prompt is text only" in warning
