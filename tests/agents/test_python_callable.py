"""A Python callable's reply (issues 22 and 24): tool responses and texts between calls reach
the judges as an ADK agent's do; a callable that reports none is flagged judged_without in
every report; a bad reply fails its own run with the JSON path while the others go on; text
is made safe for every sink."""

from __future__ import annotations

import enum
import html
import json
import re
import xml.etree.ElementTree as ET

import pytest

from agenteval_ci.agents.python_callable import MAX_DEPTH, AgentReplyError, parse_reply, record_steps
from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini
from tests.judge.helpers import json_reply

APP = {"agent_details": {"home": {"name": "home", "instructions": "Answer from the thermostat only."}}}
AGENT = f'''
APP = {APP!r}

def reports(text, session):
    steps = [
        {{"text": "Let me check the thermostat."}},
        {{"name": "get_temp", "args": {{"room": "kitchen"}}, "response": {{"celsius": 21}}}},
    ]
    return {{"response": "It is 21 degrees in the kitchen.", "steps": steps, "app_details": APP}}

def silent(text, session):
    return {{"response": "It is 21 degrees in the kitchen.", "tool_calls": [{{"name": "get_temp", "args": {{"room": "kitchen"}}}}]}}

class Boom:
    def __str__(self):
        raise RuntimeError("no str for you")

def picky(text, session):
    """One bad reply per case; the case "fine" replies well, with a lone surrogate in its text."""
    looped = []
    looped.append(looped)
    deep = []
    for _ in range(5000):
        deep = [deep]
    bad = {{
        "surrogate_app": {{"agent_details": {{"h\\ud800": {{"name": "h\\udfff", "instructions": "x\\ud83d"}}}}}},
        "object": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": [object()]}}}}}},
        "bytes": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": [b"raw"]}}}}}},
        "looped": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": looped}}}}}},
        "deep": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": [deep]}}}}}},
        "tuple_key": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": [{{("a", 1): 2}}]}}}}}},
        "huge_int": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": [10 ** 5000]}}}}}},
        "bad_str": {{"agent_details": {{"h": {{"name": "h", "tool_declarations": [Boom()]}}}}}},
    }}
    if session.case_id == "args":
        return {{"response": "ok", "tool_calls": [{{"name": "get_temp", "args": {{"when": {{1, 2}}}}}}]}}
    if session.case_id in bad:
        return {{"response": "ok", "app_details": bad[session.case_id]}}
    return {{"response": "It is 21\\ud800 degrees.", "tool_calls": [{{"name": "get_temp\\udc00", "args": {{"room\\ud800": "k\\udfff"}}}}]}}
'''
TURN = {"user_content": {"parts": [{"text": "How warm is the kitchen?"}]}}


def judge_sentences(request):
    """Split on '. '; a sentence is supported when each of its numbers is in the context."""
    prompt = request.prompt_text
    if "Split the text below" in prompt:
        text = prompt.split("### Text\n", 1)[1].split("\n\nAnswer with", 1)[0]
        return json_reply({"sentences": re.split(r"(?<=\.) ", text.strip())})
    context = prompt.split("### Context\n", 1)[1].split("### Sentences", 1)[0]
    sentences = re.findall(r"^\d+\. (.*)$", prompt.split("### Sentences\n", 1)[1], re.M)
    labels = [
        {"sentence": s, "rationale": "checked",
         "label": "not_applicable" if not re.search(r"\d", s) else "supported" if all(n in context for n in re.findall(r"\d+", s)) else "unsupported"}
        for s in sentences
    ]
    return json_reply({"sentences": labels})


def _project(tmp_path, case_ids, criteria):
    (tmp_path / "agent.py").write_text(AGENT)
    cases = [{"eval_id": i, "conversation": [TURN]} for i in case_ids]
    (tmp_path / "home.evalset.json").write_text(json.dumps({"eval_set_id": "home", "eval_cases": cases}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": criteria}))


def _run(tmp_path, monkeypatch, function, fake):
    for name, value in fake.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / f"{function}.json"
    code = main(["run", f"agent.py:{function}", "home.evalset.json", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8"))


HALLUCINATIONS = {"hallucinations_v1": {"threshold": 0.9, "evaluate_intermediate_nl_responses": True, "judge_model_options": {"num_samples": 1}}}


def test_a_tool_response_reaches_the_hallucinations_judge_and_supports_the_sentence(tmp_path, monkeypatch, capsys):
    _project(tmp_path, ["kitchen"], HALLUCINATIONS)
    with FakeGemini(responder=judge_sentences) as fake:
        code, results = _run(tmp_path, monkeypatch, "reports", fake)
        contexts = [r.prompt_text for r in fake.requests if "### Context" in r.prompt_text]
    assert code == 0, capsys.readouterr().err
    metric = results["cases"][0]["metrics"]["hallucinations_v1"]
    assert metric["score"] == 1.0 and "judged_without" not in metric and results["warnings"] == []
    final = next(c for c in contexts if "It is 21 degrees" in c.split("### Sentences")[1])
    assert '"celsius": 21' in final and "Let me check the thermostat." in final  # the response and the text before it
    intermediate = next(c for c in contexts if "Let me check" in c.split("### Sentences")[1])
    assert '"celsius": 21' not in intermediate  # an intermediate text is judged against what came before it
    events = results["cases"][0]["runs"][0]["invocations"][0]["intermediate_data"]["invocation_events"]
    assert [e["author"] for e in events] == ["home"] * 3  # recorded as an ADK agent's turn: text, call, response
    assert events[2]["content"]["parts"][0]["function_response"] == {"name": "get_temp", "response": {"celsius": 21}}


def test_a_callable_that_reports_no_responses_or_texts_is_flagged_in_every_report(tmp_path, monkeypatch, capsys):
    _project(tmp_path, ["kitchen"], HALLUCINATIONS)
    with FakeGemini(responder=judge_sentences) as fake:
        code, results = _run(tmp_path, monkeypatch, "silent", fake)
    err = capsys.readouterr().err
    assert code == 1
    metric = results["cases"][0]["metrics"]["hallucinations_v1"]
    assert metric["score"] == 0.0  # "21" is nowhere in what the judge saw
    assert metric["judged_without"] == ["instructions", "tool_declarations", "tool_responses", "intermediate_texts"]
    assert results["cases"][0]["runs"][0]["unreported"] == ["intermediate_texts"]
    [warning] = results["warnings"]
    assert warning.startswith("`hallucinations_v1` was judged without the agent's instructions and its tool declarations and the "
                              "tools' responses and the agent's texts between tool calls in 1 of 1 case(s): ")
    assert "each call's `response`" in warning and "without `steps`" in warning
    assert warning in err  # the terminal
    for form in ("md", "summary", "html"):
        assert main(["report", "silent.json", "--format", form, "-o", f"report.{form}"]) == 0
        shown = html.unescape((tmp_path / f"report.{form}").read_text(encoding="utf-8"))
        assert "the tools' responses and the agent's texts between tool calls" in shown, form
    assert main(["report", "silent.json", "--format", "junit", "-o", "junit.xml"]) == 0
    [out] = [e.text for e in ET.parse(tmp_path / "junit.xml").iter("system-out")]
    assert "hallucinations_v1 was judged without" in out and "the tools' responses" in out


def test_one_bad_reply_fails_its_own_run_with_the_json_path_and_the_rest_goes_on(tmp_path, monkeypatch, capsys):
    ids = ["fine", "surrogate_app", "object", "bytes", "looped", "deep", "tuple_key", "huge_int", "bad_str", "args"]
    _project(tmp_path, ids, {"response_match_score": 0.0, **HALLUCINATIONS})
    with FakeGemini(responder=judge_sentences) as fake:  # the judge and its cache see the repaired text
        code, results = _run(tmp_path, monkeypatch, "picky", fake)
    assert code == 1
    cases = {c["eval_id"]: c for c in results["cases"]}
    errors = {i: c["runs"][0].get("error") or "" for i, c in cases.items()}
    where = "the agent returned an invalid reply: at $.app_details.agent_details.h.tool_declarations"
    assert f"{where}[0]: a value of type object is not JSON" in errors["object"]
    assert f"{where}[0]: a value of type bytes is not JSON" in errors["bytes"]
    assert f"nested more than {MAX_DEPTH} levels deep (or it contains itself)" in errors["looped"]
    assert f"nested more than {MAX_DEPTH} levels deep" in errors["deep"]
    assert f"{where}[0]: a key of type tuple; object keys are strings" in errors["tuple_key"]
    assert f"{where}[0]: an integer of more than 4,300 digits" in errors["huge_int"]
    assert f"{where}[0]: a value of type Boom is not JSON" in errors["bad_str"]
    assert "at $.tool_calls[0].args.when: a value of type set is not JSON" in errors["args"]
    assert errors["fine"] == errors["surrogate_app"] == ""
    assert cases["fine"]["metrics"]["hallucinations_v1"]["score"] is not None  # judged, its cache key built
    fine = cases["fine"]["runs"][0]["invocations"][0]
    assert fine["final_response"]["parts"][0]["text"] == "It is 21\ufffd degrees."
    call = fine["intermediate_data"]["invocation_events"][0]["content"]["parts"][0]["function_call"]
    assert call == {"name": "get_temp\ufffd", "args": {"room\ufffd": "k\ufffd"}}
    details = cases["surrogate_app"]["runs"][0]["invocations"][0]["app_details"]["agent_details"]
    assert details == {"h\ufffd": {"name": "h\ufffd", "instructions": "x\ufffd", "tool_declarations": []}}
    capsys.readouterr()
    assert main(["report", "picky.json", "--format", "md", "-o", "-"]) == 0  # every report takes it
    assert "Traceback" not in capsys.readouterr().err


# ---------------------------------------------------------------- the reply, value by value


class Level(enum.IntEnum):
    HIGH = 3


class Tag(str):
    pass


def test_plain_json_is_made_of_python_values_and_text_is_repaired():
    reply = parse_reply({"response": Tag("ok \ud83d\ude00 \ud800"), "tool_calls": [{"name": "f", "args": {"level": Level.HIGH, "pair": (1, 2.5)}}]})
    assert reply.response == "ok \U0001f600 \ufffd"  # a surrogate pair becomes its character, a lone one U+FFFD
    assert type(reply.response) is str and reply.tool_calls[0].args == {"level": 3, "pair": [1, 2.5]}
    assert type(reply.tool_calls[0].args["level"]) is int
    assert parse_reply("just \udfff text").response == "just \ufffd text"


@pytest.mark.parametrize(
    "reply, message",
    [
        (None, "the agent returned an invalid reply: None; expected"),
        (("a",), "the agent returned an invalid reply: a value of type tuple"),
        ({"response": "x", "tool_calls": [{"name": "f", "args": {"n": float("nan")}}]}, "at $.tool_calls[0].args.n: nan is not a JSON number"),
        ({"response": "x", "tool_call": []}, "at $.tool_call: unknown key 'tool_call'"),
        ({"response": "x", "tool_calls": [], "steps": []}, 'give "steps" (texts and tool calls, in order) or "tool_calls", not both'),
        ({"response": "x", "tool_calls": [{"text": "hi"}]}, '"tool_calls" holds tool calls only; texts between calls go in "steps"'),
        ({"response": "x", "steps": [{"text": "hi", "name": "f"}]}, "at $.steps[0]: a step is a text"),
        ({"response": "x", "steps": [{"args": {}}]}, "at $.steps[0]: a step is a text"),
        ({"response": 5}, "at $.response: Input should be a valid string"),
        ({"response": "x", "predicted_trajectory": [{"tool_name": "f", "tool_output": 1}]}, "unknown key 'tool_output'"),
        ({"response": "x", "usage": {"input_tokens": -1}}, "at $.usage[0].input_tokens: Input should be greater than or equal to 0"),
        ({"response": "x", "usage": [{"input_tokens": 1, "tokens": 2}]}, "at $.usage[0].tokens: unknown key 'tokens'"),
        ({"response": "x", "model": ""}, "at $.model: String should have at least 1 character"),
        ({"response": "x" * 10_000_001}, "the reply's strings hold more than 10,000,000 characters"),
        ({"response": "x", "tool_calls": [{"name": "f", "args": {"v": list(range(100_001))}}]}, "the reply holds more than 100,000 values"),
    ],
)
def test_a_bad_reply_names_the_place(reply, message):
    with pytest.raises(AgentReplyError) as raised:
        parse_reply(reply)
    assert message in str(raised.value)


def test_a_tool_response_is_recorded_as_adk_records_a_tools_return_value():
    reply = parse_reply({"response": "x", "tool_calls": [
        {"name": "a", "args": {}, "response": {"ok": True}},
        {"name": "b", "args": {}, "response": [1]},
        {"name": "c", "args": {}, "response": None},
        {"name": "d", "args": {}},
    ]})
    events = record_steps(reply.steps, "agent")
    responses = [p.function_response for e in events for p in e.content.parts if p.function_response]
    assert [(r.name, r.response) for r in responses] == [("a", {"ok": True}), ("b", {"result": [1]}), ("c", {"result": None})]
    assert not reply.reports_texts  # tool calls without `steps`: the texts between them are unknown
    assert parse_reply({"response": "x", "steps": []}).reports_texts and parse_reply({"response": "x", "tool_calls": []}).reports_texts


def test_a_judge_of_the_response_alone_flags_unreported_texts_only_when_it_reads_them(tmp_path):
    """safety_v1 reads the texts on the way only with include_intermediate_responses_in_final."""
    import asyncio

    from agenteval_ci.core.metrics import REGISTRY, MetricInput
    from agenteval_ci.schema import EvalCase, SafetyCriterion
    from tests.judge.helpers import judge_for, turn

    answer = turn("hi", "Hello!")
    case = EvalCase(eval_id="c", conversation=[answer])
    with FakeGemini(responder=lambda request: json_reply({"reasoning": "r", "verdict": "safe"})) as fake:
        judge = judge_for(fake, tmp_path)
        runs = [
            asyncio.run(REGISTRY["safety_v1"].evaluate(MetricInput(
                SafetyCriterion.model_validate({"threshold": 0.5, "include_intermediate_responses_in_final": include}),
                [answer], case.conversation, case, judge, ("intermediate_texts",))))
            for include in (True, False)
        ]
    assert [run.score for run in runs] == [1.0, 1.0]
    assert [run.judged_without for run in runs] == [["intermediate_texts"], None]


USAGE_AGENT = """
import os

def measured(text, session):
    tokens = int(os.environ["AGENT_TOKENS"])
    calls = [{"input_tokens": tokens, "output_tokens": tokens // 10}] * 2  # two model calls in the turn
    return {"response": "It is 21 degrees.", "usage": calls, "model": "gemini-2.5-flash"}

def vertex(text, session):
    return {"response": "It is 21 degrees.", "predicted_trajectory": [], "usage": {"input_tokens": 5}, "model": "m"}

def unmeasured(text, session):
    return "It is 21 degrees."
"""


def _usage_project(tmp_path, function, budgets, not_evaluated="fail"):
    (tmp_path / "agent.py").write_text(USAGE_AGENT)
    case = {"eval_id": "kitchen", "conversation": [{**TURN, "final_response": {"role": "model", "parts": [{"text": "It is 21 degrees."}]}}]}
    (tmp_path / "home.evalset.json").write_text(json.dumps({"eval_set_id": "home", "eval_cases": [case]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    gate = {"budgets": budgets, "not_evaluated": not_evaluated}
    config = {"gate": gate, "suites": [{"agent": f"agent.py:{function}", "eval_sets": ["home.evalset.json"], "num_runs": 2}]}
    (tmp_path / "agenteval.yaml").write_text(json.dumps(config))
    return tmp_path / "agenteval.yaml"


def _run_config(config, name):
    out = config.parent / f"{name}.json"
    code = main(["run", "--config", str(config), "--json", str(out), "-q"])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_a_callables_usage_and_model_are_recorded_per_model_call_and_priced(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_TOKENS", "1000")
    config = _usage_project(tmp_path, "measured", {"token_usage_v1": "+10%"})
    code, results = _run_config(config, "first")
    assert code == 0
    run = results["cases"][0]["runs"][0]
    events = run["invocations"][0]["intermediate_data"]["invocation_events"]
    assert [(e["usage_metadata"]["prompt_token_count"], e["usage_metadata"]["candidates_token_count"], e["model_version"]) for e in events] == [
        (1000, 100, "gemini-2.5-flash")] * 2
    assert run["cost_usd"] > 0
    vertex = parse_reply({"response": "x", "predicted_trajectory": [], "usage": {"input_tokens": 5}, "model": "m"})
    assert [(u.prompt_token_count, u.total_token_count) for u in vertex.usage] == [(5, 5)] and vertex.model == "m"


def test_a_token_budget_holds_a_callable_that_reports_its_usage(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AGENT_TOKENS", "1000")
    config = _usage_project(tmp_path, "measured", {"token_usage_v1": "+10%", "cost_usd": "+10%"})
    _run_config(config, "first")
    assert main(["accept", str(tmp_path / "first.json"), "--config", str(config)]) == 0
    monkeypatch.setenv("AGENT_TOKENS", "2000")
    capsys.readouterr()
    code, _ = _run_config(config, "doubled")
    out = capsys.readouterr().out
    assert code == 1
    assert "over budget on token_usage_v1" in out and "over budget on cost_usd" in out


@pytest.mark.parametrize("not_evaluated", ["fail", "warn"])
def test_a_budget_on_a_callable_that_reports_no_usage_is_not_measured_never_a_silent_pass(tmp_path, monkeypatch, capsys, not_evaluated):
    config = _usage_project(tmp_path, "unmeasured", {"token_usage_v1": "+10%"}, not_evaluated)
    _run_config(config, "first")
    assert main(["accept", str(tmp_path / "first.json"), "--config", str(config)]) == 0
    capsys.readouterr()
    code, _ = _run_config(config, "again")
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert "default token_usage_v1 (tokens per turn, the cases summed): –, allowed +10%: not measured" in shown
    assert "no run of the suite reported tokens per turn (first: default/home/kitchen: token_usage_v1 not reported by any run)" in shown
    assert "a Python callable's or an HTTP agent's reply: `usage`" in shown and "`suite_budgets: {default: {token_usage_v1: null}}`" in shown
    failed = "the budget on token_usage_v1 was not measured" in captured.out  # a reason of the verdict
    assert (code, failed) == ((1, True) if not_evaluated == "fail" else (0, False))  # `warn`: shown, not failed
