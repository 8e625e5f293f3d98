"""head_to_head_v1 through `agenteval run` / `accept` with the fake Gemini behind the production
judge: a PR whose answers got worse while ROUGE still matches them is caught; an unchanged agent
passes even with a judge that follows the position; without recorded baseline answers it is not
evaluated, with the reason, and that fails closed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import GeminiRequest, text_reply
from tests.judge.test_openai_judge import JUDGE_VARIABLES

CASES = 8
AGENT = """
def agent(text, session):
    light = text.split()[-1]
    return {"response": f"Light {light} is off.", "tool_calls": []}
"""
# The same words, scrambled: ROUGE-1 is a bag of words, so it scores this exactly as before.
SCRAMBLED = AGENT.replace('f"Light {light} is off."', 'f"off is {light} Light."')


def _write_project(root: Path) -> Path:
    cases = [{
        "eval_id": f"case{i}",
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": f"Turn off light {i}"}]},
                          "final_response": {"role": "model", "parts": [{"text": f"Light {i} is off."}]}}],
    } for i in range(CASES)]
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "lights.evalset.json").write_text(json.dumps({"eval_set_id": "lights", "eval_cases": cases}))
    (root / "evals" / "test_config.json").write_text(json.dumps({"criteria": {
        "response_match_score": 0.8,
        "head_to_head_v1": {"threshold": 0, "judge_model_options": {"num_samples": 3}},
    }}))
    (root / "agent.py").write_text(AGENT)
    config = root / "agenteval.yaml"
    config.write_text("suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n"
                      "judge:\n  backoff_initial_seconds: 0.001\n  request_timeout_seconds: 5\n")
    return config


def position_judge(request: GeminiRequest) -> dict:
    """Prefers a sentence that starts with "Light"; between two alike it names the first answer."""
    answers = re.search(r"### Answer A\n(.*)\n\n### Answer B\n(.*)\n\nAnswer with", request.prompt_text, re.S)
    assert answers, request.prompt_text[:300]
    first, second = (a.strip().startswith("Light") for a in answers.groups())
    better = "A" if first or not second else "B"
    return text_reply(json.dumps({"reasoning": "compared", "better": better}), prompt_tokens=120, output_tokens=15)


@pytest.fixture
def accepted(tmp_path, monkeypatch):
    from tests.fakes.gemini import FakeGemini

    config = _write_project(tmp_path)
    with FakeGemini(responder=position_judge) as gemini:
        for name in JUDGE_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        for name, value in gemini.env().items():
            monkeypatch.setenv(name, value)
        assert main(["run", "--config", str(config), "-q"]) == 0  # a first run: nothing to compare with, nothing lost
        first = json.loads((tmp_path / ".agenteval" / "results.json").read_text())
        for case in first["cases"]:
            assert case["metrics"]["head_to_head_v1"]["reason"].startswith("no recorded baseline answer to compare with: no baseline at ")
        assert main(["accept", "--config", str(config)]) == 0
        yield config


def _run(config: Path, agent: str = AGENT, extra: tuple[str, ...] = ()) -> tuple[int, dict, str]:
    if agent != AGENT:  # a module of another name: this process imported agent.py already
        (config.parent / "changed_agent.py").write_text(agent)
        config.write_text(config.read_text().replace("agent.py:agent", "changed_agent.py:agent"))
    comment = config.parent / "comment.md"
    code = main(["run", "--config", str(config), "-q", "--md", str(comment), *extra])
    return code, json.loads((config.parent / ".agenteval" / "results.json").read_text()), comment.read_text()


def test_answers_that_got_worse_with_rouge_unchanged_are_caught_head_to_head(accepted, capsys):
    capsys.readouterr()
    code, results, comment = _run(accepted, SCRAMBLED)
    assert code == 1
    assert "head to head: head_to_head_v1 against the baseline's answers: 0 win(s), 0 tie(s), 8 loss(es)" in capsys.readouterr().out
    assert {c["metrics"]["response_match_score"]["score"] for c in results["cases"]} == {1.0}  # ROUGE sees no change
    assert {c["metrics"]["head_to_head_v1"]["score"] for c in results["cases"]} == {0.0}
    assert "> **agenteval failed: the PR's answers lose to the baseline's head to head (`head_to_head_v1`)" in comment
    assert "> - head_to_head_v1: regressed (head to head, losses beat wins beyond chance: 8 loss(es) to 0 win(s), sign test p = 0.0039" in comment
    assert ("**Head to head**: `head_to_head_v1` against the baseline's answers: 0 win(s), 0 tie(s), 8 loss(es); "
            "net -100% [-100%, -43%]; sign test p = 0.00391 (fails at ≤ 0.05): 🔴 losses beat wins beyond chance") in comment
    assert "<summary>Cases lost head to head (8): the baseline's answer and the PR's</summary>" in comment
    assert "| default / lights / case0 | Light 0 is off. | off is 0 Light. |" in comment
    judge = results["stats"]["judge_by_metric"]["head_to_head_v1"]
    assert judge["calls"] >= 2 * CASES  # both orders of every case, through the real client


def test_an_unchanged_agent_passes_though_the_judge_follows_the_position(accepted):
    code, results, comment = _run(accepted)
    assert code == 0
    assert {c["metrics"]["head_to_head_v1"]["score"] for c in results["cases"]} == {0.5}
    assert ("`head_to_head_v1` against the baseline's answers: 0 win(s), 8 tie(s), 8 of them with the judge following the position, "
            "0 loss(es); net +0% [-28%, +28%]; sign test p = 1 (fails at ≤ 0.05): no credible difference")
    first = results["stats"]["judge_by_metric"]["head_to_head_v1"]
    assert (first["cache_hits"], first["cache_misses"]) == (0, 2 * CASES * 3)  # both orders, 3 samples each
    assert results["stats"]["estimated_cost_usd"] > 0  # priced as every judged metric
    code, again, _ = _run(accepted)
    assert code == 0 and again["stats"]["judge_by_metric"]["head_to_head_v1"]["cache_hits"] == 2 * CASES * 3  # the same prompts: cached in comment


def test_without_recorded_baseline_answers_it_is_not_evaluated_and_fails_closed(accepted):
    (accepted.parent / ".agenteval" / "baseline.outputs.jsonl.gz").unlink()
    code, results, comment = _run(accepted)
    reasons = {c["metrics"]["head_to_head_v1"]["reason"] for c in results["cases"]}
    assert reasons == {"no recorded baseline answer to compare with: the baseline's recorded outputs "
                       f"({(accepted.parent / '.agenteval' / 'baseline.outputs.jsonl.gz').as_posix()}) do not hold this case"}
    assert code == 1
    assert "8 head_to_head_v1 score(s) not evaluated where the baseline has the case (first: default/lights/case0: no recorded" in comment
    assert "`head_to_head_v1`: not evaluated" in comment


def test_any_provider_judges_head_to_head_an_openai_compatible_one_here(accepted, monkeypatch, capsys):
    from tests.fakes.openai import FakeOpenAI
    from tests.fakes.openai import text_reply as chat_reply

    def chat_judge(request) -> dict:
        answers = re.search(r"### Answer A\n(.*)\n\n### Answer B\n(.*)\n\nAnswer with", request.prompt_text, re.S)
        first = answers.group(1).strip().startswith("Light")
        return chat_reply(json.dumps({"reasoning": "compared", "better": "A" if first else "B"}), model="gpt-4o-2024-08-06")

    assert _run(accepted)[0] == 0  # Gemini judges it head to head (all ties), and that is accepted
    assert main(["accept", "--config", str(accepted)]) == 0
    test_config = accepted.parent / "evals" / "test_config.json"
    data = json.loads(test_config.read_text())
    data["criteria"]["head_to_head_v1"]["judge_model_options"]["judge_model"] = "openai/gpt-4o"
    test_config.write_text(json.dumps(data))
    with FakeOpenAI(responder=chat_judge) as fake:
        for name in JUDGE_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        code, results, comment = _run(accepted, SCRAMBLED)
    assert "recorded baseline outputs again" not in capsys.readouterr().err
    assert code == 1 and "8 loss(es)" in comment
    # a judge that differs from the baseline's is no judge change here: the baseline's scores are never compared
    assert "The judge changed since the baseline" not in comment and not results.get("rejudged")
    judge = results["cases"][0]["metrics"]["head_to_head_v1"]["judge"]
    assert judge["model"] == "openai/gpt-4o" and judge["provider"] == "openai"
