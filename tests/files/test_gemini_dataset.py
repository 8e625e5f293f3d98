"""Gemini-platform evaluation datasets (agents-cli's) as eval sets, and `agents-cli eval generate`'s
traces as recorded outputs, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_ci.cli import main
from agenteval_ci.files.eval_sets import load_eval_set

DATA = Path(__file__).resolve().parents[1] / "data" / "agents_cli"
DATASET = DATA / "basic-dataset.json"
TRACES = DATA / "traces.json"
FORMAT = "read as a Gemini-platform evaluation dataset (agents-cli)"


def _user(text: str) -> dict:
    return {"author": "user", "content": {"role": "user", "parts": [{"text": text}]}}


def _write(tmp_path: Path, cases: list) -> Path:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps({"eval_cases": cases}))
    return path


def test_the_scaffolds_dataset_validates_and_reads_as_its_cases(capsys):
    assert main(["validate", str(DATASET)]) == 0
    assert "eval set, 3 case(s)" in capsys.readouterr().out
    cases = list(load_eval_set(DATASET).cases())
    assert [c.eval_id for c in cases] == ["greeting", "weather_query", "capital_lookup"]
    assert cases[0].conversation[0].user_content.parts[0].text == "Hello, what can you help me with?"
    assert cases[0].conversation[0].final_response is None
    assert cases[2].conversation[0].final_response.parts[0].text == "The capital of France is Paris."


def test_user_only_turns_are_a_multi_turn_case_and_a_missing_id_is_the_cases_place(tmp_path):
    path = _write(tmp_path, [{"agent_data": {"turns": [{"events": [_user("hi")]}, {"events": [_user("and then?")]}]},
                              "reference": {"response": {"parts": [{"text": "done"}]}}}])
    (case,) = load_eval_set(path).cases()
    assert case.eval_id == "case_0"  # as agents-cli's optimizer names it
    assert [i.user_content.parts[0].text for i in case.conversation] == ["hi", "and then?"]
    assert case.conversation[-1].final_response.parts[0].text == "done"


def test_a_bad_dataset_is_exit_2_naming_the_path_and_the_format(tmp_path, capsys):
    path = _write(tmp_path, [{"eval_case_id": "a", "prompt": {"parts": [{"txt": "hi"}]}}])
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert "$.eval_cases[0].prompt.parts[0].txt" in out and FORMAT in out


def test_cases_agents_cli_refuses_are_refused_with_their_place(tmp_path, capsys):
    both = {"eval_case_id": "both", "prompt": {"parts": [{"text": "hi"}]}, "agent_data": {"turns": [{"events": [_user("hi")]}]}}
    neither = {"eval_case_id": "neither"}
    agent_last = {"eval_case_id": "agent_last", "agent_data": {"turns": [{"events": [_user("hi"), {"author": "bot", "content": {"parts": [{"text": "yo"}]}}]}]}}
    path = _write(tmp_path, [both, neither, agent_last])
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert "$.eval_cases[0]: has both `prompt` and `agent_data.turns`" in out
    assert "$.eval_cases[1]: needs `prompt`" in out
    assert "$.eval_cases[2].agent_data.turns: must end with a user event" in out
    assert out.count(FORMAT) == 3


def test_prior_agent_events_are_refused_not_replayed(tmp_path, capsys):
    seeded = {"eval_case_id": "seeded", "agent_data": {"turns": [{"events": [
        _user("hi"), {"author": "bot", "content": {"parts": [{"text": "hello"}]}}, _user("more")]}]}}
    assert main(["validate", str(_write(tmp_path, [seeded]))]) == 2
    out = capsys.readouterr().out
    assert "$.eval_cases[0].agent_data.turns: holds prior events of 'bot'" in out and "not supported yet" in out


def test_generate_traces_score_against_the_dataset_with_no_agent(tmp_path):
    out = tmp_path / "results.json"
    assert main(["score", str(DATASET), "--actual", str(TRACES), "--json", str(out)]) == 1
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["capital_lookup"]["metrics"]["response_match_score"]["score"] == 1.0
    # the traced tool call is read as a step: the dataset expects none, so the trajectory fails
    assert cases["weather_query"]["metrics"]["tool_call_count_v1"]["score"] == 1.0
    assert cases["weather_query"]["metrics"]["tool_trajectory_avg_score"]["score"] == 0.0


def test_a_trace_turn_splits_into_steps_and_final_response(tmp_path):
    from agenteval_ci.agents.recorded import load_actuals

    runs = {ref.eval_id: r for ref, r in load_actuals(TRACES).items()}
    (turn,) = runs["weather_query"][0].invocations
    assert turn.final_response.parts[0].text == "It's 60 degrees and foggy in San Francisco."
    assert [c.name for c in turn.tool_calls] == ["get_weather"]


def test_a_trace_case_without_a_user_message_is_exit_2(tmp_path, capsys):
    traces = _write(tmp_path, [{"eval_case_id": "greeting", "agent_data": {"turns": [{"events": [{"author": "bot", "content": {"parts": [{"text": "hi"}]}}]}]}}])
    assert main(["score", str(DATASET), "--actual", str(traces)]) == 2
    assert "$.eval_cases[0]: holds no user message" in capsys.readouterr().err
