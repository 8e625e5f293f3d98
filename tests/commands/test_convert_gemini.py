"""`agenteval convert --to gemini` and back (issue 39, item 5): EvalSets to Gemini-platform datasets
(agents-cli's tests/eval/datasets format) and datasets to EvalSets, with what does not map said
case by case, and the result read back by the same readers `run` uses."""

from __future__ import annotations

import json

from agenteval_ci.cli import main
from agenteval_ci.files.eval_sets import load_eval_set


def _turn(user: str, answer: str | None = None, **fields) -> dict:
    turn = {"user_content": {"role": "user", "parts": [{"text": user}]}, **fields}
    if answer is not None:
        turn["final_response"] = {"role": "model", "parts": [{"text": answer}]}
    return turn


EVAL_SET = {"eval_set_id": "shop", "eval_cases": [
    {"eval_id": "one", "conversation": [_turn("Price of a rake?", "Twelve dollars.",
                                              intermediate_data={"tool_uses": [{"name": "price", "args": {"item": "rake"}}]})]},
    {"eval_id": "two", "conversation": [_turn("Hi", "Hello!"), _turn("Open on Sunday?", "Yes, 9 to 5.")],
     "session_input": {"app_name": "shop", "user_id": "u", "state": {"tier": "gold"}}},
    {"eval_id": "plan", "conversation_scenario": {"starting_prompt": "Hi", "conversation_plan": "Ask for a rake."}},
]}


def test_an_eval_set_becomes_a_dataset_saying_what_does_not_map_and_comes_back(tmp_path, capsys):
    source = tmp_path / "shop.evalset.json"
    source.write_text(json.dumps(EVAL_SET))
    assert main(["convert", "--to", "gemini", str(source)]) == 0
    out = capsys.readouterr().out
    dataset = json.loads((tmp_path / "shop.dataset.json").read_text())
    one, two = dataset["eval_cases"]
    assert one == {"eval_case_id": "one", "prompt": {"parts": [{"text": "Price of a rake?"}], "role": "user"},
                   "reference": {"response": {"parts": [{"text": "Twelve dollars."}], "role": "model"}}}
    assert [t["events"][0]["content"]["parts"][0]["text"] for t in two["agent_data"]["turns"]] == ["Hi", "Open on Sunday?"]
    assert two["reference"]["response"]["parts"][0]["text"] == "Yes, 9 to 5."
    for said in ("one: its expected tool calls are dropped", "two: the expected responses of turns before the last are dropped",
                 "two: its session_input", "plan: left out: a user-simulation scenario"):
        assert f"not mapped: {said}" in out
    # read by the reader `run` uses, as the Gemini-platform format
    back = load_eval_set(tmp_path / "shop.dataset.json").eval_set
    assert [case.eval_id for case in back.eval_cases] == ["one", "two"]
    assert [len(case.conversation or []) for case in back.eval_cases] == [1, 2]
    (tmp_path / "shop.evalset.json").unlink()
    assert main(["convert", str(tmp_path / "shop.dataset.json")]) == 0
    converted = json.loads((tmp_path / "shop.evalset.json").read_text())
    assert converted["eval_set_id"] == "shop"
    assert converted["eval_cases"][0]["conversation"][0]["final_response"]["parts"][0]["text"] == "Twelve dollars."


def test_a_dataset_round_trips_unchanged(tmp_path, capsys):
    dataset = {"eval_cases": [
        {"eval_case_id": "capital_lookup", "prompt": {"parts": [{"text": "What is the capital of France?"}], "role": "user"},
         "reference": {"response": {"parts": [{"text": "Paris."}], "role": "model"}}},
        {"eval_case_id": "greeting", "prompt": {"parts": [{"text": "Hello"}], "role": "user"}},
    ]}
    source = tmp_path / "basic-dataset.json"
    source.write_text(json.dumps(dataset))
    assert main(["convert", str(source)]) == 0
    assert "not mapped" not in capsys.readouterr().out
    assert main(["convert", "--to", "gemini", str(tmp_path / "basic_dataset.evalset.json")]) == 0
    assert json.loads((tmp_path / "basic_dataset.dataset.json").read_text()) == dataset


def test_generated_traces_say_how_to_score_them_and_a_differing_target_needs_force(tmp_path, capsys):
    traced = {"eval_cases": [{"eval_case_id": "c", "prompt": {"parts": [{"text": "Hi"}], "role": "user"},
                              "responses": [{"response": {"parts": [{"text": "Hello"}], "role": "model"}}]}]}
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(traced))
    (tmp_path / "traces.evalset.json").write_text("{}")
    assert main(["convert", str(source)]) == 2
    assert "exists and differs" in capsys.readouterr().out
    assert main(["convert", "--force", str(source)]) == 0
    assert "agenteval score" in capsys.readouterr().out
