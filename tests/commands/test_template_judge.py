"""Judge metrics from a prompt template (issue 38 item 3), end to end through `agenteval run`:
the same labels from a Gemini judge and from an OpenAI-compatible one give the same scores;
an answer off the scale is drawn again, then NOT_EVALUATED, never a 0; an edit of the template
is a changed judge, not an agent regression; a regression of the agent is still caught."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini
from tests.fakes.openai import FakeOpenAI
from tests.fakes.openai import text_reply as openai_text
from tests.judge.helpers import json_reply
from tests.judge.test_openai_judge import run

TEMPLATE = "Is this reply to a customer polite?\nCustomer: {prompt}\nReply: {response}\nExpected: {reference}"
AGENT = """
def agent(text, session):
    n = int(text.split()[-1])
    return {"response": ("Sorry, order %d is late, we apologise." if n % 2 else "Order %d is late. Deal with it.") % n}
"""


def write_project(root: Path, template: str = TEMPLATE, agent: str = AGENT, agent_file: str = "agent.py") -> Path:
    """`agent_file`: a new name for a changed agent (a module is imported once per process)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / agent_file).write_text(agent)
    cases = [{"eval_id": f"c{i}", "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": f"Where is order {i}"}]},
        "final_response": {"role": "model", "parts": [{"text": f"Sorry, order {i} is late."}]}}]} for i in range(6)]
    (root / "evals").mkdir(exist_ok=True)
    (root / "evals" / "orders.evalset.json").write_text(json.dumps({"eval_set_id": "orders", "eval_cases": cases}))
    (root / "evals" / "test_config.json").write_text(json.dumps({
        "criteria": {"polite": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}}},
        "custom_metrics": {"polite": {"prompt_template": template, "labels": {"polite": 1, "rude": 0}}},
    }))
    config = root / "agenteval.yaml"
    config.write_text(f"suites:\n  - agent: {agent_file}:agent\n    eval_sets: evals/*.evalset.json\n"
                      "judge:\n  backoff_initial_seconds: 0.001\n  backoff_max_seconds: 0.005\n  request_timeout_seconds: 5\n")
    return config


def rating(prompt: str) -> dict:
    reply = re.search(r"Reply: (.*)", prompt)
    assert reply is not None and "Expected: Sorry, order" in prompt, prompt[:300]
    return {"rating": "Rude" if "Deal with it" in reply.group(1) else "polite", "explanation": "tone"}


def scores(results: dict) -> dict[str, tuple]:
    return {c["eval_id"]: (c["metrics"]["polite"]["score"], c["metrics"]["polite"]["status"]) for c in results["cases"]}


def test_gemini_and_an_openai_compatible_judge_give_the_same_scores(tmp_path, monkeypatch):
    with FakeGemini(responder=lambda r: json_reply(rating(r.prompt_text))) as gemini:
        code, by_gemini = run(write_project(tmp_path / "g"), monkeypatch, gemini.env())
    assert code == 1  # the rude replies fail their cases
    assert scores(by_gemini) == {f"c{i}": ((1.0, "PASSED") if i % 2 else (0.0, "FAILED")) for i in range(6)}
    judge = by_gemini["cases"][0]["metrics"]["polite"]["judge"]
    assert judge["num_samples"] == 3 and judge["prompt"]
    asked = gemini.requests[0].prompt_text
    assert '"rating": <one of "polite", "rude">' in asked and "Customer: Where is order" in asked
    with FakeOpenAI(responder=lambda r: openai_text(json.dumps(rating(r.prompt_text))), api_key="sk-test") as openai:
        yaml = write_project(tmp_path / "o")
        yaml.write_text(yaml.read_text() + "  model: openai/gpt-4o-mini\n")
        code, by_openai = run(yaml, monkeypatch, openai.env())
    assert scores(by_openai) == scores(by_gemini)
    assert by_openai["cases"][0]["metrics"]["polite"]["judge"]["provider"] == "openai"


def test_an_answer_off_the_scale_is_drawn_again_then_not_evaluated(tmp_path, monkeypatch):
    replies = iter([{"rating": "meh"}] * 10_000)
    with FakeGemini(responder=lambda r: json_reply(next(replies))) as gemini:
        code, results = run(write_project(tmp_path), monkeypatch, gemini.env())
    metric = results["cases"][0]["metrics"]["polite"]
    assert metric["status"] == "NOT_EVALUATED" and metric.get("score") is None
    assert "not one of polite, rude" in json.dumps(metric)
    assert len(gemini.requests) > 6  # each sample was drawn again before giving up


def test_a_template_edit_is_a_changed_judge_and_an_agent_regression_still_fails(tmp_path, monkeypatch, capsys):
    config = write_project(tmp_path)
    with FakeGemini(responder=lambda r: json_reply(rating(r.prompt_text))) as gemini:
        env = gemini.env()
        run(config, monkeypatch, env)
        assert main(["accept", str(config.parent / "r.json"), "--config", str(config), "--allow-failed"]) == 0
        write_project(tmp_path, TEMPLATE.replace("polite?", "polite and kind?"))
        code, _ = run(config, monkeypatch, env)
        out = capsys.readouterr().out
        assert code == 0, out  # the same agent under an edited template: no regression
        assert "prompt templates changed" in out or "judge changed" in out.lower()
        write_project(tmp_path, TEMPLATE.replace("polite?", "polite and kind?"), AGENT.replace("n % 2", "False"), "rude_agent.py")
        code, results = run(config, monkeypatch, env)
    assert code == 1, capsys.readouterr().out  # now every reply is rude: caught
    assert [s for s, _ in scores(results).values()] == [0.0] * 6
