"""A real two-agent google-adk app against the fake Gemini server: the run records each turn's
app_details as `adk eval` does, and the judge of our rubric metrics sees the same agent
context, field by field, as google-adk 2.13's own evaluators (run through the same fake)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.metrics.judge_context import without_nulls
from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply

# google-adk before plugins (1.2-1.6) records no app_details: nothing to compare there.
pytest.importorskip("google.adk.plugins.base_plugin", reason="this google-adk has no plugins to record app_details with")

PACKAGE = "shop_app_details"
AGENT = '''
from google.adk.agents import LlmAgent


def lookup_order(order_id: str, include_items: bool = False) -> dict:
    """Looks up an order by its id.

    Args:
      order_id: The order's id, e.g. "A-17".
      include_items: Whether to list the items in the order.
    """
    return {"order_id": order_id, "status": "delivered late"}


def refund(order_id: str, amount_eur: float, reason: str) -> dict:
    """Refunds part or all of an order.

    Args:
      order_id: The order to refund.
      amount_eur: How much to refund, in euros.
      reason: Why the customer wants the refund.
    """
    return {"order_id": order_id, "refunded_eur": amount_eur}


refunds = LlmAgent(
    name="refunds",
    model="gemini-2.5-flash",
    description="Handles refunds.",
    instruction="You refund orders for {customer_name}. Never refund more than {refund_limit} EUR.",
    tools=[refund],
)
root_agent = LlmAgent(
    name="front_desk",
    model="gemini-2.5-flash",
    description="Answers customers.",
    instruction="You help {customer_name} (tier {tier}) with orders. Hand refunds to the refunds agent.",
    tools=[lookup_order],
    sub_agents=[refunds],
)
'''
STATE = {"customer_name": "Ada", "tier": "gold", "refund_limit": 50}
INJECTED = {
    "front_desk": "You help Ada (tier gold) with orders. Hand refunds to the refunds agent.",
    "refunds": "You refund orders for Ada. Never refund more than 50 EUR.",
}
REQUEST = "Refund order A-17, it arrived late"
ANSWER = "I refunded 20 EUR on order A-17."
RUBRICS = [
    {"rubric_id": "looks_up_first", "rubric_content": {"text_property": "The agent looks the order up before refunding it."}},
    {"rubric_id": "within_limit", "rubric_content": {"text_property": "The refund stays within the customer's limit."}},
]
JUDGE = {"judge_model": "gemini-2.5-flash", "num_samples": 1}


def _system_instruction(request: GeminiRequest) -> str:
    return "\n".join(p.get("text", "") for p in request.body.get("systemInstruction", {}).get("parts", []))


def responder(request: GeminiRequest) -> dict[str, Any]:
    """The two agents' model (told apart by their system instruction), then the judges."""
    instruction = _system_instruction(request)
    done = [r["name"] for r in request.function_responses]
    if "Hand refunds" in instruction:
        if "lookup_order" not in done:
            return function_call_reply([("lookup_order", {"order_id": "A-17"})])
        return function_call_reply([("transfer_to_agent", {"agent_name": "refunds"})])
    if "Never refund" in instruction:
        if "refund" not in done:
            return function_call_reply([("refund", {"order_id": "A-17", "amount_eur": 20.0, "reason": "late"})])
        return text_reply(ANSWER)
    prompt = request.prompt_text
    if "### Text" in prompt:  # our hallucinations_v1: sentence split, then labels
        return text_reply(json.dumps({"sentences": [ANSWER]}))
    if "### Context" in prompt:
        return text_reply(json.dumps({"sentences": [{"sentence": ANSWER, "rationale": "ok", "label": "supported"}]}))
    if "segment the provided response" in prompt:  # ADK's hallucinations_v1
        return text_reply(f"<sentence>{ANSWER}</sentence>")
    if "**Context Begin**" in prompt:
        return text_reply(f"sentence: {ANSWER}\nlabel: supported\nrationale: ok\nsupporting_excerpt: null\ncontradicting_excerpt: null")
    if "### Properties to check" in prompt:  # ours: a JSON verdict per listed rubric
        ids = re.findall(r"^- id: (\S+) \|", prompt, re.M)
        return text_reply(json.dumps({"rubrics": [{"id": i, "rationale": "ok", "verdict": "yes"} for i in ids]}))
    ids = re.findall(r"\[id: (\S+)\]", prompt.rsplit("<properties>", 1)[-1])  # ADK's: text blocks
    return text_reply("\n".join(f"ID: {i}\nProperty: p\nRationale: ok\nVerdict: yes" for i in ids))


@pytest.fixture
def gemini(monkeypatch, tmp_path):
    with FakeGemini(responder=responder) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
        monkeypatch.chdir(tmp_path)  # the judge cache of adk eval's form lives in the working folder
        yield fake


@pytest.fixture
def shop(tmp_path, monkeypatch):
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(AGENT)
    eval_set = {
        "eval_set_id": "shop",
        "eval_cases": [{
            "eval_id": "late_order",
            "session_input": {"app_name": PACKAGE, "user_id": "u1", "state": STATE},
            "conversation": [{"user_content": {"role": "user", "parts": [{"text": REQUEST}]}, "final_response": {"role": "model", "parts": [{"text": ANSWER}]}}],
        }],
    }
    (tmp_path / "shop.evalset.json").write_text(json.dumps(eval_set))
    criteria = {
        "rubric_based_tool_use_quality_v1": {"threshold": 0.5, "judge_model_options": JUDGE, "rubrics": RUBRICS},
        "rubric_based_final_response_quality_v1": {"threshold": 0.5, "judge_model_options": JUDGE, "rubrics": RUBRICS},
    }
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": criteria}))
    monkeypatch.syspath_prepend(str(tmp_path))  # google-adk imports the agent by module name
    yield tmp_path
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def _run_ours(folder: Path) -> dict[str, Any]:
    out = folder / "results.json"
    code = main(["run", str(folder / PACKAGE), str(folder / "shop.evalset.json"), "--config_file_path", str(folder / "test_config.json"), "--json", str(out)])
    assert code == 0
    return json.loads(out.read_text())["cases"][0]


def _run_adk(folder: Path) -> Any:
    """google-adk's own inference (EvaluationGenerator, as `adk eval` runs it) on the same case."""
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator

    eval_set = EvalSet.model_validate_json((folder / "shop.evalset.json").read_text())
    [responses] = asyncio.run(EvaluationGenerator.generate_responses(eval_set, PACKAGE, repeat_num=1))
    [invocation] = responses.responses[0]
    return invocation


def _adk_judge_prompt(fake: FakeGemini, evaluator_class: Any, metric: str, invocation: Any) -> str:
    from google.adk.evaluation.eval_metrics import EvalMetric, RubricsBasedCriterion

    criterion = RubricsBasedCriterion.model_validate({"threshold": 0.5, "judge_model_options": JUDGE, "rubrics": RUBRICS})
    before = len(fake.requests)
    result = asyncio.run(evaluator_class(EvalMetric(metric_name=metric, criterion=criterion)).evaluate_invocations([invocation], None))
    assert result.overall_score == 1.0  # ADK parsed the fake judge's verdicts
    [request] = fake.requests[before:]
    return request.prompt_text


def _our_judge_prompt(fake: FakeGemini, heading: str) -> str:
    [prompt] = [r.prompt_text for r in fake.requests if heading in r.prompt_text]
    return prompt


def _sections(prompt: str) -> dict[str, str]:
    """Our prompt's `### heading` sections."""
    parts = re.split(r"^### (.+)$", prompt, flags=re.M)
    return {heading: body.strip() for heading, body in zip(parts[1::2], parts[2::2])}


def _tagged(prompt: str, tag: str) -> str:
    """The last <tag>...</tag> of ADK's prompt (its examples come first)."""
    start = prompt.rindex(f"<{tag}>") + len(tag) + 2
    return prompt[start : prompt.index(f"</{tag}>", start)].strip()


def _our_steps(text: str) -> tuple[list[Any], list[Any]]:
    steps = [json.loads(line) for line in text.splitlines()]
    calls = [(s["call"], s["args"]) for s in steps if "call" in s]
    results = [(s["result_of"], s["result"]) for s in steps if "result_of" in s]
    return calls, results


def _adk_steps(text: str) -> tuple[list[Any], list[Any]]:
    steps = json.loads(text)["tool_calls_and_response"]
    calls = [(s["tool_call"]["name"], s["tool_call"].get("args", {})) for s in steps]
    results = [(s["tool_response"]["name"], s["tool_response"]["response"]) for s in steps]
    return calls, results


def _functions(declarations: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for tools in declarations.values() for tool in tools for f in tool["function_declarations"]}


def test_tool_use_judge_sees_what_adks_judge_sees(gemini, shop):
    pytest.importorskip("google.adk.evaluation.rubric_based_tool_use_quality_v1", reason="this google-adk has no rubric evaluators")
    from google.adk.evaluation.rubric_based_final_response_quality_v1 import RubricBasedFinalResponseQualityV1Evaluator
    from google.adk.evaluation.rubric_based_tool_use_quality_v1 import RubricBasedToolUseV1Evaluator

    case = _run_ours(shop)
    ours = _sections(_our_judge_prompt(gemini, "### Tool calls the agent made and their results, in order"))
    ours_final = _sections(_our_judge_prompt(gemini, "### The agent's final answer"))
    adk_invocation = _run_adk(shop)
    adk = _adk_judge_prompt(gemini, RubricBasedToolUseV1Evaluator, "rubric_based_tool_use_quality_v1", adk_invocation)
    adk_final = _adk_judge_prompt(gemini, RubricBasedFinalResponseQualityV1Evaluator, "rubric_based_final_response_quality_v1", adk_invocation)

    # Our run recorded app_details as adk eval does: both agents, injected instructions, declarations.
    recorded = case["runs"][0]["invocations"][0]["app_details"]["agent_details"]
    adk_recorded = adk_invocation.app_details.agent_details
    assert list(recorded) == list(adk_recorded) == ["front_desk", "refunds"]
    for name, details in recorded.items():
        assert details["instructions"] == adk_recorded[name].instructions
        assert details["instructions"].startswith(INJECTED[name])
        assert without_nulls(details["tool_declarations"]) == [t.model_dump(mode="json", exclude_none=True) for t in adk_recorded[name].tool_declarations]

    # Tool declarations: each tool with its docstring and typed parameters, the same as ADK's.
    declared = json.loads(ours["Tools the agent could call (JSON declarations, by agent)"])
    assert declared == without_nulls(json.loads(_tagged(adk, "available_tools"))["tool_declarations"])
    functions = _functions(declared)
    assert set(functions) == {"lookup_order", "refund", "transfer_to_agent"}
    assert functions["lookup_order"]["description"].startswith("Looks up an order by its id.")
    assert "include_items: Whether to list the items" in functions["lookup_order"]["description"]
    refund_params = functions["refund"]["parameters_json_schema"]
    assert {k: v["type"] for k, v in refund_params["properties"].items()} == {"order_id": "string", "amount_eur": "number", "reason": "string"}
    assert refund_params["required"] == ["order_id", "amount_eur", "reason"]

    # The injected instructions (ours sends them to the tool-use judge too; ADK's does not).
    instructions = ours["Instructions the agent was given"]
    for name, text in INJECTED.items():
        assert f"[{name}]\n{adk_recorded[name].instructions.strip()}" in instructions and text in instructions
    assert "{customer_name}" not in instructions
    assert INJECTED["front_desk"] not in adk

    # The rest of ADK's inputs, field by field: the request, the tool steps, the rubrics.
    assert ours["Request from the user"] == _tagged(adk, "user_prompt") == REQUEST
    assert _our_steps(ours["Tool calls the agent made and their results, in order"]) == _adk_steps(_tagged(adk, "response"))
    assert re.findall(r"- id: (\S+) \| (.+)", ours["Properties to check"]) == re.findall(r"\[id: (\S+)\] (.+)", _tagged(adk, "properties"))

    # The final-response judge: ADK sends the responding agent's instructions; so do we.
    assert ours_final["Instructions the agent was given"] == _tagged(adk_final, "developer_instructions")
    assert json.loads(ours_final["Tools the agent could call (JSON declarations, by agent)"]) == declared
    assert ours_final["The agent's final answer"] == _tagged(adk_final, "final_answer") == ANSWER

    assert case["metrics"]["rubric_based_tool_use_quality_v1"]["score"] == 1.0
    assert "judged_without" not in case["metrics"]["rubric_based_tool_use_quality_v1"]


def test_the_declarations_go_once_per_request_however_many_samples(gemini, shop):
    config = json.loads((shop / "test_config.json").read_text())
    config["criteria"]["rubric_based_tool_use_quality_v1"]["judge_model_options"]["num_samples"] = 5
    (shop / "test_config.json").write_text(json.dumps(config))
    _run_ours(shop)
    [request] = [r for r in gemini.requests if "### Tool calls the agent made and their results, in order" in r.prompt_text]
    assert request.candidate_count == 5
    assert request.prompt_text.count('"name":"refund"') == 1
    assert request.prompt_text.count(INJECTED["refunds"]) == 1


def test_rescoring_the_results_file_hits_the_judge_cache_of_the_live_run(gemini, shop):
    """The prompt rendered from the live run's app_details and from the results file is the
    same text, so re-scoring makes no judge call."""
    _run_ours(shop)
    judged = len([r for r in gemini.requests if "systemInstruction" not in r.body])
    assert judged == 2  # one request per rubric metric
    out = shop / "rescored.json"
    args = ["score", str(shop / "shop.evalset.json"), "--actual", str(shop / "results.json"), "--eval-config", str(shop / "test_config.json"), "--json", str(out)]
    assert main(args) == 0
    stats = json.loads(out.read_text())["stats"]
    assert (stats["judge_calls"], stats["judge_cache_hits"]) == (0, 2)
    assert len([r for r in gemini.requests if "systemInstruction" not in r.body]) == judged


def test_hallucinations_judge_sees_what_adks_judge_sees(gemini, shop):
    pytest.importorskip("google.adk.evaluation.hallucinations_v1", reason="this google-adk has no hallucinations_v1")
    from google.adk.evaluation.eval_metrics import EvalMetric, HallucinationsCriterion
    from google.adk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator

    criteria = {"hallucinations_v1": {"threshold": 0.5, "judge_model_options": JUDGE}}
    (shop / "test_config.json").write_text(json.dumps({"criteria": criteria}))
    case = _run_ours(shop)
    ours = _sections(_our_judge_prompt(gemini, "### Context"))["Context"]
    adk_invocation = _run_adk(shop)
    before = len(gemini.requests)
    evaluator = HallucinationsV1Evaluator(EvalMetric(metric_name="hallucinations_v1", criterion=HallucinationsCriterion.model_validate(criteria["hallucinations_v1"])))
    assert asyncio.run(evaluator.evaluate_invocations([adk_invocation], None)).overall_score == 1.0
    [adk] = [r.prompt_text for r in gemini.requests[before:] if "**Context Begin**" in r.prompt_text]
    adk_context = adk.rsplit("**Context Begin**", 1)[1].split("**Context End**", 1)[0]  # after ADK's example

    assert case["metrics"]["hallucinations_v1"]["score"] == 1.0
    # Every agent's injected instructions (the customer's name and limit live there) and tools.
    for name, details in adk_invocation.app_details.agent_details.items():
        assert details.instructions.strip() in adk_context
        assert f"[{name}]\n{details.instructions.strip()}" in ours
    assert INJECTED["refunds"] in ours and "{refund_limit}" not in ours
    adk_tools = adk_context.split("Tool definitions:\n", 1)[1].split("\n\nGrounding metadata:", 1)[0]
    ours_tools = ours.split("Tool definitions (JSON declarations, by agent):\n", 1)[1].split("\n\n", 1)[0]
    assert json.loads(ours_tools) == without_nulls(json.loads(adk_tools)["tool_declarations"])
    assert f"User prompt:\n{REQUEST}" in ours and f"User prompt:\n{REQUEST}" in adk_context
